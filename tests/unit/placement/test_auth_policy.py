"""Authentication strategies and policy defaults of placement."""

from oslo_config import fixture as config_fixture
import testtools
import webob

from nova_lite import conf as nl_conf
from nova_lite.placement import auth
from nova_lite.testing import placement_fixture
from nova_lite.placement import policies
from nova_lite.placement import policy
from nova_lite.wsgi import auth as wsgi_auth


def _echo_context(environ, start_response):
    ctx = environ[auth.CONTEXT_KEY]
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [('%s %s' % (ctx.user_id, ctx.is_admin)).encode()]


class TestNoAuth(testtools.TestCase):
    def test_admin_token(self):
        ctx = auth.noauth_context('admin')
        self.assertTrue(ctx.is_admin)
        self.assertIn('admin', ctx.roles)

    def test_other_tokens_are_members(self):
        ctx = auth.noauth_context('alice:demo')
        self.assertFalse(ctx.is_admin)
        self.assertEqual(('alice', 'demo'), (ctx.user_id, ctx.project_id))
        self.assertEqual('notused', auth.noauth_context('notused').user_id)

    def test_middleware(self):
        app = wsgi_auth.NoAuth(_echo_context, auth.SETTINGS)
        req = webob.Request.blank('/x', headers={'X-Auth-Token': 'admin'})
        self.assertEqual(b'admin True', req.get_response(app).body)
        response = webob.Request.blank('/x').get_response(app)
        self.assertEqual(401, response.status_int)
        self.assertEqual(401, response.json['errors'][0]['status'])


class TestKeystoneStrategy(testtools.TestCase):
    def test_missing_token_is_401_without_keystone(self):
        flags = self.useFixture(config_fixture.Config(nl_conf.CONF))
        flags.config(group='placement_api', auth_strategy='keystone')
        flags.config(group='keystone_authtoken',
                     www_authenticate_uri='http://keystone.invalid/')
        app = wsgi_auth.wrap(_echo_context, nl_conf.CONF, auth.SETTINGS)
        response = webob.Request.blank('/resource_providers').get_response(
            app)
        self.assertEqual(401, response.status_int)

    def test_root_needs_no_auth(self):
        flags = self.useFixture(config_fixture.Config(nl_conf.CONF))
        flags.config(group='placement_api', auth_strategy='keystone')
        app = wsgi_auth.wrap(_echo_context, nl_conf.CONF, auth.SETTINGS)
        self.assertEqual(200, webob.Request.blank('/').get_response(
            app).status_int)


class TestPolicyRules(testtools.TestCase):
    def test_names_unique_and_documented(self):
        rules = policies.list_rules()
        names = [r.name for r in rules]
        self.assertEqual(len(names), len(set(names)))
        for rule in rules[1:]:
            self.assertTrue(rule.name.startswith('placement:'))
            self.assertTrue(rule.description)

    def _allowed(self, token, rule, new_defaults):
        flags = self.useFixture(config_fixture.Config(nl_conf.CONF))
        placement_fixture.ensure_parsed(nl_conf.CONF)
        flags.config(group='oslo_policy', enforce_new_defaults=new_defaults)
        policy.reset()
        self.addCleanup(policy.reset)
        enforcer = policy.get_enforcer()
        ctx = auth.noauth_context(token)
        return enforcer.authorize(rule, {}, ctx, do_raise=False)

    def test_legacy_defaults(self):
        self.assertTrue(self._allowed('admin', 'placement:reshaper:reshape',
                                      False))
        self.assertTrue(self._allowed(
            'admin', 'placement:resource_providers:list', False))
        self.assertFalse(self._allowed(
            'alice', 'placement:resource_providers:list', False))

    def test_new_defaults(self):
        self.assertFalse(self._allowed('admin', 'placement:reshaper:reshape',
                                       True))
        self.assertTrue(self._allowed(
            'admin', 'placement:allocations:update', True))
        self.assertFalse(self._allowed(
            'alice', 'placement:allocations:update', True))
