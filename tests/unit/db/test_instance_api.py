"""Cell DB API: instances, faults and actions."""

from nova_lite.db.cell import instance_api as api
from nova_lite import exception
from tests.unit.compute import test_conductor_records
from tests.unit.db import test_cell_api


class TestInstances(test_cell_api.CellDBTestCase):

    def _create(self, **kw):
        values = {'project_id': 'p1', 'user_id': 'u1', 'host': 'h1',
                  'node': 'n1', 'vm_state': 'building',
                  'task_state': 'scheduling',
                  'flavor': {'cur': {'name': 'm1.tiny'}},
                  'metadata': {'k': 'v'}}
        values.update(kw)
        return api.instance_create(self.ctx, values)

    def test_create_and_get(self):
        inst = self._create()
        got = api.instance_get_by_uuid(self.ctx, inst.uuid)
        self.assertEqual({'k': 'v'}, got.metadata_)
        self.assertEqual('m1.tiny', got.flavor['cur']['name'])
        self.assertRaises(exception.InstanceExists, self._create,
                          uuid=inst.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          api.instance_get_by_uuid, self.ctx, 'nope')

    def test_create_with_action_is_one_transaction(self):
        values = {'project_id': 'p1', 'user_id': 'u1',
                  'vm_state': 'building', 'task_state': 'scheduling'}
        inst, action = api.instance_create_with_action(
            self.ctx, dict(values), 'create')
        got = api.action_get_by_request_id(self.ctx, inst.uuid,
                                           self.ctx.request_id)
        self.assertEqual((action.id, 'create'), (got.id, got.action))
        self.assertIsNotNone(got.start_time)
        # a duplicate leaves no second action behind
        self.assertRaises(exception.InstanceExists,
                          api.instance_create_with_action, self.ctx,
                          dict(values, uuid=inst.uuid), 'create')
        self.assertEqual(1, len(api.actions_get(self.ctx, inst.uuid)))

    def test_filters_and_paging(self):
        a = self._create()
        b = self._create(host='h2')
        c = self._create(project_id='p2')
        self.assertEqual({a.uuid, b.uuid}, {i.uuid for i in
                         api.instance_get_all_by_filters(
                             self.ctx, {'project_id': 'p1'})})
        self.assertEqual({b.uuid}, {i.uuid for i in
                         api.instance_get_all_by_host(self.ctx, 'h2')})
        ordered = [i.uuid for i in api.instance_get_all_by_filters(
            self.ctx, sort_keys=['id'])]
        self.assertEqual([c.uuid, b.uuid, a.uuid], ordered)
        page = api.instance_get_all_by_filters(
            self.ctx, sort_keys=['id'], marker=c.uuid, limit=1)
        self.assertEqual([b.uuid], [i.uuid for i in page])
        self.assertEqual(2, api.instance_count_by_host(self.ctx, 'h1'))

    def test_conditional_update(self):
        inst = self._create()
        api.instance_update(self.ctx, inst.uuid, {'task_state': 'spawning'},
                            expected_task_state=['scheduling', None])
        self.assertRaises(exception.UnexpectedTaskStateError,
                          api.instance_update, self.ctx, inst.uuid,
                          {'task_state': None},
                          expected_task_state='scheduling')
        self.assertRaises(exception.UnexpectedVMStateError,
                          api.instance_update, self.ctx, inst.uuid,
                          {'vm_state': 'active'}, expected_vm_state='error')
        done = api.instance_update(self.ctx, inst.uuid,
                                   {'vm_state': 'active', 'task_state': None,
                                    'metadata': {'a': 'b'}})
        self.assertEqual(('active', None, {'a': 'b'}),
                         (done.vm_state, done.task_state, done.metadata_))

    def test_destroy_is_soft(self):
        inst = self._create()
        api.instance_destroy(self.ctx, inst.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          api.instance_get_by_uuid, self.ctx, inst.uuid)
        self.assertEqual(0, api.instance_count_by_host(self.ctx, 'h1'))
        self.assertEqual([inst.uuid], [i.uuid for i in
                         api.instance_get_all_by_filters(
                             self.ctx, {'deleted': True})])
        self.assertRaises(exception.InstanceNotFound, api.instance_destroy,
                          self.ctx, inst.uuid)


