"""select_destinations at the scheduler's RPC API, end to end in-process.

The scheduler service runs on ``fake://`` with two cells (SQLite cell
databases, an API database) and placement in-process
(``PlacementFixture``). Compute nodes are created by the tests: their
``services``/``compute_nodes`` rows and their providers (with inventory,
traits, aggregates, nested GPU children), as a compute would report them.

Skipped while placement does not serve ``GET /allocation_candidates``.
"""

import threading
import time
import uuid

import fixtures
import oslo_messaging as messaging
import testtools

from nova_lite.clients import placement as placement_client
from nova_lite import context as nl_context
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.testing import placement_fixture
from nova_lite.scheduler import manager as sched_manager
from nova_lite.scheduler import rpcapi
from nova_lite import testing
from tests.functional.scheduler import helpers


def placement_serves_candidates(client):
    """True when placement answers GET /allocation_candidates."""
    try:
        client.get_allocation_candidates({'resources': 'VCPU:1'},
                                         microversion='1.36')
    except placement_client.PlacementNotFound:
        return False
    except placement_client.PlacementError as err:
        return err.status != 404 and err.status != 405
    return True


class SchedulerFunctionalBase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(testing.ConfFixture())
        self.dbs = self.useFixture(testing.DatabaseFixture(
            cells=('cell1', 'cell2')))
        self.placement = self.useFixture(
            placement_fixture.PlacementFixture()).client
        if not placement_serves_candidates(self.placement):
            self.skipTest('placement does not serve GET '
                          '/allocation_candidates yet')
        self.scheduler = testing.start_service(self, 'scheduler',
                                               host='sched1')
        self.scheduler.manager._placement = self.placement
        self.api = rpcapi.SchedulerAPI()
        self.ctxt = nl_context.RequestContext(user_id='u1',
                                              project_id='p1')
        self.cell_uuid = {name: cell.uuid
                          for name, cell in self.dbs.cells.items()}

    def add_compute(self, cell, host, **kwargs):
        return helpers.add_compute(self.dbs, cell, host,
                                   placement=self.placement, **kwargs)[0]

    def spec(self, extra_specs=None, vcpus=1, memory_mb=512, disk_gb=1,
             **kwargs):
        return objects.RequestSpec.from_components(
            self.ctxt, flavor={'vcpus': vcpus, 'memory_mb': memory_mb,
                               'root_gb': disk_gb,
                               'extra_specs': extra_specs or {}},
            project_id='p1', user_id='u1', **kwargs)

    def select(self, spec, instance_uuids, alternates=True):
        return self.api.select_destinations(self.ctxt, spec, instance_uuids,
                                            return_alternates=alternates)

    def allocations(self, instance_uuid):
        return self.placement.get_allocations(instance_uuid)['allocations']


