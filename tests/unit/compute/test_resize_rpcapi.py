"""The resize messages: who receives each step (source or destination),
call or cast, and arguments the receiving handler takes (all at the
client's one version)."""

import inspect

import fixtures
import testtools

from nova_lite.compute import manager as compute_manager
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import compute_task
from nova_lite.conductor import compute_task_rpcapi
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite import testing
from tests.unit.compute import test_rpcapi

INSTANCE_UUID = '9d7c1a3e-5a8f-4b0e-8f7d-1a2b3c4d5e6f'


def _accepts(handler, kwargs):
    """The handler takes every keyword the client sends."""
    params = inspect.signature(handler).parameters
    return sorted(k for k in kwargs if k not in params)


class ResizeComputeAPITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        objects.register_all()
        self.api = compute_rpcapi.ComputeAPI()
        self.client = test_rpcapi._FakeClient()
        self.useFixture(fixtures.MockPatchObject(
            self.api, 'router', return_value=self.client))
        self.ctxt = nl_context.get_admin_context()
        self.instance = objects.Instance(uuid=INSTANCE_UUID, host='src',
                                         node='src-node')
        self.migration = objects.Migration(
            uuid='5b0c2f4e-1d3a-4c5b-9e8f-7a6b5c4d3e2f',
            source_compute='src', dest_compute='dst')
        self.flavor = objects.Flavor(flavorid='2')

    def _sent(self, method, *args, **kwargs):
        self.client.log = []
        getattr(self.api, method)(self.ctxt, *args, **kwargs)
        ((kind, sent_method, prepare, sent),) = self.client.log
        self.assertEqual(method, sent_method)
        self.assertNotIn('version', prepare)
        handler = getattr(compute_manager.ComputeManager, method)
        self.assertEqual([], _accepts(handler, sent), method)
        return kind, prepare['server'], sent

    def test_each_step_goes_to_the_right_host(self):
        steps = {
            'prep_resize': (self.instance, self.flavor, self.migration,
                            'dst', 'dst-node'),
            'resize_instance': (self.instance, self.flavor,
                                self.migration),
            'finish_resize': (self.instance, self.flavor, self.migration),
            'confirm_resize': (self.instance, self.migration),
            'revert_resize': (self.instance, self.migration),
            'finish_revert_resize': (self.instance, self.migration),
        }
        routed = {method: self._sent(method, *args)[:2]
                  for method, args in steps.items()}
        self.assertEqual({'prep_resize': ('cast', 'dst'),
                          'resize_instance': ('cast', 'src'),
                          'finish_resize': ('cast', 'dst'),
                          'confirm_resize': ('cast', 'src'),
                          'revert_resize': ('cast', 'dst'),
                          'finish_revert_resize': ('cast', 'src')},
                         routed)

    def test_prep_resize_carries_the_alternates(self):
        _kind, _server, sent = self._sent(
            'prep_resize', self.instance, self.flavor, self.migration,
            'dst', 'dst-node', host_list=('alt',))
        self.assertEqual(['alt'], sent['host_list'])
        self.assertEqual('dst-node', sent['node'])

    def test_confirm_before_a_delete_is_a_call(self):
        kind, server, _sent = self._sent('confirm_resize', self.instance,
                                         self.migration, cast=False)
        self.assertEqual(('call', 'src'), (kind, server))


class MigrateServerTaskAPITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.api = compute_task_rpcapi.ComputeTaskAPI()
        self.client = test_rpcapi._FakeClient()
        self.api.client = self.client
        self.ctxt = nl_context.get_admin_context()

    def test_cast_from_the_api_call_from_a_compute(self):
        self.api.migrate_server(self.ctxt, 'inst', 'flavor', 'spec')
        self.api.migrate_server(self.ctxt, 'inst', 'flavor', 'spec',
                                host_list=['alt'], migration='m',
                                exc_reason='boom', do_cast=False)
        kinds = [(kind, method, prepare.get('version'))
                 for kind, method, prepare, _kw in self.client.log]
        self.assertEqual([('cast', 'migrate_server', None),
                          ('call', 'migrate_server', None)], kinds)
        for _kind, _method, _prepare, sent in self.client.log:
            self.assertEqual([], _accepts(
                compute_task.ComputeTaskManager.migrate_server, sent))
        self.assertEqual(['alt'], self.client.log[1][3]['host_list'])
