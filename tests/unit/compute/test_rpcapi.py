"""The compute and conductor RPC clients: method, call or cast, server
and arguments of every message (the contract with the managers), all at
the one version each client and its manager speak."""

import fixtures
import testtools

from nova_lite.compute import manager as compute_manager
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite import testing

INSTANCE_UUID = '9d7c1a3e-5a8f-4b0e-8f7d-1a2b3c4d5e6f'


class _Prepared:
    def __init__(self, log, prepare_kwargs):
        self.log = log
        self.prepare_kwargs = prepare_kwargs

    def cast(self, context, method, **kwargs):
        self.log.append(('cast', method, self.prepare_kwargs, kwargs))

    def call(self, context, method, **kwargs):
        self.log.append(('call', method, self.prepare_kwargs, kwargs))
        return 'answer'


class _FakeClient:
    def __init__(self):
        self.log = []

    def prepare(self, **kwargs):
        return _Prepared(self.log, kwargs)


class ComputeAPITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.api = compute_rpcapi.ComputeAPI()
        self.client = _FakeClient()
        self.useFixture(fixtures.MockPatchObject(
            self.api, 'router', return_value=self.client))
        self.ctxt = nl_context.get_admin_context()
        objects.register_all()
        self.instance = objects.Instance(uuid=INSTANCE_UUID, host='host1',
                                         node='n1')

    def _check(self, method, kind, expected, *args, **kwargs):
        getattr(self.api, method)(self.ctxt, *args, **kwargs)
        ((got_kind, got_method, prepare, sent),) = self.client.log
        self.assertEqual((kind, method), (got_kind, got_method))
        self.assertEqual('host1', prepare['server'])
        self.assertNotIn('version', prepare)
        self.assertEqual(expected, sent)
        handler = getattr(compute_manager.ComputeManager, method)
        self.assertTrue(callable(handler), method)

    def test_build_and_run_instance(self):
        self._check('build_and_run_instance', 'cast',
                    {'instance': self.instance, 'node': 'n1',
                     'request_spec': None, 'host_list': [], 'image': None},
                    self.instance, 'host1', 'n1')

    def test_instance_actions(self):
        for method in ('terminate_instance', 'start_instance',
                       'pause_instance', 'unpause_instance',
                       'suspend_instance', 'resume_instance'):
            self.client.log = []
            self._check(method, 'cast', {'instance': self.instance},
                        self.instance)

    def test_stop_and_reboot(self):
        self._check('stop_instance', 'cast',
                    {'instance': self.instance, 'clean_shutdown': True},
                    self.instance)
        self.client.log = []
        self._check('reboot_instance', 'cast',
                    {'instance': self.instance, 'reboot_type': 'HARD'},
                    self.instance, reboot_type='HARD')

    def test_rescue_and_unrescue(self):
        self._check('rescue_instance', 'cast',
                    {'instance': self.instance, 'rescue_password': 'pw',
                     'rescue_image_ref': 'img', 'clean_shutdown': True},
                    self.instance, 'pw', rescue_image_ref='img')
        self.client.log = []
        self._check('unrescue_instance', 'cast', {'instance': self.instance},
                    self.instance)

    def test_interface_attach_and_detach_are_calls(self):
        for method in ('attach_interface', 'detach_interface'):
            self.client.log = []
            self._check(method, 'call',
                        {'instance': self.instance, 'port_id': 'p1'},
                        self.instance, 'p1')

    def test_set_host_enabled_is_a_call(self):
        self._check('set_host_enabled', 'call', {'enabled': False},
                    'host1', False)

    def test_manager_serves_the_client_version(self):
        self.assertEqual('1.0', compute_rpcapi.ComputeAPI.VERSION)
        self.assertEqual(compute_rpcapi.ComputeAPI.VERSION,
                         compute_manager.ComputeManager.target.version)


class ConductorAPITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.api = conductor_rpcapi.ConductorAPI()
        self.client = _FakeClient()
        self.api.client = self.client
        self.ctxt = nl_context.get_admin_context()

    def test_record_methods_are_calls_served_by_the_manager(self):
        calls = {
            'service_get_or_create': ('h', 'b', 't'),
            'service_update': (1, {}),
            'compute_node_get_all_by_host': ('h',),
            'compute_node_get_or_create': ('h', 'n', {}),
            'compute_nodes_save': ('h', {}),
            'compute_node_update': (1, {}),
            'compute_node_delete': (1,),
            'compute_node_build_result': (1, True),
            'instance_get_by_uuid': ('u',),
            'instance_get_all_by_filters': ({},),
            'instance_update': ('u', {}),
            'instance_destroy': ('u',),
            'terminate_start': ('u', 'e', 'h'),
            'terminate_finish': ('u', {}, 'e'),
            'build_start': ('u', {}, [], [], 'e', 'h'),
            'build_finish': ('u', {}, [], 'e'),
            'instance_fault_create': ({},),
            'action_start': ('u', 'create'),
            'action_finish': ('u',),
            'action_event_start': ('u', 'e'),
            'action_event_finish': ('u', 'e'),
            'migration_create': ({},),
            'migration_update': ('m', {}),
            'migration_get_by_uuid': ('m',),
            'migration_get_all_by_filters': ({},),
        }
        for method, args in calls.items():
            self.client.log = []
            self.assertEqual('answer',
                             getattr(self.api, method)(self.ctxt, *args))
            ((kind, sent_method, prepare, _kwargs),) = self.client.log
            self.assertEqual(('call', method), (kind, sent_method))
            self.assertNotIn('version', prepare)
            self.assertTrue(hasattr(conductor_manager.ConductorManager,
                                    method), method)

    def test_instance_destroy_with_values(self):
        self.api.instance_destroy(self.ctxt, 'u', values={'vm_state': 'x'})
        ((kind, method, _prepare, kwargs),) = self.client.log
        self.assertEqual(('call', 'instance_destroy'), (kind, method))
        self.assertEqual({'instance_uuid': 'u', 'values': {'vm_state': 'x'}},
                         kwargs)

    def test_terminate_calls(self):
        self.api.terminate_start(self.ctxt, 'u', 'e', 'h')
        self.api.terminate_finish(self.ctxt, 'u', {'vm_state': 'x'}, 'e',
                                  node={'id': 1, 'values': {}})
        self.assertEqual([
            ('call', 'terminate_start',
             {'instance_uuid': 'u', 'event': 'e', 'host': 'h'}),
            ('call', 'terminate_finish',
             {'instance_uuid': 'u', 'values': {'vm_state': 'x'},
              'event': 'e', 'node': {'id': 1, 'values': {}}})],
            [(kind, method, kwargs)
             for kind, method, _prepare, kwargs in self.client.log])

    def test_manager_serves_the_client_version(self):
        self.assertEqual('1.0', conductor_rpcapi.ConductorAPI.VERSION)
        self.assertEqual(conductor_rpcapi.ConductorAPI.VERSION,
                         conductor_manager.ConductorManager.target.version)