class SelectDestinationsTestCase(SchedulerFunctionalBase):

    def test_claim_is_in_placement_and_alternates_same_cell(self):
        nodes = {}
        for i in range(3):
            nodes['a%d' % i] = self.add_compute('cell1', 'a%d' % i,
                                                memory_mb=8192 + i)
            nodes['b%d' % i] = self.add_compute('cell2', 'b%d' % i,
                                                memory_mb=4096 + i)
        inst = str(uuid.uuid4())
        (sels,) = self.select(self.spec(), [inst])
        self.assertEqual(['a2', 'a1', 'a0'],
                         [s.service_host for s in sels])
        self.assertEqual({self.cell_uuid['cell1']},
                         {s.cell_uuid for s in sels})
        self.assertEqual(
            {nodes['a2']: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}},
            {rp: a['resources'] for rp, a in self.allocations(inst).items()})
        for alt in sels[1:]:
            self.assertIn(alt.compute_node_uuid,
                          alt.allocation_request_dict()['allocations'])

    def test_required_trait_gets_only_hosts_with_it(self):
        for i in range(4):
            self.add_compute('cell1' if i % 2 else 'cell2', 'h%d' % i,
                             traits=['CUSTOM_SSD'] if i < 2 else [],
                             memory_mb=4096 * (i + 1))
        result = self.select(self.spec({'trait:CUSTOM_SSD': 'required'}),
                             [str(uuid.uuid4()), str(uuid.uuid4())])
        hosts = {s.service_host for sels in result for s in sels}
        self.assertEqual({'h0', 'h1'}, hosts)

    def test_vgpu_lands_on_nested_child(self):
        self.add_compute('cell1', 'plain', memory_mb=32768)
        gpu_node = self.add_compute('cell2', 'gpu', vgpus=4)
        inst = str(uuid.uuid4())
        (sels,) = self.select(self.spec({'resources:VGPU': '1'}), [inst])
        self.assertEqual('gpu', sels[0].service_host)
        allocs = self.allocations(inst)
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
                         allocs[gpu_node]['resources'])
        (child,) = [rp for rp in allocs if rp != gpu_node]
        self.assertEqual({'VGPU': 1}, allocs[child]['resources'])
        self.assertEqual(
            gpu_node, self.placement.get_provider(child)[
                'root_provider_uuid'])

    def test_anti_affinity_spreads_then_fourth_fails(self):
        for i in range(3):
            self.add_compute('cell1', 'h%d' % i)
        members = [str(uuid.uuid4()) for _ in range(4)]
        group = {'uuid': str(uuid.uuid4()), 'policy': 'anti-affinity',
                 'members': members[:3]}
        result = self.select(self.spec(instance_group=group,
                                       num_instances=3,
                                       scheduler_hints={'group':
                                                        group['uuid']}),
                             members[:3])
        chosen = [sels[0].service_host for sels in result]
        self.assertEqual(3, len(set(chosen)))
        # The conductor creates the instances in the chosen cell.
        for inst, host in zip(members, chosen, strict=False):
            helpers.add_instance(self.dbs, 'cell1', host,
                                 instance_uuid=inst)
        group['members'] = members
        err = self.assertRaises(
            exception.NoValidHost, self.select,
            self.spec(instance_group=group,
                      scheduler_hints={'group': group['uuid']}),
            [members[3]])
        self.assertIn('ServerGroupAntiAffinityFilter removed 3 of 3 hosts',
                      str(err))
        # What the conductor puts in the fault: the reason, no traceback.
        self.assertIn('ServerGroupAntiAffinityFilter',
                      err.kwargs['reason'])
        self.assertNotIn('Traceback', err.message)
        self.assertEqual({}, self.allocations(members[3]))

    def test_availability_zone_request_stays_in_zone(self):
        agg = str(uuid.uuid4())
        for i in range(4):
            self.add_compute('cell1' if i < 2 else 'cell2', 'h%d' % i,
                             aggregates=[agg] if i in (1, 2) else [],
                             memory_mb=4096 * (4 - i))
        helpers.add_aggregate('zone1', ['h1', 'h2'],
                              {'availability_zone': 'az1'}, agg_uuid=agg)
        result = self.select(self.spec(availability_zone='az1'),
                             [str(uuid.uuid4()), str(uuid.uuid4())])
        sels = [s for item in result for s in item]
        self.assertEqual({'h1', 'h2'}, {s.service_host for s in sels})
        self.assertEqual({'az1'}, {s.availability_zone for s in sels})

    def test_malformed_extra_specs_name_the_key(self):
        self.add_compute('cell1', 'h0')
        for key, value in (('resources:VCPU', 'abc'),
                           ('trait:CUSTOM_SSD', 'sometimes'),
                           ('group_policy', 'bogus')):
            err = self.assertRaises(
                exception.NoValidHost, self.select,
                self.spec({key: value, 'resources1:VCPU': '1',
                           'resources2:MEMORY_MB': '1'}),
                [str(uuid.uuid4())])
            self.assertIn(key, str(err))

    def test_no_room_is_novalidhost_with_query(self):
        """The query travels with the error for admins, not in its text
        (members see the counts, not the query)."""
        self.add_compute('cell1', 'h0', vcpus=1)
        err = self.assertRaises(exception.NoValidHost, self.select,
                                self.spec(vcpus=4), [str(uuid.uuid4())])
        self.assertIn('Placement returned no allocation candidates',
                      str(err))
        self.assertNotIn('VCPU:4', str(err))
        self.assertIn('VCPU:4', err.kwargs['placement_query'])

    def test_down_compute_is_filtered(self):
        import datetime
        from oslo_utils import timeutils
        old = timeutils.utcnow().replace(tzinfo=None) - datetime.timedelta(
            hours=1)
        self.add_compute('cell1', 'down', last_seen_up=old,
                         memory_mb=65536)
        self.add_compute('cell2', 'up')
        (sels,) = self.select(self.spec(), [str(uuid.uuid4())])
        self.assertEqual(['up'], [s.service_host for s in sels])


    def test_cell_down_is_skipped(self):
        from nova_lite.db.api import api as api_db
        self.add_compute('cell1', 'small', memory_mb=2048)
        self.add_compute('cell2', 'big', memory_mb=65536)
        (sels,) = self.select(self.spec(), [str(uuid.uuid4())])
        self.assertEqual('big', sels[0].service_host)
        api_db.cell_mapping_update(
            nl_context.get_admin_context(), self.cell_uuid['cell2'],
            {'database_connection': 'sqlite:////nonexistent/dir/cell2.db'})
        (sels,) = self.select(self.spec(), [str(uuid.uuid4())])
        self.assertEqual(['small'], [s.service_host for s in sels])


