"""The OpenAPI generator, driven with a toy service."""

import testtools

from nova_lite.wsgi import microversion
from nova_lite.wsgi import openapi

TABLE = microversion.VersionTable(
    'toy', microversion.parse('1.0'), microversion.parse('1.3'), 'toy.v',
    microversion.Messages('bad', 'bad', 'unsupported'))

OLD = {'type': 'object', 'properties': {'a': {'type': 'string'}}}
NEW = {'type': 'object', 'properties': {'a': {'type': 'string'},
                                        'b': {'type': 'integer'}}}


def _body_schema(req):
    return NEW if TABLE.of(req) >= (1, 2) else OLD


def create(req):
    """POST: make a thing.

    More words."""


def show(req):
    """GET one thing."""


def act(req):
    """POST an action."""


def poke(req):
    """PUT with nothing in the body."""


def old_only(req):
    """GET, before 1.2 only."""


old_only.max_version = '1.1'


def _service(**extra):
    routes = {'/things': {'POST': create},
              '/things/{id}': {'GET': show, 'PUT': poke},
              '/things/{id}/action': {'POST': act},
              '/old': {'GET': old_only}}
    ops = {create: openapi.Operation(body=_body_schema, query=_body_schema),
           show: openapi.Operation(responses={'200': OLD}),
           act: openapi.Operation(actions={'go': OLD, 'stop': _body_schema}),
           poke: openapi.Operation(no_body=True, responses={'204': None})}
    return openapi.Service(
        name='toy', title='toy', description='toy', routes=routes,
        operations=ops, error_schema={'type': 'object'},
        public=frozenset(['/things/{id}']),
        versions=openapi.versions_between('1.0', '1.3'), version_table=TABLE,
        **extra)


class TestDocument(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.doc = openapi.document(_service())

    def test_versioned_body_is_any_of_ranges(self):
        schema = self.doc['paths']['/things']['post']['requestBody'][
            'content']['application/json']['schema']
        self.assertEqual({'discriminator': 'microversion'},
                         schema['x-openstack'])
        self.assertEqual([{'max-ver': '1.1'}, {'min-ver': '1.2'}],
                         [v['x-openstack'] for v in schema['anyOf']])
        self.assertEqual(['a'], list(schema['anyOf'][0]['properties']))

    def test_query_parameter_of_some_versions_says_which(self):
        params = self.doc['paths']['/things']['post']['parameters']
        by_name = {p.get('name'): p for p in params}
        self.assertNotIn('x-openstack', by_name['a'])
        self.assertEqual({'min-ver': '1.2'}, by_name['b']['x-openstack'])
        self.assertEqual({'$ref': '#/components/parameters/microversion'},
                         params[-1])

    def test_actions_are_named(self):
        schema = self.doc['paths']['/things/{id}/action']['post'][
            'requestBody']['content']['application/json']['schema']
        self.assertEqual({'discriminator': 'action'}, schema['x-openstack'])
        self.assertEqual(
            [{'action-name': 'go'},
             {'action-name': 'stop', 'discriminator': 'microversion'}],
            [v['x-openstack'] for v in schema['anyOf']])

    def test_operation_range_from_the_handler_guard(self):
        self.assertEqual({'max-ver': '1.1'},
                         self.doc['paths']['/old']['get']['x-openstack'])
        self.assertNotIn('x-openstack', self.doc['paths']['/things/{id}'][
            'get'])

    def test_missing_is_listed(self):
        self.assertEqual(
            [('/old', 'GET', 'response-body'),
             ('/things', 'POST', 'response-body'),
             ('/things/{id}/action', 'POST', 'response-body')],
            openapi.missing(self.doc))
        self.assertNotIn('requestBody',
                         self.doc['paths']['/things/{id}']['put'])

    def test_path_parameters_public_and_summary(self):
        op = self.doc['paths']['/things/{id}']['get']
        self.assertEqual({'name': 'id', 'in': 'path', 'required': True,
                          'schema': {'type': 'string'}},
                         op['parameters'][0])
        self.assertEqual([], op['security'])
        self.assertNotIn('security', self.doc['paths']['/things']['post'])
        self.assertEqual('POST: make a thing.',
                         self.doc['paths']['/things']['post']['summary'])

    def test_described_is_served(self):
        self.assertEqual(openapi.served(_service().routes),
                         openapi.described(self.doc))

    def test_serving_handler_makes_the_document_once(self):
        made = []

        def make():
            made.append(1)
            return {'openapi': '3.1.0'}
        handler = openapi.serving_handler(make, lambda req, doc: doc)
        self.assertEqual({'openapi': '3.1.0'}, handler(None))
        handler(None)
        self.assertEqual([1], made)
