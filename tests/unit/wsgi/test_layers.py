"""The shared web layers, driven with a toy error format."""

import os

import bcrypt
import fixtures
from oslo_db import exception as db_exc
import testtools
import webob
import webob.exc

from nova_lite import context as nl_context
from nova_lite.wsgi import auth
from nova_lite.wsgi import faults
from nova_lite.wsgi import microversion
from nova_lite.wsgi import router


class _Errors(faults.ErrorFormat):
    bad_utf8 = 'bad bytes'
    db_unavailable = 'no db'

    def render(self, req, exc):
        response = webob.Response(status=exc.code, json_body={
            'toy': str(exc.detail or exc.explanation)})
        for key in ('Allow', 'WWW-Authenticate'):
            if key in exc.headers:
                response.headers[key] = exc.headers[key]
        return response

    def method_not_allowed(self, method):
        return 'no %s' % method

    def internal_message(self, request_id, exc):
        return 'oops'

    def render_exception(self, req, exc):
        if isinstance(exc, KeyError):
            return self.render(req, webob.exc.HTTPNotFound('missing'))
        return None


ERRORS = _Errors()


def _ok(req):
    return webob.Response(json_body={'ok': req.method})


class TestVersionTable(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.table = microversion.VersionTable(
            'toy', microversion.parse('1.0'), microversion.parse('1.5'),
            'toy.version', microversion.Messages(
                bad_header='header {text}', bad_format='format {text}',
                unsupported='{text} not in {min}-{max}'),
            legacy_header='X-Toy-Version', vary='both')

    def _environ(self, **headers):
        return webob.Request.blank('/', headers=headers).environ

    def test_extract_and_messages(self):
        self.assertEqual((1, 0), self.table.extract(self._environ()))
        self.assertEqual((1, 5), self.table.extract(self._environ(
            **{'OpenStack-API-Version': 'toy latest'})))
        self.assertEqual((1, 2), self.table.extract(self._environ(
            **{'X-Toy-Version': '1.2'})))
        exc = self.assertRaises(
            webob.exc.HTTPNotAcceptable, self.table.extract,
            self._environ(**{'OpenStack-API-Version': 'toy 1.6'}))
        self.assertEqual('1.6 not in 1.0-1.5', exc.detail)
        exc = self.assertRaises(
            webob.exc.HTTPBadRequest, self.table.extract,
            self._environ(**{'OpenStack-API-Version': 'toy 1.x'}))
        self.assertEqual('format 1.x', exc.detail)

    def test_response_headers(self):
        self.assertEqual({'OpenStack-API-Version': 'toy 1.2',
                          'X-Toy-Version': '1.2', 'Vary': 'both'},
                         self.table.response_headers((1, 2)))

    def test_middleware_decorates_errors_with_the_minimum(self):
        app = microversion.MicroversionMiddleware(_ok, self.table, ERRORS)
        req = webob.Request.blank('/', headers={
            'OpenStack-API-Version': 'toy 9.0'})
        response = req.get_response(app)
        self.assertEqual(406, response.status_int)
        self.assertEqual('toy 1.0', response.headers['OpenStack-API-Version'])


class TestRouter(testtools.TestCase):
    TABLE = {'/things': {'GET': _ok, 'POST': _ok}}

    def test_strict_and_lenient(self):
        strict = router.Router(self.TABLE, ERRORS)
        lenient = router.Router(self.TABLE, ERRORS, lenient=True)
        for app, slash, head in ((strict, 404, 405), (lenient, 200, 200)):
            self.assertEqual(slash, webob.Request.blank(
                '/things/').get_response(app).status_int)
            self.assertEqual(head, webob.Request.blank(
                '/things', method='HEAD').get_response(app).status_int)

    def test_405_names_allowed_methods(self):
        response = webob.Request.blank(
            '/things', method='DELETE').get_response(
                router.Router(self.TABLE, ERRORS))
        self.assertEqual(405, response.status_int)
        self.assertEqual('GET, POST', response.headers['Allow'])
        self.assertEqual({'toy': 'no DELETE'}, response.json)

    def test_domain_errors_mapped_in_the_router(self):
        def broken(req):
            raise ValueError('v')
        table = {'/x': {'GET': broken}}
        app = router.Router(table, ERRORS, domain_errors=lambda exc: (
            webob.exc.HTTPConflict('mapped')
            if isinstance(exc, ValueError) else None))
        response = webob.Request.blank('/x').get_response(app)
        self.assertEqual((409, {'toy': 'mapped'}),
                         (response.status_int, response.json))
        self.assertRaises(ValueError, webob.Request.blank('/x').get_response,
                          router.Router(table, ERRORS))


    def test_a_value_the_database_cannot_store_is_a_400(self):
        # MariaDB: a text longer than its column, or with characters its
        # charset cannot hold (a 500 before).
        def store(req):
            raise db_exc.DBDataError(ValueError('Data too long'))
        app = router.Router({'/x': {'PUT': store}}, ERRORS)
        response = webob.Request.blank('/x', method='PUT').get_response(
            app)
        self.assertEqual((400, {'toy': router.NOT_STORABLE}),
                         (response.status_int, response.json))


class TestFaultWrapper(testtools.TestCase):
    def _get(self, exc):
        def app(environ, start_response):
            raise exc
        return webob.Request.blank('/').get_response(
            faults.FaultWrapper(app, ERRORS))

    def test_known_unknown_and_http(self):
        self.assertEqual(404, self._get(KeyError('k')).status_int)
        response = self._get(RuntimeError('secret'))
        self.assertEqual((500, {'toy': 'oops'}),
                         (response.status_int, response.json))
        self.assertEqual(409, self._get(webob.exc.HTTPConflict()).status_int)


def _echo(req_environ, start_response):
    ctx = req_environ['toy.context']
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [('%s %s %s %s' % (ctx.user_id, ctx.project_id,
                              ','.join(ctx.roles), ctx.is_admin)).encode()]


def _settings(member_roles=()):
    return auth.AuthSettings(
        conf_group='toy', context_key='toy.context', realm='toy',
        missing_token='token please',
        noauth_context=lambda token, req: nl_context.RequestContext(
            user_id=token),
        is_public=lambda environ: environ['PATH_INFO'] == '/',
        errors=ERRORS, member_roles=member_roles)


class TestAuth(testtools.TestCase):
    def test_noauth_missing_token_in_the_service_format(self):
        response = webob.Request.blank('/x').get_response(
            auth.NoAuth(_echo, _settings()))
        self.assertEqual((401, {'toy': 'token please'}),
                         (response.status_int, response.json))

    def test_identity_headers_with_and_without_member_defaults(self):
        headers = {'X-User': 'ann'}
        plain = auth.ContextFromHeaders(_echo, _settings(), ['boss'])
        members = auth.ContextFromHeaders(_echo, _settings(('m', 'r')),
                                          ['ann'])
        self.assertEqual(b'ann None  False', webob.Request.blank(
            '/', headers=headers).get_response(plain).body)
        self.assertEqual(b'ann ann admin,m,r True', webob.Request.blank(
            '/', headers=headers).get_response(members).body)

    def test_http_basic_errors_of_the_app_are_not_401(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'htpasswd')
        with open(path, 'w') as f:
            f.write('ann:%s\n' % bcrypt.hashpw(b'pw', bcrypt.gensalt(4))
                    .decode())

        def broken(environ, start_response):
            raise RuntimeError('secret')
        app = faults.FaultWrapper(auth.HttpBasic(broken, _settings(), path),
                                  ERRORS)
        response = webob.Request.blank('/', headers={
            'Authorization': 'Basic YW5uOnB3'}).get_response(app)
        self.assertEqual(500, response.status_int)
        response = webob.Request.blank('/', headers={
            'Authorization': 'Basic YW5uOng='}).get_response(app)
        self.assertEqual(401, response.status_int)
        self.assertEqual('Basic realm="toy"',
                         response.headers['WWW-Authenticate'])
