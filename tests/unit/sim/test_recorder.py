"""The parts of ``sim record`` that read answers: the build's host, the
microversion, a deleted server without a delete action."""

import testtools

from nova_lite.sim import recorder


class _Response:
    def __init__(self, body):
        self.body, self.status_code, self.text = body, 200, str(body)

    def json(self):
        return self.body


class _Session:
    def __init__(self, answers):
        self.answers = answers

    def get(self, url, headers=None, timeout=None):
        return _Response(self.answers[url])


class RecorderTest(testtools.TestCase):

    def test_build_host_is_the_successful_attempts(self):
        action = {'events': [
            {'event': 'compute__do_build_and_run_instance',
             'start_time': '2026-01-01T00:00:02', 'host': 'h2',
             'result': 'Success'},
            {'event': 'compute__do_build_and_run_instance',
             'start_time': '2026-01-01T00:00:01', 'host': 'h1',
             'result': 'Error'},
            {'event': 'schedule_and_build', 'host': None}]}
        self.assertEqual('h2', recorder._build_host(action))
        self.assertIsNone(recorder._build_host({'events': []}))

    def test_microversion_is_the_servers_up_to_2_100(self):
        for served, wanted in (('2.95', '2.95'), ('2.101', '2.100'),
                               ('', '2.1')):
            session = _Session({'http://nova/v2.1/': {
                'version': {'version': served}}})
            self.assertEqual(wanted, recorder.negotiate(
                'http://nova/v2.1', 'tok', session))

    def test_a_server_deleted_without_a_delete_action(self):
        rec = recorder.Recorder(api=None)
        server = {'id': 's1', 'deleted': True, 'status': 'DELETED',
                  'updated': '2026-01-01T00:01:00Z', 'tenant_id': 'p',
                  'flavor': {'original_name': 'm1.tiny'}}
        actions = [{'action': 'create',
                    'start_time': '2026-01-01T00:00:00.000000',
                    'events': []}]
        events = rec.events_of(server, actions, [])
        self.assertEqual(['create', 'delete'],
                         [e['action'] for e in events])
        self.assertEqual({'result': 'NoValidHost'}, events[0]['observed'])
        self.assertEqual(60, (events[1]['when'] -
                              events[0]['when']).total_seconds())
