"""``sim record``: a cloud's servers read back as a trace.

A whole cloud runs in this process (three computes); the recorder reaches
its compute API through the WSGI app, as it would over HTTP. Servers are
booted (one with a hint), resized, migrated and deleted; the trace must
say so, in order, with where the cloud put each one. The trace then
replays (moves included) through ``sim run``.
"""

import json
import os
import subprocess
import sys

import fixtures
import requests

from nova_lite.clients import placement as placement_client
from nova_lite.sim import importer
from nova_lite.sim import recorder
from nova_lite.sim import snapshot
from nova_lite.sim import workload
from tests.functional import test_servers

HOST = 'OS-EXT-SRV-ATTR:host'
MANAGE = ('import sys; from nova_lite.cmd import manage; '
          'sys.exit(manage.main(sys.argv[1:]))')


class RecordTest(test_servers.ServersTestBase):

    COMPUTES = ('host1', 'host2', 'host3')
    # The image asks for x86_64: the replay's hosts must offer it too
    # (their supported instances come from the hypervisors' cpu_info).
    FLAGS = {'DEFAULT': {'allow_resize_to_same_host': False},
             'image_catalog': {'default_image_properties': {
                 'hw_architecture': 'x86_64'}}}

    def _session(self):
        session = requests.Session()
        session.mount('http://compute.invalid',
                      placement_client.WSGIAdapter(self.cloud.app))
        session.mount('http://placement.invalid',
                      self.cloud.placement.client.session.get_adapter(
                          'http://placement.invalid'))
        return session

    def _action(self, server_id, body, status='VERIFY_RESIZE'):
        response = self.admin_api.post('/servers/%s/action' % server_id,
                                       body)
        self.assertIn(response.status, (202, 204), response)
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(server_id, status)

    def _confirm(self, server_id):
        self._action(server_id, {'confirmResize': None}, 'ACTIVE')

    def test_boots_moves_and_deletes_become_a_trace(self):
        first = self.boot('ACTIVE', name='first')
        second = self.boot('ACTIVE', name='second', flavor_id='1')
        third = self.boot('ACTIVE', name='third', scheduler_hints={
            'different_host': [first['id']]})
        self._action(second['id'], {'resize': {'flavorRef': '2'}})
        self._confirm(second['id'])
        self._action(third['id'], {'migrate': None})
        self._confirm(third['id'])
        self.delete_and_check_no_allocations(first['id'])

        events, warnings = recorder.record('http://compute.invalid/v2.1',
                                           'admin', self._session())

        self.assertEqual([], warnings)
        self.assertEqual(
            [('create', first['id']), ('create', second['id']),
             ('create', third['id']), ('resize', second['id']),
             ('migrate', third['id']), ('delete', first['id'])],
            [(e['action'], e['id']) for e in events])
        times = [e['time'] for e in events]
        self.assertEqual(0.0, times[0])
        self.assertEqual(sorted(times), times)
        creates = {e['id']: e for e in events if e['action'] == 'create'}
        # The create has the flavor the server was booted with, the resize
        # the new one.
        self.assertEqual('m1.tiny', creates[second['id']]['flavor'])
        self.assertEqual('m1.small', events[3]['flavor'])
        self.assertEqual({'different_host': [first['id']]},
                         creates[third['id']]['hints'])
        self.assertEqual({'hw_architecture': 'x86_64'},
                         creates[first['id']]['image_properties'])
        self.assertEqual(self.cloud.get_server(second['id'])['tenant_id'],
                         creates[second['id']]['project'])
        # Where the cloud put each server at its build.
        self.assertEqual('placed', creates[first['id']]['observed'][
            'result'])
        self.assertNotEqual(creates[first['id']]['observed']['host'],
                            creates[third['id']]['observed']['host'])
        now = self.cloud.get_server(third['id'])
        self.assertEqual(now[HOST], events[4]['observed']['host'])

        # The file round-trips through the trace reader, and replays.
        tmp = self.useFixture(fixtures.TempDir()).path
        trace = os.path.join(tmp, 'trace.jsonl')
        workload.save(events, trace)
        self.assertEqual(events, workload.load(trace))
        doc = importer.import_cloud(
            'http://placement.invalid', 'admin',
            compute_url='http://compute.invalid/v2.1',
            session=self._session())
        # The snapshot is of the cloud as it is now: start it empty.
        for prov in doc['providers']:
            prov['usages'] = {}
        snap = os.path.join(tmp, 'snapshot.json')
        snapshot.save(doc, snap)
        conf = os.path.join(tmp, 'same.conf')
        with open(conf, 'w') as f:
            f.write('[DEFAULT]\nallow_resize_to_same_host = false\n')
        out = os.path.join(tmp, 'out')
        # NOTE(sim): its own process: the replay's placement and
        # configuration must not meet this test's running cloud.
        result = subprocess.run(
            [sys.executable, '-c', MANAGE, 'sim', 'run', '--snapshot', snap,
             '--workload', trace, '--config', conf, '-o', out],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(0, result.returncode, result.stderr)
        with open(os.path.join(out, 'same.json')) as f:
            rep = json.load(f)
        self.assertEqual((3, 0, 2), (rep['placed'], rep['no_valid_host'],
                                     rep['moves']), rep['outcomes'])
        moves = [o for o in rep['outcomes'] if o.get('action')]
        self.assertEqual(['resize', 'migrate'],
                         [m['action'] for m in moves])
        for move in moves:
            self.assertEqual('placed', move['result'])
            self.assertNotEqual(move['from'], move['host'])
