"""``sim import`` against placement running in this process.

The importer reads through the public routes at one microversion; here
the requests reach nova_lite's placement app without sockets (the
fixture's session), as they would reach any Placement over HTTP.
"""

import json
import os

import fixtures
import testtools

from nova_lite.cmd import manage
from nova_lite.sim import importer
from nova_lite.sim import snapshot
from nova_lite.sim import workload
from nova_lite import testing
from nova_lite.testing import placement_fixture

ROOT = '11111111-1111-1111-1111-111111111111'
CHILD = '22222222-2222-2222-2222-222222222222'
AGG = '33333333-3333-3333-3333-333333333333'


class ImportFromPlacementTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.placement = self.useFixture(
            placement_fixture.PlacementFixture())
        client = self.placement.client
        client.create_provider('node1', uuid=ROOT)
        client.create_provider('node1_pf0', uuid=CHILD,
                               parent_provider_uuid=ROOT)
        client.set_inventories(ROOT, 0, {
            'VCPU': {'total': 16, 'allocation_ratio': 4.0},
            'MEMORY_MB': {'total': 8192, 'reserved': 512}})
        client.ensure_resource_class('CUSTOM_VF')
        client.set_inventories(CHILD, 0, {'CUSTOM_VF': {'total': 8}})
        client.set_traits(ROOT, 1, ['HW_CPU_X86_AVX2'])
        client.set_aggregates(ROOT, 2, [AGG])
        client.put_allocations(
            '44444444-4444-4444-4444-444444444444',
            {ROOT: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
             CHILD: {'resources': {'CUSTOM_VF': 1}}}, 'p1', 'u1')

    def test_providers_with_trees_and_usages(self):
        doc = importer.import_cloud('http://placement.invalid', 'admin',
                                    session=self.placement.client.session)
        by_uuid = {p['uuid']: p for p in doc['providers']}
        self.assertEqual({ROOT, CHILD}, set(by_uuid))
        root, child = by_uuid[ROOT], by_uuid[CHILD]
        self.assertEqual(ROOT, child['parent_provider_uuid'])
        self.assertEqual(ROOT, child['root_provider_uuid'])
        self.assertEqual(4.0, root['inventories']['VCPU']['allocation_ratio'])
        self.assertEqual(512, root['inventories']['MEMORY_MB']['reserved'])
        self.assertEqual(['HW_CPU_X86_AVX2'], root['traits'])
        self.assertEqual([AGG], root['aggregates'])
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 1024}, root['usages'])
        self.assertEqual({'CUSTOM_VF': 1}, child['usages'])
        self.assertEqual([(ROOT, 'node1')],
                         [(p['uuid'], h) for p, h in snapshot.hosts(doc)])

    def test_an_error_answer_names_the_url(self):
        err = self.assertRaises(
            importer.SourceError, importer.import_cloud,
            'http://placement.invalid/nope', 'admin',
            session=self.placement.client.session)
        self.assertIn('/nope/resource_providers: 404', str(err))


class ImportCommandTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def _write(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            json.dump(doc, f)
        return path

    def test_from_json_writes_the_filled_snapshot(self):
        src = self._write('in.json', {'providers': [
            {'uuid': ROOT, 'name': 'n1',
             'inventories': {'VCPU': {'total': 4}}}]})
        out = os.path.join(self.tmp, 'out.json')
        stdout = self.useFixture(fixtures.StringStream('stdout'))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', stdout.stream))
        self.assertEqual(0, manage.main(
            ['sim', 'import', '--from-json', src, '-o', out]))
        self.assertIn('1 providers (1 hosts)', stdout.getDetails()[
            'stdout'].as_text())
        self.assertEqual(4, snapshot.load(out)['providers'][0][
            'inventories']['VCPU']['max_unit'])

    def test_bad_file_is_one_line_and_exit_1(self):
        src = self._write('in.json', {'providers': [{'name': 'x'}]})
        stderr = self.useFixture(fixtures.StringStream('stderr'))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr.stream))
        self.assertEqual(1, manage.main(
            ['sim', 'import', '--from-json', src, '-o',
             os.path.join(self.tmp, 'out.json')]))
        self.assertEqual(
            'ERROR: providers[0]: needs a uuid\n',
            stderr.getDetails()['stderr'].as_text())

    def test_generate_draws_from_the_snapshots_flavors(self):
        src = self._write('s.json', {'providers': [], 'flavors': [
            {'name': 'small', 'vcpus': 1, 'ram': 512, 'disk': 1},
            {'name': 'big', 'vcpus': 8, 'ram': 8192, 'disk': 1}]})
        out = os.path.join(self.tmp, 'w.jsonl')
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdout', self.useFixture(
                fixtures.StringStream('stdout')).stream))
        self.assertEqual(0, manage.main(
            ['sim', 'generate', '--snapshot', src, '-o', out, '--events',
             '30', '--flavor-mix', 'big=1', '--lifetime', '10']))
        events = workload.load(out)
        self.assertEqual(60, len(events))
        self.assertEqual({'big'}, {e['flavor'] for e in events
                                   if e['action'] == 'create'})

    def test_generate_needs_flavors(self):
        src = self._write('s.json', {'providers': []})
        stderr = self.useFixture(fixtures.StringStream('stderr'))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr.stream))
        self.assertEqual(1, manage.main(
            ['sim', 'generate', '--snapshot', src, '-o',
             os.path.join(self.tmp, 'w.jsonl')]))
        self.assertIn('no flavors', stderr.getDetails()['stderr'].as_text())

    def test_run_refuses_an_unknown_flavor_before_running(self):
        src = self._write('s.json', {'providers': [], 'flavors': [
            {'name': 'small'}]})
        trace = os.path.join(self.tmp, 'w.jsonl')
        with open(trace, 'w') as f:
            f.write(json.dumps({'time': 0, 'action': 'create', 'id': 'a',
                                'flavor': 'huge'}) + '\n')
        conf = os.path.join(self.tmp, 'a.conf')
        with open(conf, 'w') as f:
            f.write('[filter_scheduler]\n')
        stderr = self.useFixture(fixtures.StringStream('stderr'))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr.stream))
        self.assertEqual(1, manage.main(
            ['sim', 'run', '--snapshot', src, '--workload', trace,
             '--config', conf, '-o', os.path.join(self.tmp, 'r')]))
        self.assertEqual(
            'ERROR: server a: flavor huge is not in the snapshot\n',
            stderr.getDetails()['stderr'].as_text())
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'r')))
