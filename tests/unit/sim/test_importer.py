"""The compute API reads of ``sim import``: pages, extra specs, headers."""

import testtools

from nova_lite.sim import importer


class _Response:
    def __init__(self, body, status=200):
        self.body = body
        self.status_code = status
        self.text = str(body)

    def json(self):
        return self.body


class _Session:
    """Canned answers by URL; records the headers sent."""

    def __init__(self, answers):
        self.answers = answers
        self.headers = []

    def get(self, url, headers=None, timeout=None):
        self.headers.append(headers)
        return _Response(*self.answers[url]) if isinstance(
            self.answers[url], tuple) else _Response(self.answers[url])


class ReadComputeTest(testtools.TestCase):

    def test_pages_and_extra_specs(self):
        base = 'http://nova/v2.1'
        session = _Session({
            base + '/flavors/detail': {
                'flavors': [{'id': '1', 'name': 'a', 'vcpus': 1, 'ram': 64,
                             'disk': 1}],
                'flavors_links': [{'rel': 'next',
                                   'href': base + '/flavors/detail?m=1'}]},
            base + '/flavors/detail?m=1': {'flavors': [
                {'id': '2', 'name': 'b', 'vcpus': 2, 'ram': 128,
                 'disk': 2}]},
            base + '/flavors/1/os-extra_specs': {'extra_specs': {}},
            base + '/flavors/2/os-extra_specs': {
                'extra_specs': {'resources:CUSTOM_X': '1'}},
            base + '/os-aggregates': {'aggregates': []},
            base + '/os-hypervisors/detail': {'hypervisors': [
                {'id': 'u1', 'hypervisor_hostname': 'n1',
                 'service': {'host': 'h1'}}]},
        })
        got = importer.read_compute(importer.compute_reader(
            base, 'tok', session))
        self.assertEqual(['a', 'b'], [f['name'] for f in got['flavors']])
        self.assertEqual({'resources:CUSTOM_X': '1'},
                         got['flavors'][1]['extra_specs'])
        self.assertEqual('h1', got['hypervisors'][0]['service']['host'])
        self.assertEqual({'X-Auth-Token': 'tok', 'Accept': 'application/json',
                          'OpenStack-API-Version': 'compute 2.53',
                          'X-OpenStack-Nova-API-Version': '2.53'},
                         session.headers[0])

    def test_refusal_names_url_and_status(self):
        session = _Session({'http://p/resource_providers': (
            {'errors': []}, 403)})
        err = self.assertRaises(importer.SourceError, importer.import_cloud,
                                'http://p', 'tok', session=session)
        self.assertIn('GET http://p/resource_providers: 403', str(err))
