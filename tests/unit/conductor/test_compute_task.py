"""The conductors' build tasks against real databases and placement.

The scheduler and the computes are stand-ins that record what they are
asked; the API DB, the cell DBs (cell1 + cell0) and placement are real
(SQLite, in-process), so the tests check rows, not mocks.
"""

import threading

import fixtures
import sqlalchemy as sa
from sqlalchemy import event as sa_event
import testtools

from nova_lite.api.compute import api as compute_api
from nova_lite import cells
from nova_lite.compute import vm_states
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import reschedule
from nova_lite import context as nl_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import build_api
from nova_lite.db.cell import instance_api
from nova_lite.db import session
from nova_lite import exception
from nova_lite import objects
from nova_lite.testing import placement_fixture
from nova_lite import testing

RESOURCES = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}


class FakeScheduler:
    def __init__(self, answer=None, error=None):
        self.answer = answer
        self.error = error
        self.calls = []

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True, return_decisions=True):
        self.calls.append(list(uuids))
        if self.error is not None:
            raise self.error
        return [self.answer(uuid) for uuid in uuids]


class FakeCompute:
    def __init__(self):
        self.builds = []

    def build_and_run_instance(self, context, instance, host, node,
                               request_spec, host_list, image=None):
        self.builds.append({'context': context, 'instance': instance,
                            'host': host, 'node': node,
                            'host_list': host_list, 'spec': request_spec})


class FakeComputeTaskAPI:
    def __init__(self):
        self.calls = []

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image=None,
                                     requested_networks=None, retry=None):
        self.calls.append((build_requests, request_specs, image))


class BuildTaskTestBase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(testing.ConfFixture())
        placement_fixture.ensure_parsed(self.conf.conf.conf)
        self.dbs = self.useFixture(testing.DatabaseFixture(
            cells=('cell1',)))
        self.placement = self.useFixture(
            placement_fixture.PlacementFixture()).client
        self.context = nl_context.RequestContext(
            user_id='demo', project_id='proj', roles=['member'])
        self.admin = nl_context.get_admin_context()
        api_db.flavor_create(self.admin, {
            'flavorid': '1', 'name': 'm1.tiny', 'vcpus': 1,
            'memory_mb': 512, 'root_gb': 1, 'ephemeral_gb': 0, 'swap': 0,
            'is_public': True})
        self.flavor = objects.Flavor.get_by_flavor_id(self.admin, '1')
        self.cell1 = self.dbs.cells['cell1']
        self.providers = {name: self._provider(name)
                          for name in ('node1', 'node2', 'node3')}

    def _provider(self, name, vcpus=8):
        rp = self.placement.create_provider(name)
        if rp is None:
            rp = self.placement.list_providers(name=name)[0]
        self.placement.set_inventories(rp['uuid'], rp['generation'], {
            'VCPU': {'total': vcpus}, 'MEMORY_MB': {'total': 4096},
            'DISK_GB': {'total': 100}})
        return rp['uuid']

    def selection(self, node, claim=None):
        request = {'allocations': {self.providers[node]: {
            'resources': dict(RESOURCES)}}}
        return objects.Selection.from_allocation_request(
            'host-' + node, node, self.providers[node], self.cell1.uuid,
            request, '1.36', availability_zone='nova')

    def accept(self, count=1):
        recorder = FakeComputeTaskAPI()
        api = compute_api.API(compute_task_api=recorder)
        instances, _ = api.create(self.context, self.flavor, None, 'vm',
                                  min_count=count)
        build_requests, specs, _ = recorder.calls[0]
        return instances, build_requests, specs

    def claim(self, uuid, node):
        self.placement.put_allocations(
            uuid, {self.providers[node]: {'resources': dict(RESOURCES)}},
            'proj', 'demo')

    def run_build(self, build_requests, specs, scheduler):
        compute = FakeCompute()
        build.ScheduleAndBuildTask(self.context, build_requests, specs,
                                   None, scheduler, compute,
                                   self.placement).execute()
        return compute

    def cell_context(self, name='cell1'):
        cell = objects.CellMapping.get_by_name(self.admin, name)
        with cells.target_cell(self.admin, cell) as cctxt:
            return cctxt


