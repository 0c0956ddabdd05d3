"""Each import rule of the tree holds, and each one catches a violation.

The checker is loaded from its file so this module runs both in the pep8
environment (no dependencies installed, ``python -m unittest``) and under
stestr with the rest of the suite.
"""

import importlib.util
import os
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _load_checker():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_import_rules', os.path.join(HERE, 'import_rules.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


import_rules = _load_checker()


class TestTreeFollowsRules(unittest.TestCase):
    def test_nova_lite_has_no_violation(self):
        found = import_rules.check_tree(os.path.join(REPO, 'nova_lite'))
        self.assertEqual([], ['%s:%d %s' % (v.path, v.line, v.message)
                              for v in found])


class TestEachRuleCatchesAViolation(unittest.TestCase):
    """A scratch tree named nova_lite, one offending file per case."""

    def _violations(self, rel_path, source):
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.join(tmp, 'nova_lite')
            path = os.path.join(root, *rel_path.split('/'))
            os.makedirs(os.path.dirname(path))
            with open(path, 'w') as f:
                f.write(textwrap.dedent(source))
            return [(v.code, v.line) for v in import_rules.check_tree(root)]

    def _assert_caught(self, code, rel_path, source, line=1):
        self.assertEqual([(code, line)], self._violations(rel_path, source))

    def test_compute_importing_db(self):
        self._assert_caught('NL301', 'compute/manager.py',
                            'from nova_lite.db.cell import api\n')

    def test_compute_importing_db_inside_a_function(self):
        self._assert_caught('NL301', 'compute/build.py', '''\
            def f():
                import nova_lite.db.session
            ''', line=2)

    def test_compute_importing_db_as_a_name(self):
        self._assert_caught('NL301', 'compute/build.py',
                            'from nova_lite import db\n')

    def test_compute_importing_db_relatively(self):
        self._assert_caught('NL301', 'compute/sub/thing.py',
                            'from ...db import session\n')

    def test_virt_importing_db(self):
        self._assert_caught('NL301', 'virt/fake.py',
                            'import nova_lite.db.api.api as api_db\n')

    def test_placement_importing_a_nova_service(self):
        self._assert_caught('NL302', 'placement/handlers/x.py',
                            'from nova_lite.scheduler import manager\n')

    def test_placement_importing_nova_objects(self):
        self._assert_caught('NL302', 'placement/objects/x.py',
                            'from nova_lite import objects\n')

    def test_client_importing_service_code(self):
        self._assert_caught('NL303', 'clients/report.py',
                            'from nova_lite.compute import provider_tree\n')

    def test_compute_importing_scheduler(self):
        self._assert_caught('NL304', 'compute/resource_tracker.py',
                            'from nova_lite.scheduler import rpcapi\n')

    def test_objects_importing_scheduler(self):
        self._assert_caught('NL305', 'objects/request_spec.py',
                            'from nova_lite.scheduler import spec\n')

    def test_objects_importing_api(self):
        self._assert_caught('NL305', 'objects/flavor.py',
                            'from nova_lite.api import util\n')

    def test_api_handler_importing_db(self):
        self._assert_caught('NL306', 'api/handlers/flavors.py',
                            'from nova_lite.db.api import api as api_db\n')

    def test_compute_api_importing_db(self):
        self._assert_caught('NL306', 'api/compute/delete.py',
                            'from nova_lite.db.cell import instance_api\n')

    def test_api_module_importing_db_inside_a_function(self):
        self._assert_caught('NL306', 'api/quota.py', '''\
            def f():
                from nova_lite.db.api import api as api_db
            ''', line=2)

    def test_context_importing_db(self):
        self._assert_caught('NL312', 'context.py',
                            'from nova_lite.db import session as db_session\n')

    def test_context_importing_rpc(self):
        self._assert_caught('NL312', 'context.py',
                            'from nova_lite import rpc\n')

    def test_context_importing_rpc_inside_a_function(self):
        self._assert_caught('NL312', 'context.py', '''\
            def f():
                import nova_lite.rpc
            ''', line=2)

    def test_context_importing_oslo_passes(self):
        self.assertEqual([], self._violations('context.py', '''\
            from oslo_context import context as oslo_context
            from oslo_db.sqlalchemy import enginefacade
            '''))

    def test_image_service_importing_the_compute_api(self):
        self._assert_caught('NL307', 'image/handlers/images.py',
                            'from nova_lite.api import util\n')

    def test_network_service_importing_the_compute_api(self):
        self._assert_caught('NL307', 'network/ports.py',
                            'import nova_lite.api.policy\n')

    def test_dashboard_importing_the_compute_api(self):
        self._assert_caught('NL307', 'dashboard/data.py',
                            'from nova_lite.api import host_info\n')

    def test_compute_api_importing_image_internals(self):
        self._assert_caught('NL308', 'api/handlers/compute_images.py',
                            'from nova_lite.image import service\n')

    def test_conductor_importing_the_image_catalog(self):
        self._assert_caught('NL308', 'conductor/tasks/unshelve.py',
                            'from nova_lite.image.catalog import find\n')

    def test_compute_api_importing_network_internals(self):
        self._assert_caught('NL309', 'api/handlers/floating_ips.py',
                            'from nova_lite.network import ports\n')

    def test_image_service_importing_network_internals(self):
        self._assert_caught('NL309', 'image/service.py',
                            'from nova_lite.network import common\n')

    def test_compute_api_importing_the_dashboard(self):
        self._assert_caught('NL310', 'api/handlers/hypervisors.py',
                            'from nova_lite.dashboard import data\n')

    def test_shared_web_layer_importing_a_service(self):
        self._assert_caught('NL311', 'wsgi/router.py',
                            'from nova_lite.api import faults\n')

    def test_services_reached_through_their_interfaces_pass(self):
        self.assertEqual([], self._violations('api/compute/create.py', '''\
            from nova_lite.image import interface as image_api
            import nova_lite.network.interface
            from nova_lite.network.interface import allocate
            '''))
        self.assertEqual([], self._violations('image/handlers/images.py', '''\
            from nova_lite.image import service
            from nova_lite.wsgi import util
            '''))

    def test_the_deploy_mounts_every_service(self):
        self.assertEqual([], self._violations('api/deploy.py', '''\
            from nova_lite import dashboard
            from nova_lite.image import router as image_router
            from nova_lite.network import router as network_router
            '''))

    def test_api_importing_objects_passes(self):
        self.assertEqual([], self._violations('api/compute/checks.py', '''\
            from nova_lite import objects
            from nova_lite.objects import keypair as keypair_obj
            '''))

    def test_allowed_imports_pass(self):
        self.assertEqual([], self._violations('compute/manager.py', '''\
            from nova_lite import conf
            from nova_lite.conductor import rpcapi
            from nova_lite import objects
            from nova_lite.virt import driver
            '''))
        self.assertEqual([], self._violations('placement/db/api.py', '''\
            from nova_lite import conf
            from nova_lite.db import session
            from nova_lite.placement.objects import common
            '''))

    def test_the_checker_exits_non_zero_on_a_violation(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.join(tmp, 'nova_lite', 'virt')
            os.makedirs(root)
            with open(os.path.join(root, 'fake.py'), 'w') as f:
                f.write('from nova_lite.db import session\n')
            self.assertEqual(1, import_rules.main(
                [os.path.join(tmp, 'nova_lite')]))
