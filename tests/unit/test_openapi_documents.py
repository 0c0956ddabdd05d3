"""Each service's OpenAPI document: valid OpenAPI 3.1, and exactly what
its route table serves."""

import openapi_spec_validator
import testtools

from nova_lite.api import deploy
from nova_lite.api import openapi as api_openapi
from nova_lite.api import router as api_router
from nova_lite.image import openapi as image_openapi
from nova_lite.image import router as image_router
from nova_lite.network import openapi as network_openapi
from nova_lite.network import router as network_router
from nova_lite.placement import handler as placement_handler
from nova_lite.placement import openapi as placement_openapi
from nova_lite.wsgi import openapi
from nova_lite.wsgi import router as wsgi_router

# service -> (its route table, its document module)
SERVICES = {
    'compute': (api_router.ROUTE_DECLARATIONS, api_openapi),
    'image': (image_router.ROUTES, image_openapi),
    'network': (network_router.ROUTES, network_openapi),
    'placement': (placement_handler.ROUTE_DECLARATIONS, placement_openapi),
}


def _concrete(path):
    """``path`` with a sample value in each parameter."""
    return openapi._PARAM.sub('x1', path)


class TestDocuments(testtools.TestCase):

    def _document(self, name):
        routes, module = SERVICES[name]
        return routes, module.document(routes)

    def test_valid_openapi_3_1(self):
        for name in SERVICES:
            routes, doc = self._document(name)
            self.assertEqual('3.1.0', doc['openapi'])
            openapi_spec_validator.validate(doc)

    def test_every_route_described_and_nothing_else(self):
        for name in SERVICES:
            routes, doc = self._document(name)
            served = openapi.served(routes, healthcheck=name in (
                'compute', 'placement'))
            described = openapi.described(doc)
            self.assertEqual(set(), served - described,
                             '%s serves routes its document lacks' % name)
            self.assertEqual(set(), described - served,
                             '%s describes routes it does not serve'
                             % name)

    def test_a_described_path_reaches_its_own_route(self):
        # A literal path (/servers/detail) declared after a template that
        # swallows it (/servers/{server_id}) would be described but never
        # served.
        for name in SERVICES:
            routes, doc = self._document(name)
            mapper = wsgi_router.make_map(routes)
            for path in set(doc['paths']) - {'/healthcheck'}:
                match = mapper.match(_concrete(path))
                self.assertIsNotNone(match, path)
                self.assertEqual(path, match['route_path'])

    def test_the_api_process_serves_what_its_documents_describe(self):
        described = set()
        for make in deploy.OPENAPI_DOCUMENTS.values():
            described |= openapi.described(make())
        self.assertEqual(openapi.served(deploy.ROUTE_DECLARATIONS,
                                        healthcheck=True), described)

    def test_no_operation_for_a_handler_not_routed(self):
        for name in SERVICES:
            routes, module = SERVICES[name]
            handlers = {h for methods in routes.values()
                        for h in methods.values()}
            self.assertEqual(set(), set(module.OPERATIONS) - handlers, name)

    def test_placement_and_compute_describe_their_microversions(self):
        for name, first, last in (('compute', '2.1', '2.100'),
                                  ('placement', '1.0', '1.39')):
            routes, doc = self._document(name)
            header = doc['components']['parameters']['microversion']
            self.assertEqual('OpenStack-API-Version', header['name'])
            self.assertIn('%s to %s' % (first, last), header['description'])
            self.assertEqual(last, doc['info']['version'])

    def test_compute_request_bodies_all_have_schemas(self):
        routes, doc = self._document('compute')
        self.assertEqual([], [m for m in openapi.missing(doc)
                              if m[2] == 'request-body'])

    def test_every_operation_describes_its_success_response(self):
        # A success with no body is said as such ({'204': None}); an
        # operation with no response at all is marked missing.
        for name in SERVICES:
            routes, doc = self._document(name)
            self.assertEqual([], [m for m in openapi.missing(doc)
                                  if m[2] == 'response-body'], name)

    def test_network_request_bodies_all_have_schemas(self):
        routes, doc = self._document('network')
        self.assertEqual([], openapi.missing(doc))

    def test_per_path_schemas_name_served_routes_only(self):
        for name in SERVICES:
            routes, module = SERVICES[name]
            service = module.service(routes)
            served = openapi.served(routes)
            for table in (service.responses, service.bodies):
                self.assertEqual(set(), {(p, m) for m, p in table or {}}
                                 - served, name)
