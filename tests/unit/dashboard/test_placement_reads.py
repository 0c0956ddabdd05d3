"""The dashboard against a Placement without nova_lite's capacity routes
(OpenStack Placement): it reads Placement's public API instead and the
page says so."""

import fixtures
import testtools
import webob
import webob.dec

from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf
from nova_lite.dashboard import data
from nova_lite.dashboard import placement_reads
from nova_lite.dashboard import views

ROOT = '11111111-1111-1111-1111-111111111111'
CHILD = '22222222-2222-2222-2222-222222222222'


class PublicOnlyPlacement:
    """A Placement stub serving only the public API: providers and their
    inventories, usages, traits and aggregates; every other path (the
    nova_lite capacity routes among them) is a 404."""

    def __init__(self):
        self.requests = []
        self.providers = {
            ROOT: {'uuid': ROOT, 'name': 'node1', 'generation': 3,
                   'parent_provider_uuid': None,
                   'root_provider_uuid': ROOT},
            CHILD: {'uuid': CHILD, 'name': 'node1_pf0', 'generation': 1,
                    'parent_provider_uuid': ROOT,
                    'root_provider_uuid': ROOT},
        }
        self.inventories = {
            ROOT: {'VCPU': self._inventory(8, 0, 4.0),
                   'MEMORY_MB': self._inventory(4096, 512, 1.0)},
            CHILD: {'SRIOV_NET_VF': self._inventory(4, 0, 1.0)},
        }
        self.usages = {ROOT: {'VCPU': 2, 'MEMORY_MB': 1024},
                       CHILD: {'SRIOV_NET_VF': 0}}
        self.traits = {ROOT: ['HW_CPU_X86_AVX2', 'COMPUTE_STATUS_DISABLED'],
                       CHILD: []}
        self.aggregates = {ROOT: ['33333333-3333-3333-3333-333333333333'],
                           CHILD: []}

    @staticmethod
    def _inventory(total, reserved, ratio):
        return {'total': total, 'reserved': reserved, 'min_unit': 1,
                'max_unit': total, 'step_size': 1,
                'allocation_ratio': ratio}

    @staticmethod
    def _not_found(req):
        return webob.Response(status=404, json_body={'errors': [{
            'status': 404, 'title': 'Not Found', 'code':
            'placement.undefined_code',
            'detail': 'The resource could not be found.'}]})

    @webob.dec.wsgify
    def __call__(self, req):
        self.requests.append(req.path)
        parts = req.path.strip('/').split('/')
        if req.method != 'GET' or parts[0] != 'resource_providers':
            return self._not_found(req)
        if len(parts) == 1:
            return webob.Response(json_body={
                'resource_providers': list(self.providers.values())})
        uuid = parts[1]
        if uuid not in self.providers or len(parts) != 3:
            return self._not_found(req)
        generation = self.providers[uuid]['generation']
        kind = parts[2]
        bodies = {
            'inventories': {'inventories': self.inventories[uuid],
                            'resource_provider_generation': generation},
            'usages': {'usages': self.usages[uuid],
                       'resource_provider_generation': generation},
            'traits': {'traits': self.traits[uuid],
                       'resource_provider_generation': generation},
            'aggregates': {'aggregates': self.aggregates[uuid],
                           'resource_provider_generation': generation},
        }
        if kind not in bodies:
            return self._not_found(req)
        return webob.Response(json_body=bodies[kind])