class RacingSchedulersTestCase(SchedulerFunctionalBase):
    """Two schedulers (own host caches) build at once on few hosts."""

    def test_never_over_allocate(self):
        nodes = [self.add_compute('cell1' if i % 2 else 'cell2', 'h%d' % i,
                                  vcpus=2, memory_mb=4096)
                 for i in range(4)]
        managers = [self.scheduler.manager,
                    sched_manager.SchedulerManager(host='sched2',
                                                   placement=self.placement)]
        self.addCleanup(managers[1].cleanup_host)
        outcomes = {'placed': [], 'failed': 0}
        lock = threading.Lock()

        def build(mgr, count):
            for _ in range(count):
                inst = str(uuid.uuid4())
                try:
                    mgr.schedule(nl_context.get_admin_context(),
                                 self.spec(), [inst])
                    with lock:
                        outcomes['placed'].append(inst)
                except exception.NoValidHost:
                    with lock:
                        outcomes['failed'] += 1
        threads = [threading.Thread(target=build, args=(mgr, 6))
                   for mgr in managers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual(8, len(outcomes['placed']))
        self.assertEqual(4, outcomes['failed'])
        for node in nodes:
            usages = self.placement.get_usages(node)['usages']
            self.assertEqual(2, usages['VCPU'])


class CallerGaveUpTestCase(SchedulerFunctionalBase):
    """The caller's call timed out while the scheduler worked (for
    instance its database reads were retried through a MariaDB restart): the
    caller drops the claims and buries the instance, so the scheduler
    must not leave one behind it."""

    def setUp(self):
        super().setUp()
        self.add_compute('cell1', 'a1')
        self.done = threading.Event()
        mgr = self.scheduler.manager
        real = mgr.schedule

        def schedule(*args, **kwargs):
            try:
                return real(*args, **kwargs)
            finally:
                self.done.set()
        mgr.schedule = schedule

    def _slow(self, obj, name, seconds, before=True):
        real = getattr(obj, name)

        def slow(*args, **kwargs):
            if before:
                time.sleep(seconds)
            result = real(*args, **kwargs)
            if not before:
                time.sleep(seconds)
            return result
        setattr(obj, name, slow)
        self.addCleanup(setattr, obj, name, real)

    def _timed_out_call(self, inst):
        self.assertRaises(messaging.MessagingTimeout,
                          self.api.select_destinations, self.ctxt,
                          self.spec(), [inst], timeout=2)
        self.assertTrue(self.done.wait(30))

    def test_no_claim_after_the_caller_gave_up(self):
        self._slow(self.scheduler.manager.host_manager, 'refresh', 2.5)
        inst = str(uuid.uuid4())
        self._timed_out_call(inst)
        self.assertEqual({}, self.allocations(inst))

    def test_claim_undone_when_the_answer_comes_too_late(self):
        self._slow(self.placement, 'put_allocations', 2.5, before=False)
        inst = str(uuid.uuid4())
        self._timed_out_call(inst)
        self.assertEqual({}, self.allocations(inst))

    def test_late_request_of_a_caller_still_waiting_is_asked_again(self):
        # A broker restart held the publish up: the request arrives past
        # the deadline taken at the call's start, the caller still waits.
        real = nl_context.RequestContext.with_reply_deadline
        deadlines = []

        def late_once(ctxt, timeout):
            called = real(ctxt, timeout)
            if not deadlines:
                called.reply_deadline -= timeout + 5
            deadlines.append(called.reply_deadline)
            return called
        self.useFixture(fixtures.MockPatchObject(
            nl_context.RequestContext, 'with_reply_deadline', late_once))
        inst = str(uuid.uuid4())
        (sels,) = self.api.select_destinations(self.ctxt, self.spec(),
                                               [inst], timeout=20)
        self.assertEqual(2, len(deadlines))
        self.assertEqual('a1', sels[0].service_host)
        self.assertNotEqual({}, self.allocations(inst))

    def test_in_time_answer_keeps_its_claim(self):
        inst = str(uuid.uuid4())
        (sels,) = self.api.select_destinations(self.ctxt, self.spec(),
                                               [inst], timeout=20)
        self.assertEqual('a1', sels[0].service_host)
        self.assertNotEqual({}, self.allocations(inst))


class SeparateRequestsSpreadTestCase(SchedulerFunctionalBase):
    """Picks of earlier requests count until the compute reports again.

    Found with the lab's boot benchmark: separate requests all saw the
    cached nodes as their computes last wrote them (before any build
    finished), so the weighers chose the same node every time.
    """

    def test_separate_requests_spread_over_equal_hosts(self):
        for i in range(3):
            self.add_compute('cell1', 'h%d' % i, memory_mb=4096)
        hosts = []
        for _ in range(3):
            (sels,) = self.select(self.spec(memory_mb=1024),
                                  [str(uuid.uuid4())])
            hosts.append(sels[0].service_host)
        self.assertEqual(['h0', 'h1', 'h2'], sorted(hosts))


class DiscoverHostsTestCase(SchedulerFunctionalBase):
    """The scheduler maps computes added to a running cloud by itself."""

    def _new_node(self, cell_name, host):
        ctxt = helpers.cell_context(self.dbs.cells[cell_name])
        service = cell_db.service_create(ctxt, {
            'host': host, 'binary': 'nova-lite-compute', 'topic': 'compute'})
        cell_db.compute_node_create(ctxt, {
            'uuid': str(uuid.uuid4()), 'host': host,
            'service_id': service.id, 'hypervisor_hostname': host + '-n0',
            'vcpus': 4, 'memory_mb': 4096, 'local_gb': 40,
            'free_ram_mb': 4096, 'free_disk_gb': 40,
            'hypervisor_type': 'fake', 'hypervisor_version': 1000,
            'cpu_info': '{}', 'mapped': 0})
        return ctxt

    def _mapped_cell(self, host):
        return api_db.host_mapping_get_by_host(
            nl_context.get_admin_context(), host).cell_mapping.uuid

    def test_periodic_maps_new_hosts_once_interval_passed(self):
        self.conf.flags(discover_hosts_in_cells_interval=1,
                        group='scheduler')
        cell1 = self._new_node('cell1', 'new1')
        self._new_node('cell2', 'new2')
        manager = self.scheduler.manager
        manager.periodic_tasks(nl_context.get_admin_context())
        self.assertEqual(self.cell_uuid['cell1'], self._mapped_cell('new1'))
        self.assertEqual(self.cell_uuid['cell2'], self._mapped_cell('new2'))
        self.assertEqual([], cell_db.compute_node_get_all(cell1, mapped=0))
        # Nothing new: a second discovery maps nothing.
        self.assertEqual([], manager.discover_hosts(
            nl_context.get_admin_context()))

    def test_disabled_by_default(self):
        self._new_node('cell1', 'new1')
        self.scheduler.manager.periodic_tasks(nl_context.get_admin_context())
        self.assertRaises(exception.HostMappingNotFound, self._mapped_cell,
                          'new1')