class ScheduleAndBuildTestCase(BuildTaskTestBase):

    def test_builds_in_chosen_cell_with_alternates(self):
        (instance,), brs, specs = self.accept()

        def answer(uuid):
            self.claim(uuid, 'node1')
            return [self.selection('node1'), self.selection('node2')]

        compute = self.run_build(brs, specs, FakeScheduler(answer))
        (cast,) = compute.builds
        self.assertEqual(('host-node1', 'node1'), (cast['host'],
                                                   cast['node']))
        self.assertEqual(['node2'], [s.nodename for s in cast['host_list']])
        self.assertEqual(instance.uuid, cast['instance'].uuid)
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            self.admin, instance.uuid)
        self.assertEqual(self.cell1.uuid, mapping.cell_mapping.uuid)
        self.assertRaises(exception.BuildRequestNotFound,
                          build_api.build_request_get_by_instance_uuid,
                          self.admin, instance.uuid)
        row = instance_api.instance_get_by_uuid(self.cell_context(),
                                                instance.uuid)
        self.assertEqual((vm_states.BUILDING, 'scheduling', 'nova'),
                         (row.vm_state, row.task_state,
                          row.availability_zone))
        actions = instance_api.actions_get(self.cell_context(),
                                           instance.uuid)
        self.assertEqual(['create'], [a.action for a in actions])

    def test_an_instance_is_written_without_reading_it_back(self):
        (instance,), brs, specs = self.accept()

        def answer(uuid):
            self.claim(uuid, 'node1')
            return [self.selection('node1')]
        reads = []
        for name in ('instance_get_by_uuid', 'action_get_by_request_id',
                     'action_event_start', 'action_event_finish'):
            real = getattr(instance_api, name)

            def counting(*args, _real=real, _name=name, **kwargs):
                reads.append(_name)
                return _real(*args, **kwargs)
            self.useFixture(fixtures.MonkeyPatch(
                'nova_lite.db.cell.instance_api.' + name, counting))
        compute = self.run_build(brs, specs, FakeScheduler(answer))
        # The instance and its action written, neither read back.
        self.assertEqual([], reads)
        (cast,) = compute.builds
        row = instance_api.instance_get_by_uuid(self.cell_context(),
                                                instance.uuid)
        self.assertEqual((row.id, row.uuid, row.task_state, row.host),
                         (cast['instance'].id, cast['instance'].uuid,
                          cast['instance'].task_state,
                          cast['instance'].host))
        self.assertEqual({}, cast['instance'].obj_get_changes())

    def test_no_valid_host_buries_in_cell0(self):
        (instance,), brs, specs = self.accept()
        scheduler = FakeScheduler(error=exception.NoValidHost(
            reason='0 hosts left after RamFilter'))
        compute = self.run_build(brs, specs, scheduler)
        self.assertEqual([], compute.builds)
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            self.admin, instance.uuid)
        self.assertEqual(testing.fixtures.CELL0_UUID,
                         mapping.cell_mapping.uuid)
        cctxt = self.cell_context('cell0')
        row = instance_api.instance_get_by_uuid(cctxt, instance.uuid)
        self.assertEqual((vm_states.ERROR, None),
                         (row.vm_state, row.task_state))
        fault = objects.InstanceFault.get_latest_for_instance(
            cctxt, instance.uuid)
        self.assertIn('No valid host was found', fault.message)
        self.assertIn('RamFilter', fault.message)
        (action,) = instance_api.actions_get(cctxt, instance.uuid)
        self.assertEqual(('create', 'Error'), (action.action,
                                               action.message))
        (event,) = instance_api.action_events_get(cctxt, action.id)
        self.assertEqual(('conductor_schedule_and_build_instances',
                          'Error'), (event.event, event.result))
        self.assertRaises(exception.BuildRequestNotFound,
                          build_api.build_request_get_by_instance_uuid,
                          self.admin, instance.uuid)

    def test_buried_instance_is_never_in_error_without_its_fault(self):
        # A listing between two writes of the burial must not see ERROR
        # with no fault (the fault suite counts such a server as lost).
        (instance,), brs, specs = self.accept()
        cctxt = self.cell_context('cell0')
        seen = []
        for name in ('instance_create', 'instance_update'):
            real = getattr(instance_api, name)

            def watching(*args, _real=real, **kwargs):
                result = _real(*args, **kwargs)
                row = instance_api.instance_get_by_uuid(cctxt, instance.uuid)
                if row.vm_state == vm_states.ERROR:
                    seen.append(objects.InstanceFault.get_latest_for_instance(
                        cctxt, instance.uuid))
                return result
            self.useFixture(fixtures.MonkeyPatch(
                'nova_lite.db.cell.instance_api.' + name, watching))
        self.run_build(brs, specs, FakeScheduler(
            error=exception.NoValidHost(reason='no hosts')))
        self.assertTrue(seen)
        self.assertNotIn(None, seen)

    def test_build_request_deleted_while_scheduling_drops_claim(self):
        (instance,), brs, specs = self.accept()

        def answer(uuid):
            self.claim(uuid, 'node1')
            build_api.build_request_destroy(self.admin, uuid)
            return [self.selection('node1')]

        compute = self.run_build(brs, specs, FakeScheduler(answer))
        self.assertEqual([], compute.builds)
        self.assertEqual({}, self.placement.get_allocations(
            instance.uuid)['allocations'])
        self.assertRaises(exception.InstanceMappingNotFound,
                          objects.InstanceMapping.get_by_instance_uuid,
                          self.admin, instance.uuid)

    def test_delete_racing_the_build_request_removal_cleans_up(self):
        (instance,), brs, specs = self.accept()

        def answer(uuid):
            self.claim(uuid, 'node1')
            return [self.selection('node1')]

        real = build_api.build_request_hand_over

        def user_deletes_first(context, uuid, cell_id):
            build_api.build_request_destroy(self.admin, uuid)
            return real(context, uuid, cell_id)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.api.build_api.build_request_hand_over',
            user_deletes_first))
        compute = self.run_build(brs, specs, FakeScheduler(answer))
        self.assertEqual([], compute.builds)
        self.assertRaises(exception.InstanceNotFound,
                          instance_api.instance_get_by_uuid,
                          self.cell_context(), instance.uuid)
        self.assertRaises(exception.InstanceMappingNotFound,
                          objects.InstanceMapping.get_by_instance_uuid,
                          self.admin, instance.uuid)
        self.assertEqual({}, self.placement.get_allocations(
            instance.uuid)['allocations'])

    def test_database_transactions_after_the_scheduler(self):
        """API database: the build request reread, the cell mapping, then
        the mapping pointed at the cell and the build request deleted in
        one transaction (were three). Cell database: the instance with
        its create action in one (were two), the decision with its event
        in one (were two; four in all)."""
        (instance,), brs, specs = self.accept()

        def answer(uuid):
            self.claim(uuid, 'node1')
            self.begins.clear()
            selection = self.selection('node1')
            selection.decision = '{"source": "test", "picked": null}'
            return [selection]
        engine = session.get_api_context_manager().writer.get_engine()
        self.begins = []

        def begin(conn):
            self.begins.append(
                'api' if conn.engine.url == engine.url else 'cell')
        sa_event.listen(sa.engine.Engine, 'begin', begin)
        self.addCleanup(sa_event.remove, sa.engine.Engine, 'begin', begin)
        compute = self.run_build(brs, specs, FakeScheduler(answer))
        self.assertEqual(1, len(compute.builds))
        self.assertEqual((3, 2), (self.begins.count('api'),
                                  self.begins.count('cell')), self.begins)
        cctxt = self.cell_context()
        (action,) = instance_api.actions_get(cctxt, instance.uuid)
        self.assertEqual(('create', self.context.request_id, 'demo'),
                         (action.action, action.request_id, action.user_id))
        (event,) = instance_api.action_events_get(cctxt, action.id)
        self.assertEqual('conductor_schedule_and_build_instances',
                         event.event)

    def test_build_request_reread_is_its_created_at_alone(self):
        """The reread before the instance is created selects the build
        request's ``created_at`` only (not the serialized instance): the
        instance keeps it to the microsecond."""
        (instance,), brs, specs = self.accept()
        stored = build_api.build_request_get_by_instance_uuid(
            self.context, instance.uuid).created_at
        brs[0].created_at = stored.replace(microsecond=0)
        selects = []

        def record(conn, cursor, statement, params, context, many):
            statement = ' '.join(statement.split())
            if (statement.startswith('SELECT ') and
                    ' FROM build_requests' in statement):
                selects.append(statement.split(' FROM ')[0].split()[1:])
        sa_event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        self.addCleanup(sa_event.remove, sa.engine.Engine,
                        'before_cursor_execute', record)

        def answer(uuid):
            self.claim(uuid, 'node1')
            return [self.selection('node1')]
        compute = self.run_build(brs, specs, FakeScheduler(answer))
        self.assertEqual([['build_requests.created_at']], selects)
        (built,) = compute.builds
        self.assertEqual(stored.replace(tzinfo=None),
                         built['instance'].created_at.replace(tzinfo=None))

    def test_decision_is_stored_beside_the_hand_over(self):
        """The cell's decision record and the API database's hand-over
        do not wait for each other; both are done before the cast."""
        (instance,), brs, specs = self.accept()
        handing_over, stored = threading.Event(), threading.Event()
        real_store = build.decisions.store_selection
        real_hand_over = build_api.build_request_hand_over

        def store(*args, **kwargs):
            # stored while the hand-over is under way
            self.assertTrue(handing_over.wait(10))
            result = real_store(*args, **kwargs)
            stored.set()
            return result

        def hand_over(*args):
            handing_over.set()
            return real_hand_over(*args)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.decisions.store_selection', store))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.api.build_api.build_request_hand_over',
            hand_over))

        def answer(uuid):
            self.claim(uuid, 'node1')
            selection = self.selection('node1')
            selection.decision = '{"source": "test", "picked": null}'
            return [selection]

        compute = self.run_build(brs, specs, FakeScheduler(answer))
        self.assertEqual(1, len(compute.builds))
        self.assertTrue(stored.is_set())
        cctxt = self.cell_context()
        (action,) = instance_api.actions_get(cctxt, instance.uuid)
        (event,) = instance_api.action_events_get(cctxt, action.id)
        self.assertEqual('conductor_schedule_and_build_instances',
                         event.event)

    def test_multi_create_builds_each(self):
        instances, brs, specs = self.accept(count=2)
        nodes = iter(['node1', 'node2'])

        def answer(uuid):
            node = next(nodes)
            self.claim(uuid, node)
            return [self.selection(node)]

        compute = self.run_build(brs, specs, FakeScheduler(answer))
        self.assertEqual(['node1', 'node2'],
                         [c['node'] for c in compute.builds])
        self.assertEqual(2, len({i.reservation_id for i in instances}) + 1)