class TestFaultsAndActions(test_cell_api.CellDBTestCase):

    def test_faults_newest_first(self):
        for code in (500, 404):
            api.instance_fault_create(self.ctx, {
                'instance_uuid': 'i1', 'code': code, 'message': str(code)})
        faults = api.instance_fault_get_by_instance_uuids(
            self.ctx, ['i1', 'i2'])
        self.assertEqual([404, 500], [f.code for f in faults['i1']])
        self.assertEqual([], faults['i2'])
        latest = api.instance_fault_get_by_instance_uuids(
            self.ctx, ['i1'], latest=True)
        self.assertEqual([404], [f.code for f in latest['i1']])

    def test_action_with_events(self):
        action = api.action_start(self.ctx, {'action': 'create',
                                             'instance_uuid': 'i1'})
        self.assertEqual(self.ctx.request_id, action.request_id)
        api.action_event_start(self.ctx, 'i1', 'compute_build', host='h1')
        api.action_event_finish(self.ctx, 'i1', 'compute_build',
                                result='Error', traceback='boom')
        api.action_finish(self.ctx, 'i1')
        got = api.action_get_by_request_id(self.ctx, 'i1',
                                           self.ctx.request_id)
        self.assertEqual('Error', got.message)
        self.assertIsNotNone(got.finish_time)
        events = api.action_events_get(self.ctx, got.id)
        self.assertEqual([('compute_build', 'Error')],
                         [(e.event, e.result) for e in events])
        self.assertEqual([got.id], [a.id for a in api.actions_get(
            self.ctx, 'i1')])
        self.assertRaises(exception.InstanceActionNotFound,
                          api.action_finish, self.ctx, 'i2')

    def test_event_recorded_started_and_finished_at_once(self):
        action = api.action_start(self.ctx, {'action': 'create',
                                             'instance_uuid': 'i1'})
        api.action_event_record(self.ctx, 'i1', 'conductor_schedule',
                                host='c1', details='picked h1')
        events = api.action_events_get(self.ctx, action.id)
        self.assertEqual([('conductor_schedule', 'Success', 'c1',
                           'picked h1')],
                         [(e.event, e.result, e.host, e.details)
                          for e in events])
        self.assertIsNotNone(events[0].start_time)
        self.assertEqual(events[0].start_time, events[0].finish_time)
        self.assertIsNone(api.action_get_by_request_id(
            self.ctx, 'i1', self.ctx.request_id).message)
        api.action_event_record(self.ctx, 'i1', 'conductor_reschedule',
                                result='Error')
        self.assertEqual('Error', api.action_get_by_request_id(
            self.ctx, 'i1', self.ctx.request_id).message)
        self.assertRaises(exception.InstanceActionNotFound,
                          api.action_event_record, self.ctx, 'i2', 'x')


class TestEventRecord(test_cell_api.CellDBTestCase):

    def test_an_event_of_a_known_action_reads_nothing(self):
        inst, action = api.instance_create_with_action(
            self.ctx, {'project_id': 'p1', 'user_id': 'u1'}, 'create')
        with test_conductor_records.counted_statements() as run:
            row = api.action_event_record(self.ctx, inst.uuid, 'e',
                                          action_id=action.id)
        self.assertNotIn('SELECT', run)
        self.assertEqual((action.id, 'Success'), (row.action_id, row.result))
        # an error still marks the action
        api.action_event_record(self.ctx, inst.uuid, 'e', result='Error',
                                action_id=action.id)
        self.assertEqual('Error', api.action_get_by_request_id(
            self.ctx, inst.uuid, self.ctx.request_id).message)
