"""The snapshot format: what validation fills, refuses and derives."""

import json
import os
import tempfile

import fixtures
import testtools

from nova_lite.sim import snapshot


def _provider(uuid, name=None, parent=None, **extra):
    prov = {'uuid': uuid, 'name': name or uuid,
            'parent_provider_uuid': parent,
            'inventories': {'VCPU': {'total': 8},
                            'MEMORY_MB': {'total': 4096}}}
    prov.update(extra)
    return prov


class ValidateTest(testtools.TestCase):

    def test_optional_fields_are_filled(self):
        doc = snapshot.validate({'providers': [_provider('a')]})
        prov = doc['providers'][0]
        self.assertEqual(snapshot.FORMAT, doc['format'])
        self.assertEqual('a', prov['root_provider_uuid'])
        self.assertEqual({'total': 8, 'reserved': 0, 'min_unit': 1,
                          'max_unit': 8, 'step_size': 1,
                          'allocation_ratio': 1.0},
                         prov['inventories']['VCPU'])
        self.assertEqual([], prov['traits'])
        self.assertEqual({}, prov['usages'])
        self.assertEqual([], doc['flavors'])

    def test_compute_api_shapes_are_read(self):
        doc = snapshot.validate({
            'providers': [],
            'flavors': [{'name': 'm1', 'vcpus': 2, 'ram': 1024, 'disk': 10,
                         'OS-FLV-EXT-DATA:ephemeral': 5, 'swap': '',
                         'extra_specs': {'hw:cpu_policy': 'dedicated'}}],
            'aggregates': [{'name': 'agg', 'availability_zone': 'az1',
                            'hosts': ['h2', 'h1'], 'metadata': {}}]})
        self.assertEqual({'name': 'm1', 'vcpus': 2, 'ram': 1024, 'disk': 10,
                          'ephemeral': 5, 'swap': 0,
                          'extra_specs': {'hw:cpu_policy': 'dedicated'}},
                         doc['flavors'][0])
        self.assertEqual(['h1', 'h2'], doc['aggregates'][0]['hosts'])
        self.assertEqual({'availability_zone': 'az1'},
                         doc['aggregates'][0]['metadata'])

    def test_errors_name_the_field(self):
        cases = [
            ({}, 'providers'),
            ({'providers': [{'name': 'x'}]}, 'providers[0]: needs a uuid'),
            ({'providers': [_provider('a', inventories={'VCPU': {}})]},
             'integer total'),
            ({'providers': [_provider('a', parent='nope')]},
             'parent nope is not in the snapshot'),
            ({'providers': [_provider('a'), _provider('a')]}, 'unique'),
            ({'providers': [], 'version': 2}, 'version'),
            ({'providers': [], 'flavors': [{'name': 'f', 'ram': -1}]},
             'flavors[0]: ram'),
        ]
        for doc, text in cases:
            err = self.assertRaises(snapshot.SnapshotError,
                                    snapshot.validate, doc)
            self.assertIn(text, str(err))

    def test_load_refuses_what_is_not_json(self):
        with tempfile.NamedTemporaryFile('w', suffix='.json',
                                         delete=False) as f:
            f.write('{nope')
        self.addCleanup(os.unlink, f.name)
        self.assertRaises(snapshot.SnapshotError, snapshot.load, f.name)

    def test_save_then_load_round_trips(self):
        doc = snapshot.validate({'providers': [_provider('a')]})
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            's.json')
        snapshot.save(doc, path)
        self.assertEqual(doc, snapshot.load(path))
        with open(path) as f:
            self.assertEqual(snapshot.FORMAT, json.load(f)['format'])


class DerivedTest(testtools.TestCase):

    def test_parents_come_first(self):
        doc = snapshot.validate({'providers': [
            _provider('child', parent='root'), _provider('root'),
            _provider('grandchild', parent='child')]})
        self.assertEqual(['root', 'child', 'grandchild'],
                         [p['uuid'] for p in
                          snapshot.ordered_providers(doc)])

    def test_hosts_are_compute_roots_named_by_hypervisor(self):
        doc = snapshot.validate({
            'providers': [
                _provider('u1', 'node1'), _provider('u2', 'node2'),
                _provider('pf', 'node1_pf', parent='u1'),
                {'uuid': 'shared', 'inventories': {'DISK_GB': {
                    'total': 100}}}],
            'hypervisors': [
                {'id': 'u1', 'hypervisor_hostname': 'node1',
                 'service': {'host': 'compute1'}},
                {'id': 7, 'hypervisor_hostname': 'node2',
                 'service': {'host': 'compute2'}}]})
        self.assertEqual([('u1', 'compute1'), ('u2', 'compute2')],
                         [(p['uuid'], host) for p, host in
                          snapshot.hosts(doc)])

    def test_host_without_hypervisor_is_named_by_provider(self):
        doc = snapshot.validate({'providers': [_provider('u1', 'node1')]})
        self.assertEqual('node1', snapshot.hosts(doc)[0][1])