class RescheduleTestCase(BuildTaskTestBase):
    """The cell conductor: next alternate, no scheduler, no API DB."""

    def built_instance(self):
        (instance,), brs, specs = self.accept()

        def answer(uuid):
            self.claim(uuid, 'node1')
            return [self.selection('node1')]

        self.run_build(brs, specs, FakeScheduler(answer))
        # The failed compute drops its claim before asking to reschedule.
        self.placement.delete_allocations(instance.uuid)
        cctxt = self.cell_context()
        return objects.Instance.get_by_uuid(cctxt, instance.uuid), specs[0]

    def reschedule(self, instance, spec, alternates, reason='spawn failed'):
        compute = FakeCompute()
        reschedule.RescheduleTask(
            self.cell_context(), [instance], spec, [alternates], None,
            reason, compute, self.placement).execute()
        return compute

    def test_claims_next_alternate_and_casts(self):
        instance, spec = self.built_instance()
        compute = self.reschedule(instance, spec, [
            self.selection('node2'), self.selection('node3')])
        (cast,) = compute.builds
        self.assertEqual('node2', cast['node'])
        self.assertEqual(['node3'], [s.nodename for s in cast['host_list']])
        self.assertEqual(2, cast['spec'].num_attempts)
        allocations = self.placement.get_allocations(
            instance.uuid)['allocations']
        self.assertEqual([self.providers['node2']], list(allocations))

    def test_failed_claim_falls_through_to_next(self):
        instance, spec = self.built_instance()
        # Another consumer fills node2.
        self.placement.put_allocations(
            'aaaaaaaa-0000-4000-8000-000000000001',
            {self.providers['node2']: {'resources': {'VCPU': 8}}},
            'other', 'other')
        compute = self.reschedule(instance, spec, [
            self.selection('node2'), self.selection('node3')])
        (cast,) = compute.builds
        self.assertEqual('node3', cast['node'])
        self.assertEqual([], cast['host_list'])

    def test_out_of_alternates_is_error_with_original_message(self):
        instance, spec = self.built_instance()
        self.placement.put_allocations(
            'aaaaaaaa-0000-4000-8000-000000000001',
            {self.providers['node2']: {'resources': {'VCPU': 8}}},
            'other', 'other')
        compute = self.reschedule(instance, spec, [self.selection('node2')],
                                  reason='Fake spawn failure on node1')
        self.assertEqual([], compute.builds)
        cctxt = self.cell_context()
        row = instance_api.instance_get_by_uuid(cctxt, instance.uuid)
        self.assertEqual(vm_states.ERROR, row.vm_state)
        fault = objects.InstanceFault.get_latest_for_instance(
            cctxt, instance.uuid)
        self.assertIn('Exceeded maximum number of retries', fault.message)
        self.assertIn('Fake spawn failure on node1', fault.message)
        self.assertEqual({}, self.placement.get_allocations(
            instance.uuid)['allocations'])

    def test_max_attempts_reached(self):
        self.conf.flags(max_attempts=1, group='scheduler')
        instance, spec = self.built_instance()
        compute = self.reschedule(instance, spec, [self.selection('node2')])
        self.assertEqual([], compute.builds)
        fault = objects.InstanceFault.get_latest_for_instance(
            self.cell_context(), instance.uuid)
        self.assertIn('Exceeded max scheduling attempts 1', fault.message)

    def test_deleted_instance_is_not_rebuilt(self):
        instance, spec = self.built_instance()
        instance_api.instance_update(self.cell_context(), instance.uuid,
                                     {'task_state': 'deleting'})
        compute = self.reschedule(instance, spec, [self.selection('node2')])
        self.assertEqual([], compute.builds)
        self.assertEqual({}, self.placement.get_allocations(
            instance.uuid)['allocations'])