class TestPublicPlacementFallback(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.stub = PublicOnlyPlacement()
        self.client = placement_client.in_process_client(
            self.stub, conf=nl_conf.CONF)

    def test_the_stub_has_no_capacity_routes(self):
        self.assertRaises(placement_client.PlacementNotFound,
                          self.client.get_capacity)

    def test_reads_the_public_api_after_a_404(self):
        reader = placement_reads.CapacityReader(self.client)
        self.assertFalse(reader.public)
        reader.get_capacity_fingerprint()
        self.assertTrue(reader.public)
        providers = {p['uuid']: p for p in reader.get_capacity()}
        self.assertEqual({
            'uuid': ROOT, 'name': 'node1', 'generation': 3,
            'parent_provider_uuid': None, 'root_provider_uuid': ROOT,
            'inventories': {
                'VCPU': {'total': 8, 'reserved': 0,
                         'allocation_ratio': 4.0, 'max_unit': 8},
                'MEMORY_MB': {'total': 4096, 'reserved': 512,
                              'allocation_ratio': 1.0, 'max_unit': 4096}},
            'usages': {'VCPU': 2, 'MEMORY_MB': 1024},
            'traits': ['COMPUTE_STATUS_DISABLED', 'HW_CPU_X86_AVX2'],
            'aggregates': ['33333333-3333-3333-3333-333333333333']},
            providers[ROOT])
        self.assertEqual(ROOT, providers[CHILD]['root_provider_uuid'])
        self.assertEqual(1, len(reader.get_capacity([CHILD])))

    def test_fingerprint_moves_with_usages_only(self):
        reader = placement_reads.CapacityReader(self.client)
        first = reader.get_capacity_fingerprint()
        self.assertEqual(first, reader.get_capacity_fingerprint())
        self.stub.usages[ROOT]['VCPU'] = 3
        self.assertNotEqual(first, reader.get_capacity_fingerprint())

    def test_usages_follow_a_fingerprint_without_reading_again(self):
        reader = placement_reads.CapacityReader(self.client)
        reader.get_capacity_fingerprint()
        before = len(self.stub.requests)
        usages = reader.get_capacity_usages()
        self.assertEqual(before, len(self.stub.requests))
        self.assertEqual(sorted([[ROOT, 3, {'VCPU': 2, 'MEMORY_MB': 1024}],
                                 [CHILD, 1, {'SRIOV_NET_VF': 0}]]),
                         sorted(usages))

    def test_a_provider_deleted_meanwhile_is_left_out(self):
        reader = placement_reads.CapacityReader(self.client)
        reader.get_capacity_fingerprint()
        orig = self.client.get_inventories

        def get_inventories(uuid):
            if uuid == CHILD:
                raise placement_client.PlacementNotFound(
                    'GET', uuid, 404, None, 'gone')
            return orig(uuid)
        self.client.get_inventories = get_inventories
        self.assertEqual([ROOT], [p['uuid'] for p in reader.get_capacity()])

    def test_dashboard_page_reads_public_placement_and_says_so(self):
        self.useFixture(fixtures.MockPatch(
            'nova_lite.dashboard.data._read_cells', return_value=([{
                'uuid': 'c1', 'name': 'cell1', 'hosts': [{
                    'host': 'host1', 'state': 'up', 'disabled_reason': None,
                    'nodes': [{'name': 'node1', 'uuid': ROOT,
                               'servers': 0}]}]}], {}, [])))
        cache = data.SnapshotCache()
        snapshot = cache.get(None, self.client, 60)
        self.assertTrue(snapshot.public_placement)
        self.assertEqual({ROOT, CHILD}, set(snapshot.providers))
        self.assertAlmostEqual(1024 / 3584, snapshot.ratios[ROOT])
        html = views.overview(snapshot, 0, 50, 2, '/dashboard/api/capacity')
        self.assertIn(views.PUBLIC_PLACEMENT_NOTE, html)
        # A refresh with nothing changed reads the usages only.
        before = len(self.stub.requests)
        self.assertIs(snapshot, cache.get(None, self.client, 60))
        self.assertEqual(3, len(self.stub.requests) - before)

    def test_nova_lite_placement_page_has_no_note(self):
        snapshot = data.assemble([], {}, {}, [])
        html = views.overview(snapshot, 0, 50, 2, '/dashboard/api/capacity')
        self.assertNotIn('public-placement', html)
