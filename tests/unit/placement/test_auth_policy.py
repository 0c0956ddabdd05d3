"""Authentication strategies and policy defaults of placement."""

import json
import os
from unittest import mock

import fixtures
from oslo_config import fixture as config_fixture
from oslo_policy import policy as oslo_policy
import testtools
import webob
import webob.exc

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

    def test_admin_user_with_project_is_admin(self):
        ctx = auth.noauth_context('admin:admin')
        self.assertEqual(['admin'], ctx.roles)

    def test_other_tokens_have_no_roles(self):
        ctx = auth.noauth_context('alice:demo')
        self.assertFalse(ctx.is_admin)
        self.assertEqual([], ctx.roles)
        self.assertEqual(('alice', 'demo'), (ctx.user_id, ctx.project_id))
        self.assertEqual('notused', auth.noauth_context('notused').user_id)

    def test_headers_name_roles_project_and_scope(self):
        app = wsgi_auth.NoAuth(_echo_policy_values, auth.SETTINGS)
        req = webob.Request.blank('/x', headers={
            'X-Auth-Token': 'user', 'X-Roles': 'reader, member',
            'X-Project-Id': 'p1'})
        values = req.get_response(app).json
        self.assertEqual(['reader', 'member'], values['roles'])
        self.assertEqual(('user', 'p1'),
                         (values['user_id'], values['project_id']))
        req = webob.Request.blank('/x', headers={
            'X-Auth-Token': 'user', 'X-Roles': 'admin',
            'OpenStack-System-Scope': 'all'})
        values = req.get_response(app).json
        self.assertEqual(('all', None),
                         (values['system_scope'], values['project_id']))

    def test_middleware(self):
        app = wsgi_auth.NoAuth(_echo_context, auth.SETTINGS)
        req = webob.Request.blank('/x', headers={'X-Auth-Token': 'admin'})
        self.assertEqual(b'admin True', req.get_response(app).body)
        response = webob.Request.blank('/x').get_response(app)
        self.assertEqual(401, response.status_int)
        self.assertEqual(401, response.json['errors'][0]['status'])


def _echo_policy_values(environ, start_response):
    values = environ[auth.CONTEXT_KEY].to_policy_values()
    start_response('200 OK', [('Content-Type', 'application/json')])
    return [json.dumps(dict(values)).encode()]


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
        # Placement's base rule names, which a policy file may override.
        self.assertEqual(['admin_api', 'service_api', 'admin_or_service_api',
                          'project_reader_api',
                          'admin_or_project_reader_or_service_api'],
                         names[:5])
        for rule in rules[5:]:
            self.assertTrue(rule.name.startswith('placement:'))
            self.assertTrue(rule.description)
            self.assertEqual(['project'], rule.scope_types)

    def _allowed(self, token, rule, new_defaults, target=None, **headers):
        flags = self.useFixture(config_fixture.Config(nl_conf.CONF))
        placement_fixture.ensure_parsed(nl_conf.CONF)
        flags.config(group='oslo_policy', enforce_new_defaults=new_defaults)
        policy.reset()
        self.addCleanup(policy.reset)
        enforcer = policy.get_enforcer()
        ctx = auth.noauth_context(token, **headers)
        return enforcer.authorize(rule, target or {}, ctx, do_raise=False)

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

    def test_service_role_under_new_defaults(self):
        self.assertTrue(self._allowed('nova', 'placement:reshaper:reshape',
                                      True, roles=['service']))
        self.assertTrue(self._allowed(
            'nova', 'placement:resource_providers:list', True,
            roles=['service']))

    def test_project_reader_reads_own_usages_only(self):
        reader = dict(roles=['reader'], project_id='p1')
        self.assertTrue(self._allowed('bob', 'placement:usages', True,
                                      {'project_id': 'p1'}, **reader))
        self.assertFalse(self._allowed('bob', 'placement:usages', True,
                                       {'project_id': 'p2'}, **reader))
        # The legacy rules add role:admin to the new ones (oslo.policy
        # accepts either), so they do not take the reader's right away.
        self.assertTrue(self._allowed('bob', 'placement:usages', False,
                                      {'project_id': 'p1'}, **reader))
        self.assertFalse(self._allowed('bob', 'placement:usages', False,
                                       {'project_id': 'p2'}, **reader))

    def test_system_scoped_admin_is_refused(self):
        self.assertFalse(self._allowed(
            'admin', 'placement:resource_providers:list', True,
            roles=['admin'], system_scope='all'))

    def test_authorize_turns_wrong_scope_into_403(self):
        flags = self.useFixture(config_fixture.Config(nl_conf.CONF))
        placement_fixture.ensure_parsed(nl_conf.CONF)
        flags.config(group='oslo_policy', enforce_new_defaults=True)
        policy.reset()
        self.addCleanup(policy.reset)
        ctx = auth.noauth_context('admin', roles=['admin'],
                                  system_scope='all')
        self.assertRaises(webob.exc.HTTPForbidden, policy.authorize, ctx,
                          'placement:resource_providers:list')


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class TestPolicyDecisions(testtools.TestCase):
    """Rules loaded at most once per RELOAD_INTERVAL, decisions
    remembered until then; a changed policy file still read again."""

    RULE = 'placement:resource_providers:list'

    def setUp(self):
        super().setUp()
        self.flags = self.useFixture(config_fixture.Config(nl_conf.CONF))
        placement_fixture.ensure_parsed(nl_conf.CONF)
        policy.reset()
        self.addCleanup(policy.reset)
        self.holder = policy._EnforcerHolder()
        self.clock = _Clock()
        self.ctx = auth.noauth_context('admin')

    def _allowed(self, rule=RULE, ctx=None):
        ctx = ctx or self.ctx
        return self.holder.allowed(
            nl_conf.CONF, rule, {'project_id': ctx.project_id}, ctx,
            clock=self.clock)

    def test_decision_remembered(self):
        enforcer = self.holder.get(nl_conf.CONF)
        self.assertTrue(self._allowed())
        with mock.patch.object(enforcer, 'authorize',
                               wraps=enforcer.authorize) as authorize, \
                mock.patch.object(enforcer, 'load_rules') as load_rules:
            self.assertTrue(self._allowed())
            self.assertFalse(self._allowed(ctx=auth.noauth_context('bob')))
            self.assertFalse(self._allowed(ctx=auth.noauth_context('bob')))
            # bob's decision made once; the admin's was remembered
            self.assertEqual(1, authorize.call_count)
            load_rules.assert_called_once_with()  # by oslo.policy's check
            load_rules.reset_mock()
            self.clock.now += policy.RELOAD_INTERVAL
            self.assertTrue(self._allowed())
            # the rules loaded again, the decision made again
            self.assertTrue(load_rules.called)
            self.assertEqual(2, authorize.call_count)

    def test_changed_policy_file_read_again(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'policy.yaml')
        with open(path, 'w') as f:
            f.write('"%s": "!"\n' % self.RULE)
        self.flags.config(group='oslo_policy', policy_file=path)
        self.assertFalse(self._allowed())
        with open(path, 'w') as f:
            f.write('"%s": "@"\n' % self.RULE)
        later = os.path.getmtime(path) + 10
        os.utime(path, (later, later))
        self.assertFalse(self._allowed())
        self.clock.now += policy.RELOAD_INTERVAL
        self.assertTrue(self._allowed())

    def test_rules_set_directly_forget_decisions(self):
        self.assertTrue(self._allowed())
        self.holder.get(nl_conf.CONF).set_rules(
            oslo_policy.Rules.from_dict({self.RULE: '!'}))
        self.assertFalse(self._allowed())
