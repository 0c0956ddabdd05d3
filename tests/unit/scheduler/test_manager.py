"""SchedulerManager.select_destinations on fake placement and host states.

The fake placement answers allocation candidates for the fake hosts and
records claims; the fake host manager hands out the host states. No
database, no RPC: the manager's algorithm only (claims, retries on the
next host, alternates from the same cell, release on failure, NoValidHost
texts).
"""

import copy
import threading
from unittest import mock

import fixtures
from oslo_serialization import jsonutils

from nova_lite.clients import placement as placement_client
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import claims
from nova_lite.scheduler import manager
from tests.unit.scheduler import fakes


def _conflict(detail, code=None):
    return placement_client.PlacementConflict('PUT', '/allocations/x', 409,
                                              code, detail)


class FakePlacement:
    """Candidates for ``hosts``; claims recorded in ``self.claims``."""

    def __init__(self, hosts, refuse=(), races=()):
        self.hosts = hosts
        self.refuse = set(refuse)    # root uuids whose claims get 409
        self.races = dict(races)     # root uuid -> generation races left
        self.claims = {}
        self.deleted = []
        self.queries = []

    def get_allocation_candidates(self, params, microversion=None):
        self.queries.append(params)
        reqs, summaries = [], {}
        for host in self.hosts:
            reqs.append({'allocations': {host.uuid: {'resources': {
                'VCPU': 1, 'MEMORY_MB': 512}}}})
            summaries[host.uuid] = {'root_provider_uuid': host.uuid,
                                    'parent_provider_uuid': None}
        return {'allocation_requests': reqs, 'provider_summaries': summaries}

    def put_allocations(self, consumer_uuid, allocations, project_id,
                        user_id, consumer_generation=None):
        (root,) = allocations
        if self.races.get(root):
            self.races[root] -= 1
            raise _conflict('resource provider generation conflict',
                            placement_client.CONCURRENT_UPDATE)
        if root in self.refuse:
            raise _conflict('Unable to allocate inventory: capacity')
        self.claims[consumer_uuid] = root

    def delete_allocations(self, consumer_uuid):
        self.deleted.append(consumer_uuid)
        self.claims.pop(consumer_uuid, None)


class FakeHostManager:
    def __init__(self, hosts, aggregates=()):
        self.hosts = hosts
        self.aggregates = list(aggregates)

    def refresh(self, context, cell_uuids=None):
        return ['all']

    def get_host_states_by_uuids(self, cells, uuids):
        by_uuid = {h.uuid: h for h in self.hosts}
        return [copy.copy(by_uuid[u]) for u in uuids if u in by_uuid]

    def nodes_of(self, cells, host, node=None):
        return [h.uuid for h in self.hosts if h.host == host and
                (node is None or h.nodename == node)]

    def node_named(self, cells, nodename):
        for host in self.hosts:
            if host.nodename == nodename:
                return host.uuid
        return None

    def group_hosts(self, cells, members):
        return [h.host for h in self.hosts for m in members
                if m in h.instances]

    def consume_in_cache(self, host_state, spec):
        self.consumed = getattr(self, 'consumed', []) + [host_state.uuid]

    def close(self):
        pass


