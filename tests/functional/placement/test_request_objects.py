"""A request through placement's whole pipeline builds one
``webob.Request`` and the handler's response, not two per layer
(``nova_lite.wsgi.layer``); what comes out is as before."""

import fixtures
import webob.request
import webob.response

from tests.functional.placement import statement_case


class TestRequestObjects(statement_case.PlacementStatementTestCase):

    microversion = '1.36'

    def setUp(self):
        super().setUp()
        self.rp = self._new_provider()
        self.built = {'request': 0, 'response': 0}
        self._count(webob.request.BaseRequest, 'request')
        self._count(webob.response.Response, 'response')

    def _count(self, cls, what):
        original = cls.__init__

        def counting(obj, *args, **kwargs):
            self.built[what] += 1
            original(obj, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            '%s.%s.__init__' % (cls.__module__, cls.__name__), counting))

    def _objects(self, method, path, body=None, status=None):
        self.built.update(request=0, response=0)
        answer = self._call(method, path, body, status)
        # The test's own request and the response get_response builds
        # from the application's answer are in the counts.
        return answer, self.built['request'] - 1, self.built['response'] - 1

    def test_success(self):
        answer, requests, responses = self._objects(
            'PUT', '/resource_providers/%s/traits' % self.rp,
            {'resource_provider_generation': 0, 'traits': ['HW_CPU_X86_AVX']})
        self.assertEqual(1, answer['resource_provider_generation'])
        self.assertEqual((1, 1), (requests, responses))

    def test_error(self):
        answer, requests, responses = self._objects(
            'GET', '/resource_providers/%s' % 'nope', status=404)
        self.assertEqual('placement.undefined_code',
                         answer['errors'][0]['code'])
        # webob's HTTPNotFound is a response too; the other is the JSON
        self.assertEqual((1, 2), (requests, responses))
