"""The functional tests' response check against an OpenAPI document."""

import testtools
import webob

from nova_lite.wsgi import microversion
from nova_lite.wsgi import openapi
from tests.functional import openapi_check

TABLE = microversion.VersionTable(
    'toy', microversion.parse('1.0'), microversion.parse('1.3'), 'toy.v',
    microversion.Messages('bad', 'bad', 'unsupported'))
OLD = {'type': 'object', 'properties': {'a': {'type': 'string'}},
       'required': ['a'], 'additionalProperties': False}
NEW = {'type': 'object', 'properties': {'b': {'type': 'integer'}},
       'required': ['b'], 'additionalProperties': False}


def show(req):
    """GET a thing."""


def delete(req):
    """DELETE a thing."""


DOC = openapi.document(openapi.Service(
    name='toy', title='toy', description='toy',
    routes={'/things/{id}': {'GET': show, 'DELETE': delete}},
    operations={
        show: openapi.Operation(responses={'200': lambda req: (
            NEW if TABLE.of(req) >= (1, 2) else OLD)}),
        delete: openapi.Operation(responses={'204': None})},
    error_schema={'type': 'object', 'required': ['error']},
    versions=openapi.versions_between('1.0', '1.3'), version_table=TABLE))


def _app(status, body, version='1.0'):
    def app(environ, start_response):
        response = webob.Response(status=status)
        if body is not None:
            response.json_body = body
            response.content_type = 'application/json'
        response.headers['OpenStack-API-Version'] = 'toy %s' % version
        return response(environ, start_response)
    return openapi_check.ResponseChecker(app, DOC, 'toy')


def _get(app, path='/things/1', method='GET'):
    return webob.Request.blank(path, method=method).get_response(app)


class TestResponseChecker(testtools.TestCase):

    def test_body_checked_at_the_version_answered(self):
        self.assertEqual(200, _get(_app(200, {'a': 'x'})).status_int)
        self.assertEqual(200, _get(_app(200, {'b': 1}, '1.2')).status_int)
        exc = self.assertRaises(openapi_check.Violation, _get,
                                _app(200, {'a': 'x'}, '1.2'))
        self.assertIn('GET /things/1 -> 200 (version 1.2)', str(exc))

    def test_undocumented_status(self):
        exc = self.assertRaises(openapi_check.Violation, _get,
                                _app(202, None), method='DELETE')
        self.assertIn('status 202 is not among', str(exc))

    def test_body_where_none_is_documented(self):
        self.assertRaises(openapi_check.Violation, _get,
                          _app(204, {'x': 1}), method='DELETE')

    def test_errors_in_the_service_format_even_off_the_routes(self):
        self.assertEqual(404, _get(_app(404, {'error': 'gone'})).status_int)
        self.assertEqual(404, _get(_app(404, {'error': 'no'}),
                                   path='/nothing').status_int)
        self.assertRaises(openapi_check.Violation, _get,
                          _app(404, {'itemNotFound': {}}), path='/nothing')