class ManagerTestCase(fakes.TestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()
        self.flags(claim_retries=2, group='scheduler')
        self.ctxt = nl_context.get_admin_context()

    def _hosts(self, count=4, cells=(fakes.CELL1, fakes.CELL2)):
        return [fakes.fake_host('h%d' % i, cell_uuid=cells[i % len(cells)],
                                free_ram_mb=8192 + 1024 * i)
                for i in range(count)]

    def _manager(self, hosts, **placement_kw):
        self.placement = FakePlacement(hosts, **placement_kw)
        return manager.SchedulerManager(
            host='sched', placement=self.placement,
            host_manager=FakeHostManager(hosts))

    def _select(self, mgr, spec, uuids, alternates=True):
        return mgr.schedule(self.ctxt, spec, uuids, alternates)

    def test_best_host_claimed_with_alternates_from_its_cell(self):
        hosts = self._hosts(6)
        mgr = self._manager(hosts)
        (sels,) = self._select(mgr, fakes.fake_spec(), ['i1'])
        self.assertEqual('h5', sels[0].service_host)
        self.assertEqual({'i1': hosts[5].uuid}, self.placement.claims)
        self.assertEqual(['h3', 'h1'], [s.service_host for s in sels[1:]])
        self.assertEqual({hosts[5].cell_uuid},
                         {s.cell_uuid for s in sels})
        alloc = jsonutils.loads(sels[1].allocation_request)
        self.assertIn(hosts[3].uuid, alloc['allocations'])
        self.assertEqual('1.36', sels[0].allocation_request_version)
        self.assertEqual('nova', sels[0].availability_zone)

    def test_no_alternates_when_not_asked(self):
        mgr = self._manager(self._hosts(4))
        (sels,) = self._select(mgr, fakes.fake_spec(), ['i1'],
                               alternates=False)
        self.assertEqual(1, len(sels))

    def test_refused_claim_moves_to_next_host(self):
        hosts = self._hosts(4)
        mgr = self._manager(hosts, refuse=[hosts[3].uuid])
        (sels,) = self._select(mgr, fakes.fake_spec(), ['i1'])
        self.assertEqual('h2', sels[0].service_host)
        self.assertEqual({'i1': hosts[2].uuid}, self.placement.claims)
        self.assertNotIn('h3', [s.service_host for s in sels])

    def test_generation_race_retries_same_host(self):
        hosts = self._hosts(3)
        mgr = self._manager(hosts, races={hosts[2].uuid: 2})
        (sels,) = self._select(mgr, fakes.fake_spec(), ['i1'])
        self.assertEqual('h2', sels[0].service_host)
        self.assertEqual(2, mgr.claim_stats.retries)

    def test_multi_instance_consumes_between_picks(self):
        hosts = [fakes.fake_host('h%d' % i, free_ram_mb=4096)
                 for i in range(3)]
        mgr = self._manager(hosts)
        spec = fakes.fake_spec(memory_mb=1024, num_instances=3)
        result = self._select(mgr, spec, ['a', 'b', 'c'])
        chosen = [sels[0].service_host for sels in result]
        self.assertEqual(3, len(set(chosen)))
        self.assertEqual(3, len(self.placement.claims))
        for sels in result:
            self.assertNotIn(sels[0].service_host,
                             [s.service_host for s in sels[1:]])

    def test_failure_releases_earlier_claims(self):
        hosts = self._hosts(3)
        group = fakes.group('anti-affinity', members=['a', 'b', 'c', 'd'])
        mgr = self._manager(hosts)
        spec = fakes.fake_spec(instance_group=group, num_instances=4)
        err = self.assertRaises(exception.NoValidHost, self._select, mgr,
                                spec, ['a', 'b', 'c', 'd'])
        self.assertIn('ServerGroupAntiAffinityFilter removed 3 of 3 hosts',
                      str(err))
        self.assertIn('for instance 4 of 4', str(err))
        self.assertEqual({}, self.placement.claims)
        self.assertEqual(['a', 'b', 'c'], sorted(self.placement.deleted))

    def test_all_claims_refused_is_novalidhost(self):
        hosts = self._hosts(2)
        mgr = self._manager(hosts, refuse=[h.uuid for h in hosts])
        err = self.assertRaises(exception.NoValidHost, self._select, mgr,
                                fakes.fake_spec(), ['i1'])
        self.assertIn('claims in placement failed on all 2 hosts', str(err))

    def test_malformed_extra_specs_name_the_key(self):
        mgr = self._manager(self._hosts(2))
        for key, value in (('resources:VCPU', 'abc'),
                           ('trait:not-a-trait', 'required'),
                           ('trait:CUSTOM_X', 'maybe'),
                           ('group_policy', 'sometimes')):
            spec = fakes.fake_spec(extra_specs={key: value,
                                                'resources1:VGPU': '1'})
            err = self.assertRaises(exception.NoValidHost, self._select,
                                    mgr, spec, ['i1'])
            self.assertIn(key, str(err))
        self.assertEqual({}, self.placement.claims)
        self.assertEqual([], self.placement.queries)

    def test_bad_max_server_per_host_names_the_rule(self):
        mgr = self._manager(self._hosts(2))
        group = fakes.group('anti-affinity', members=['i1'],
                            rules={'max_server_per_host': 'x'})
        err = self.assertRaises(exception.NoValidHost, self._select, mgr,
                                fakes.fake_spec(instance_group=group),
                                ['i1'])
        self.assertIn('max_server_per_host', str(err))

    def test_group_policy_needs_its_filter(self):
        self.flags(enabled_filters=['ComputeFilter'],
                   group='filter_scheduler')
        mgr = self._manager(self._hosts(2))
        err = self.assertRaises(
            exception.NoValidHost, self._select, mgr,
            fakes.fake_spec(instance_group=fakes.group('affinity')), ['i1'])
        self.assertIn('ServerGroupAffinityFilter', str(err))

    def test_no_candidates(self):
        mgr = self._manager([])
        err = self.assertRaises(exception.NoValidHost, self._select, mgr,
                                fakes.fake_spec(), ['i1'])
        self.assertIn('Placement returned no allocation candidates',
                      str(err))

    def test_placement_unreachable_is_novalidhost(self):
        mgr = self._manager(self._hosts(2))

        def down(*args, **kwargs):
            raise placement_client.PlacementUnreachable('down')
        self.placement.get_allocation_candidates = down
        err = self.assertRaises(exception.NoValidHost, self._select, mgr,
                                fakes.fake_spec(), ['i1'])
        self.assertIn('Placement could not be used', str(err))

    def test_forced_host_resolves_in_tree(self):
        hosts = self._hosts(3)
        mgr = self._manager(hosts)
        self._select(mgr, fakes.fake_spec(force_hosts=['h1']), ['i1'])
        params = dict(self.placement.queries[0])
        self.assertEqual(hosts[1].uuid, params['in_tree'])

    def test_forced_node_resolves_in_tree(self):
        hosts = self._hosts(3)
        mgr = self._manager(hosts)
        self._select(mgr, fakes.fake_spec(force_nodes=['h2-node']), ['i1'])
        self.assertEqual(hosts[2].uuid,
                         dict(self.placement.queries[0])['in_tree'])

    def test_unknown_forced_host(self):
        mgr = self._manager(self._hosts(2))
        err = self.assertRaises(exception.NoValidHost, self._select, mgr,
                                fakes.fake_spec(force_hosts=['nope']),
                                ['i1'])
        self.assertIn('No such host', str(err))

    def test_no_instance_uuids_means_no_claims(self):
        mgr = self._manager(self._hosts(3))
        result = self._select(mgr, fakes.fake_spec(num_instances=2), [])
        self.assertEqual(2, len(result))
        self.assertEqual({}, self.placement.claims)

    def test_chance_scheduler_picks_among_up_hosts(self):
        self.flags(driver='chance_scheduler', group='scheduler')
        hosts = self._hosts(4)
        for host in hosts[:3]:
            host.service = {'disabled': True, 'forced_down': False,
                            'up': True}
        mgr = self._manager(hosts)
        (sels,) = self._select(mgr, fakes.fake_spec(), ['i1'])
        self.assertEqual('h3', sels[0].service_host)

    def test_accepts_versioned_request_spec(self):
        hosts = self._hosts(2)
        mgr = self._manager(hosts)
        spec = objects.RequestSpec.from_components(
            self.ctxt, flavor={'vcpus': 1, 'memory_mb': 256},
            project_id='p1', user_id='u1')
        (sels,) = self._select(mgr, spec, ['i1'])
        self.assertEqual('h1', sels[0].service_host)


class ClaimsTestCase(fakes.TestCase):

    def test_consumer_conflict_is_final(self):
        class Client:
            def put_allocations(self, *args, **kwargs):
                raise _conflict('consumer generation conflict',
                                placement_client.CONCURRENT_UPDATE)
        self.assertEqual(claims.CONSUMER_EXISTS, claims.claim_resources(
            Client(), 'i1', {'allocations': {'rp': {}}}, 'p', 'u'))


class RequestsByRootTestCase(fakes.TestCase):

    def test_nested_and_sharing_providers(self):
        summaries = {
            'root1': {'root_provider_uuid': 'root1'},
            'gpu1': {'root_provider_uuid': 'root1'},
            'share': {'root_provider_uuid': 'share'},
            'root2': {'root_provider_uuid': 'root2'},
        }
        nested = {'allocations': {'root1': {}, 'gpu1': {}}}
        shared = {'allocations': {'root2': {}, 'share': {}}}
        by_root = manager.requests_by_root([nested, shared], summaries)
        self.assertEqual([nested], by_root['root1'])
        self.assertEqual([shared], by_root['root2'])
        # The sharing provider is a root too, but never a compute node:
        # the host manager has no host state for it.
        self.assertEqual([shared], by_root['share'])
        self.assertNotIn('gpu1', by_root)


class StartHeapTestCase(fakes.TestCase):

    def test_started_heap_is_frozen_once_per_process(self):
        # Full collections walked the whole heap every few requests.
        freeze = self.useFixture(fixtures.MockPatch(
            'nova_lite.scheduler.manager.gc.freeze')).mock
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.manager._frozen', threading.Event()))
        for _ in range(2):
            mgr = manager.SchedulerManager(
                host='sched', placement=FakePlacement([]),
                host_manager=FakeHostManager([]))
            mgr.post_start_hook()
        freeze.assert_called_once_with()

    def test_plugins_are_found_at_start_not_by_the_first_request(self):
        self.useFixture(fixtures.MockPatch(
            'nova_lite.scheduler.manager.gc.freeze'))
        mgr = manager.SchedulerManager(
            host='sched', placement=FakePlacement([]),
            host_manager=FakeHostManager([]))
        self.assertIsNone(mgr._handlers)
        mgr.post_start_hook()
        filter_handler, weight_handler, _chance = mgr._handlers
        self.assertTrue(filter_handler.filters)
        self.assertTrue(weight_handler.weighers)
        self.assertIs(mgr._handlers, mgr._get_handlers())


class DiscoveryReadsNewNodesTestCase(fakes.TestCase):

    def _manager(self):
        host_manager = FakeHostManager([])
        host_manager.refresh = mock.Mock(return_value=[])
        mgr = manager.SchedulerManager(
            host='sched', placement=FakePlacement([]),
            host_manager=host_manager)
        self.patch(mgr, 'discover_hosts', mock.Mock(return_value=[]))
        return mgr

    def test_discovery_pass_refreshes_the_host_cache(self):
        self.flags(discover_hosts_in_cells_interval=10, group='scheduler')
        mgr = self._manager()
        ctxt = nl_context.get_admin_context()
        mgr._discover_hosts_in_cells(ctxt)
        mgr._discover_hosts_in_cells(ctxt)   # not due again yet
        mgr.discover_hosts.assert_called_once_with(ctxt)
        mgr.host_manager.refresh.assert_called_once_with(ctxt)

    def test_no_discovery_no_refresh(self):
        mgr = self._manager()
        mgr._discover_hosts_in_cells(nl_context.get_admin_context())
        mgr.discover_hosts.assert_not_called()
        mgr.host_manager.refresh.assert_not_called()

    def test_refresh_failure_is_a_warning(self):
        self.flags(discover_hosts_in_cells_interval=10, group='scheduler')
        mgr = self._manager()
        mgr.host_manager.refresh.side_effect = RuntimeError('db down')
        log = self.useFixture(fixtures.FakeLogger())
        mgr._discover_hosts_in_cells(nl_context.get_admin_context())
        self.assertIn('Host cache not refreshed after discovery: db down',
                      log.output)
