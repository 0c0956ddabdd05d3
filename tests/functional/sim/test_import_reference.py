"""``sim import`` from OpenStack Placement 16 reads what it reads from
nova_lite's placement.

The same provider tree - a compute node with a child holding a custom
resource class, custom and standard traits, an aggregate, another node,
and one consumer's allocations across the tree - is written through the
placement API to both: nova_lite's placement in this process and
OpenStack Placement 16 itself (:mod:`tests.compat.reference`, started
here on a free port with its own state directory). The two snapshots must
be equal, and the reference's replays.

The ``compat`` env, which installs ``openstack-placement``, runs it (CI
runs that env). Elsewhere it runs when ``$NOVA_LITE_PLACEMENT_REFERENCE_VENV``
(default ``/tmp/placement-venv``) holds Placement, and skips saying so
otherwise.
"""

import json
import os
import socket
import sys

import fixtures
import requests
import testtools

from nova_lite.cmd import manage
from nova_lite.sim import importer
from nova_lite import testing
from nova_lite.testing import placement_fixture
from tests.compat import reference

VENV = os.environ.get('NOVA_LITE_PLACEMENT_REFERENCE_VENV',
                      '/tmp/placement-venv')
HEADERS = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
           'OpenStack-API-Version': 'placement 1.36'}
CN1 = 'c0ffee00-0000-4000-8000-000000000001'
FPGA = 'c0ffee00-0000-4000-8000-000000000002'
CN2 = 'c0ffee00-0000-4000-8000-000000000003'
AGG = 'c0ffee00-0000-4000-8000-0000000000a1'
CONSUMER = 'c0ffee00-0000-4000-8000-0000000000c1'


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def build_tree(session, base):
    """The test's tree, through the placement API at ``base``."""
    def call(method, path, body=None, expect=(200, 201, 204)):
        resp = session.request(method, base + path, json=body,
                               headers=HEADERS, timeout=30)
        if resp.status_code not in expect:
            raise AssertionError('%s %s: %d %s' % (
                method, path, resp.status_code, resp.text[:300]))
        return resp.json() if resp.content else None

    call('PUT', '/resource_classes/CUSTOM_FPGA')
    call('PUT', '/traits/CUSTOM_RACK_A')
    for uuid, name, parent in ((CN1, 'cn1', None), (FPGA, 'cn1_fpga', CN1),
                               (CN2, 'cn2', None)):
        call('POST', '/resource_providers', {
            'uuid': uuid, 'name': name, 'parent_provider_uuid': parent})
    inventories = {
        CN1: {'VCPU': {'total': 16, 'allocation_ratio': 4.0},
              'MEMORY_MB': {'total': 32768, 'reserved': 512,
                            'max_unit': 16384},
              'DISK_GB': {'total': 100, 'step_size': 10, 'min_unit': 10}},
        FPGA: {'CUSTOM_FPGA': {'total': 2}},
        CN2: {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 16384}}}
    traits = {CN1: ['HW_CPU_X86_AVX2', 'CUSTOM_RACK_A'],
              FPGA: ['CUSTOM_RACK_A'], CN2: ['HW_CPU_X86_SSE42']}
    for uuid in (CN1, FPGA, CN2):
        gen = call('PUT', '/resource_providers/%s/inventories' % uuid, {
            'resource_provider_generation': 0,
            'inventories': inventories[uuid]})[
                'resource_provider_generation']
        gen = call('PUT', '/resource_providers/%s/traits' % uuid, {
            'resource_provider_generation': gen,
            'traits': traits[uuid]})['resource_provider_generation']
        if uuid != CN2:
            call('PUT', '/resource_providers/%s/aggregates' % uuid, {
                'resource_provider_generation': gen, 'aggregates': [AGG]})
    call('PUT', '/allocations/%s' % CONSUMER, {
        'allocations': {CN1: {'resources': {'VCPU': 2, 'MEMORY_MB': 2048,
                                            'DISK_GB': 20}},
                        FPGA: {'resources': {'CUSTOM_FPGA': 1}}},
        'project_id': 'p1', 'user_id': 'u1', 'consumer_generation': None})


class ReferenceImportTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        python = sys.executable
        if not reference.importable():
            python = reference.placement_python(VENV)
            if not (os.path.exists(python) and reference.importable(python)):
                self.skipTest('OpenStack Placement is not installed here '
                              '(the compat env installs it; or a virtualenv '
                              'at NOVA_LITE_PLACEMENT_REFERENCE_VENV, '
                              'default /tmp/placement-venv)')
        self.useFixture(testing.ConfFixture())
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.port = _free_port()
        self.reference = reference.ReferencePlacement(
            self.port, os.path.join(self.tmp, 'reference'), python)
        self.addCleanup(self.reference.stop)
        self.reference.start()

    def _reference_snapshot(self):
        base = 'http://127.0.0.1:%d' % self.port
        session = requests.Session()
        version = session.get(base + '/', headers=HEADERS).json()
        self.assertTrue(version['versions'][0]['max_version'])
        build_tree(session, base)
        return importer.import_cloud(base, 'admin', session=session)

    def _nova_lite_snapshot(self):
        with placement_fixture.PlacementFixture() as placement:
            session = placement.client.session
            build_tree(session, 'http://placement.invalid')
            return importer.import_cloud('http://placement.invalid',
                                         'admin', session=session)

    def test_same_snapshot_from_both_and_it_replays(self):
        reference = self._reference_snapshot()
        ours = self._nova_lite_snapshot()
        for doc in (reference, ours):
            doc.pop('source')
        self.assertEqual(ours, reference)
        by_uuid = {p['uuid']: p for p in reference['providers']}
        self.assertEqual(
            {'uuid': FPGA, 'name': 'cn1_fpga', 'parent_provider_uuid': CN1,
             'root_provider_uuid': CN1, 'traits': ['CUSTOM_RACK_A'],
             'aggregates': [AGG], 'usages': {'CUSTOM_FPGA': 1},
             'inventories': {'CUSTOM_FPGA': {
                 'total': 2, 'reserved': 0, 'min_unit': 1,
                 'max_unit': 2147483647,
                 'step_size': 1, 'allocation_ratio': 1.0}}},
            by_uuid[FPGA])
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20},
                         by_uuid[CN1]['usages'])

        # The reference's snapshot replays: one FPGA is left.
        reference['flavors'] = [{
            'name': 'fpga', 'vcpus': 1, 'ram': 1024, 'disk': 10,
            'extra_specs': {'resources:CUSTOM_FPGA': '1',
                            'trait:CUSTOM_RACK_A': 'required'}}]
        paths = {}
        events = [{'time': i, 'action': 'create', 'id': 'v%d' % i,
                   'flavor': 'fpga'} for i in range(2)]
        for name, body in (
                ('s.json', json.dumps(reference)),
                ('w.jsonl', '\n'.join(json.dumps(e) for e in events)),
                ('a.conf', '[filter_scheduler]\n')):
            paths[name] = os.path.join(self.tmp, name)
            with open(paths[name], 'w') as f:
                f.write(body)
        out = os.path.join(self.tmp, 'out')
        stdout = self.useFixture(fixtures.StringStream('stdout'))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', stdout.stream))
        self.assertEqual(0, manage.main([
            'sim', 'run', '--snapshot', paths['s.json'], '--workload',
            paths['w.jsonl'], '--config', paths['a.conf'], '-o', out]))
        with open(os.path.join(out, 'a.json')) as f:
            rep = json.load(f)
        self.assertEqual(['placed', 'NoValidHost'],
                         [o['result'] for o in rep['outcomes']])
        self.assertEqual('cn1', rep['outcomes'][0]['node'])
