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


class TestAtVersion(testtools.TestCase):
    """The document as a client of one microversion sees it."""

    def setUp(self):
        super().setUp()
        self.doc = openapi.document(_service(
            path_params={'id': lambda req: (
                openapi.UUID if TABLE.of(req) >= (1, 2) else
                {'type': 'string'})},
            responses={('GET', '/old'): {'200': OLD}}))

    def _body(self, doc, path, method='post'):
        return doc['paths'][path][method]['requestBody']['content'][
            'application/json']['schema']

    def test_operations_of_other_versions_are_left_out(self):
        self.assertIn('/old', openapi.at_version(self.doc, '1.1')['paths'])
        self.assertNotIn('/old',
                         openapi.at_version(self.doc, '1.2')['paths'])

    def test_each_schema_is_its_version_s_and_the_header_is_gone(self):
        doc = openapi.at_version(self.doc, '1.3')
        self.assertEqual(NEW, self._body(doc, '/things'))
        self.assertNotIn('parameters', doc['components'])
        self.assertEqual(['a', 'b'], sorted(
            p['name'] for p in doc['paths']['/things']['post'][
                'parameters']))
        old = openapi.at_version(self.doc, '1.0')
        self.assertEqual(OLD, self._body(old, '/things'))
        self.assertEqual(['a'], [p['name'] for p in old['paths'][
            '/things']['post']['parameters']])

    def test_a_path_parameter_can_change_with_the_version(self):
        def id_schema(text):
            doc = openapi.at_version(self.doc, text)
            return doc['paths']['/things/{id}']['get']['parameters'][0][
                'schema']
        self.assertEqual({'type': 'string'}, id_schema('1.1'))
        self.assertEqual(openapi.UUID, id_schema('1.2'))

    def test_an_action_body_names_one_known_action(self):
        schema = self._body(openapi.at_version(self.doc, '1.3'),
                            '/things/{id}/action')
        self.assertEqual(('object', 1, 1, {'enum': ['go', 'stop']}),
                         (schema['type'], schema['minProperties'],
                          schema['maxProperties'],
                          schema['propertyNames']))

    def test_per_path_responses_fill_what_the_operation_lacks(self):
        op = self.doc['paths']['/old']['get']
        self.assertNotIn(openapi.MISSING, op)
        self.assertEqual(OLD, op['responses']['200']['content'][
            'application/json']['schema'])


class TestQueryRequired(testtools.TestCase):

    def test_a_parameter_required_at_every_version_is_required(self):
        def lister(req):
            """GET things."""
        query = {'type': 'object', 'required': ['project_id'],
                 'properties': {'project_id': {'type': 'string'},
                                'user_id': {'type': 'string'}}}
        doc = openapi.document(openapi.Service(
            name='q', title='q', description='q',
            routes={'/usages': {'GET': lister}},
            operations={lister: openapi.Operation(
                query=query, responses={'200': OLD})},
            error_schema={'type': 'object'}))
        params = {p['name']: p['required']
                  for p in doc['paths']['/usages']['get']['parameters']}
        self.assertEqual({'project_id': True, 'user_id': False}, params)
