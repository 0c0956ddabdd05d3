"""Unit tests of the API's pure pieces: microversions, validation, extra
spec checks, key material, the route table, scatter-gather."""

import threading

import testtools
import webob
import webob.exc

from nova_lite import cells
from nova_lite.api import deploy
from nova_lite.api import extra_specs_validator as esv
from nova_lite.api import keypair_crypto
from nova_lite.api import microversion
from nova_lite.api import policies
from nova_lite.api import router
from nova_lite.api import validation
from nova_lite.dashboard import handlers as dashboard_handlers
from nova_lite.dashboard import policy as dashboard_policy
from nova_lite.image import policy as image_policy
from nova_lite.image import router as image_router
from nova_lite.network import router as network_router
from nova_lite.wsgi import microversion as wsgi_microversion
from nova_lite.wsgi import policy as wsgi_policy


def _environ(**headers):
    req = webob.Request.blank('/')
    for key, value in headers.items():
        req.headers[key.replace('_', '-')] = value
    return req.environ


class TestMicroversion(testtools.TestCase):
    def test_extract(self):
        self.assertEqual((2, 1), microversion.TABLE.extract(_environ()))
        self.assertEqual((2, 60), microversion.TABLE.extract(_environ(
            OpenStack_API_Version='compute 2.60')))
        self.assertEqual((2, 60), microversion.TABLE.extract(_environ(
            X_OpenStack_Nova_API_Version='2.60')))
        self.assertEqual(microversion.MAX_VERSION, microversion.TABLE.extract(
            _environ(OpenStack_API_Version='compute latest')))
        self.assertRaises(webob.exc.HTTPNotAcceptable,
                          microversion.TABLE.extract,
                          _environ(OpenStack_API_Version='compute 2.101'))
        self.assertRaises(webob.exc.HTTPBadRequest,
                          microversion.TABLE.extract,
                          _environ(OpenStack_API_Version='compute 2.a'))

    def test_other_service_header_is_ignored(self):
        self.assertEqual((2, 1), microversion.TABLE.extract(_environ(
            OpenStack_API_Version='placement 1.30')))

    def test_require(self):
        handler = microversion.require('2.10', '2.20')(lambda req: 'ok')
        req = webob.Request.blank('/')
        req.environ[microversion.ENVIRON_KEY] = (2, 15)
        self.assertEqual('ok', handler(req))
        req.environ[microversion.ENVIRON_KEY] = (2, 21)
        self.assertRaises(webob.exc.HTTPNotFound, handler, req)


class TestValidation(testtools.TestCase):
    SCHEMA = {'type': 'object', 'properties': {
        'a': {'type': 'object', 'properties': {
            'n': {'type': 'integer', 'minimum': 1}},
            'additionalProperties': False}},
        'required': ['a'], 'additionalProperties': False}

    def _message(self, data):
        exc = self.assertRaises(webob.exc.HTTPBadRequest,
                                validation.validate, data, self.SCHEMA)
        return exc.detail

    def test_messages_name_the_field(self):
        self.assertIn("'a' is a required property", self._message({}))
        self.assertIn('a/n', self._message({'a': {'n': 0}}))
        self.assertIn("'x' was unexpected", self._message({'a': {},
                                                           'x': 1}))
        self.assertIn("'m' was unexpected", self._message({'a': {'m': 1}}))

    def test_uuid_format(self):
        schema = {'type': 'string', 'format': 'uuid'}
        validation.validate('00000000-0000-0000-0000-000000000000', schema)
        self.assertRaises(webob.exc.HTTPBadRequest, validation.validate,
                          'nope', schema)


class TestExtraSpecsValidator(testtools.TestCase):
    GOOD = {'resources:VCPU': '2', 'resources2:CUSTOM_FPGA': '1',
            'trait:HW_CPU_X86_AVX2': 'required',
            'trait1:CUSTOM_RAID': 'forbidden', 'group_policy': 'none',
            'hw:cpu_policy': 'mixed', 'hw:mem_page_size': '2MB',
            'hw:numa_nodes': '2', 'capabilities:cpu_info:arch': 'x86_64',
            'anything:else': 'free'}
    BAD = {'resources:vcpu': '1', 'resources:VCPU': '-1',
           'trait:HW_CPU_X86_AVX2': 'yes', 'trait:hw_cpu': 'required',
           'group_policy': 'all', 'hw:cpu_policy': 'fast',
           'hw:numa_nodes': '0', 'hw:mem_page_size': 'huge',
           'hw:cpu_polcy': 'dedicated'}

    def test_good(self):
        esv.validate_all(self.GOOD)

    def test_bad_names_the_key(self):
        for key, value in self.BAD.items():
            exc = self.assertRaises(esv.InvalidExtraSpec, esv.validate, key,
                                    value)
            self.assertIn(key, str(exc))


class TestKeypairCrypto(testtools.TestCase):
    def test_generate_and_check(self):
        private, public, fingerprint = keypair_crypto.generate_ssh_keypair()
        self.assertIn('PRIVATE KEY', private)
        self.assertEqual(fingerprint,
                         keypair_crypto.check_ssh_public_key(public))
        self.assertRaises(keypair_crypto.InvalidKeypair,
                          keypair_crypto.check_ssh_public_key, 'ssh-rsa xx')
        self.assertRaises(keypair_crypto.InvalidKeypair,
                          keypair_crypto.x509_fingerprint, 'junk')


class TestRouteTable(testtools.TestCase):
    """The route table of nova-lite-api: the compute API's and the
    image and network services' it mounts."""

    def test_every_handler_resolves(self):
        for path, methods in deploy.ROUTE_DECLARATIONS.items():
            for method, handler in methods.items():
                self.assertTrue(callable(handler), (path, method))

    def test_paths_have_no_regexes(self):
        for path in deploy.ROUTE_DECLARATIONS:
            self.assertNotIn(':', path.replace('{', '').split('}')[0])

    def test_tripwire_route_count(self):
        # NOTE(nova_lite): adding a route is an API change; update the
        # count (and the docs) on purpose.
        count = sum(len(m) for m in deploy.ROUTE_DECLARATIONS.values())
        self.assertEqual(398, count)

    def test_each_service_has_its_own_paths(self):
        tables = (router.ROUTE_DECLARATIONS, image_router.ROUTES,
                  network_router.ROUTES)
        self.assertEqual(len(deploy.ROUTE_DECLARATIONS),
                         sum(len(t) for t in tables))

    def test_policy_rules_are_unique(self):
        for rules in (policies.list_rules(), image_policy.list_rules(),
                      dashboard_policy.list_rules()):
            names = [rule.name for rule in rules]
            self.assertEqual(len(names), len(set(names)))


class TestScatterGather(testtools.TestCase):
    class Cell:
        def __init__(self, name):
            self.uuid = self.name = name
            self.database_connection = 'sqlite://'
            self.transport_url = 'none:///'

    def setUp(self):
        super().setUp()
        self.useFixture(__import__('fixtures').MockPatch(
            'nova_lite.cells.set_target_cell',
            lambda ctxt, cell: setattr(ctxt, 'cell_uuid', cell.uuid)))

    def test_results_errors_and_timeouts(self):
        from nova_lite import context as nl_context
        release = threading.Event()
        self.addCleanup(release.set)

        def work(cctxt):
            if cctxt.cell_uuid == 'slow':
                release.wait(10)
            if cctxt.cell_uuid == 'bad':
                raise RuntimeError('boom')
            return cctxt.cell_uuid.upper()

        results = cells.scatter_gather(
            nl_context.get_admin_context(),
            [self.Cell('ok'), self.Cell('bad'), self.Cell('slow')], work,
            timeout=0.5)
        self.assertEqual('OK', results['ok'])
        self.assertIsInstance(results['bad'], RuntimeError)
        self.assertIs(cells.DID_NOT_RESPOND, results['slow'])
        self.assertEqual([('ok', 'OK')], cells.successful(results))


class TestMicroversionDoc(testtools.TestCase):
    def test_doc_table_matches_the_code(self):
        import os
        path = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                            'doc', 'api-microversions.md')
        if not os.path.exists(path):
            self.skipTest('doc/api-microversions.md not in this tree')
        with open(path) as f:
            rows = [line.split('|')[1:4] for line in f
                    if line.startswith('| 2.')]
        self.assertEqual([(v, what, how) for v, what, how in
                          microversion.ABSENT_SERVICES],
                         [tuple(cell.strip() for cell in row)
                          for row in rows])
        for version, _what in microversion.IMPLEMENTED:
            self.assertTrue(microversion.MIN_VERSION <=
                            wsgi_microversion.parse(version) <=
                            microversion.MAX_VERSION)


class TestApiCommand(testtools.TestCase):
    def test_missing_htpasswd_is_one_line(self):
        from nova_lite import cmd
        from nova_lite.cmd import api as api_cmd

        class Conf:
            class api:
                auth_strategy = 'http_basic'
                http_basic_auth_user_file = '/nonexistent/htpasswd'

        exc = self.assertRaises(cmd.ConfigError, api_cmd.check_api_options,
                                Conf)
        self.assertIn('http_basic_auth_user_file', str(exc))

    def test_idle_connections_outlast_a_two_second_poll(self):
        """gunicorn's own 2-second keepalive closes a connection just as
        openstacksdk's ``--wait`` (every 2 s) sends on it again."""
        from nova_lite.cmd import api as api_cmd
        from nova_lite import conf as nl_conf

        options = api_cmd.gunicorn_options(nl_conf.CONF)
        self.assertEqual(nl_conf.CONF.wsgi.keep_alive_timeout,
                         options['keepalive'])
        self.assertGreater(options['keepalive'], 5)


class TestPolicyNamesUsed(testtools.TestCase):
    def test_every_rule_the_handlers_name_has_a_default(self):
        import glob
        import os
        import re

        import nova_lite
        pattern = re.compile(
            r"(?:policy|image_api)\.(?:authorize|check)\(\s*[^,]+,"
            r"\s*'([^'%]+)'|(?:_ctx|image_for)\(req, '([^'%]+)'")
        # Each service's handlers name rules of its own policy (the
        # compute API's image proxy those of the image service, through
        # its interface).
        rooms = {'api': policies.list_rules() + image_policy.list_rules(),
                 'image': image_policy.list_rules()}
        for room, rules in rooms.items():
            known = {rule.name[len(policies.P):] for rule in rules}
            root = os.path.join(os.path.dirname(nova_lite.__file__), room)
            used = set()
            for path in glob.glob(os.path.join(root, '**', '*.py'),
                                  recursive=True):
                with open(path) as f:
                    used.update(a or b for a, b in pattern.findall(f.read()))
            self.assertTrue(used, room)
            self.assertEqual(set(), used - known, room)
        self.assertIn(policies.P + dashboard_handlers.RULE,
                      [rule.name for rule in dashboard_policy.list_rules()])


class TestPolicySample(testtools.TestCase):
    def test_sample_is_current(self):
        import os
        path = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                            'etc', 'nova-lite', 'api-policy.yaml.sample')
        if not os.path.exists(path):
            self.skipTest('no etc/nova-lite/api-policy.yaml.sample')
        with open(path) as f:
            self.assertEqual(
                wsgi_policy.sample_yaml(deploy.policy_rules()), f.read(),
                'regenerate it: python -m nova_lite.api.policies > '
                'etc/nova-lite/api-policy.yaml.sample')
