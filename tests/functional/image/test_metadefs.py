"""Metadata definitions under /image/v2/metadefs and their schemas.

The calls openstacksdk's image functional tests make: namespaces (create,
show, list, update, delete), their tags (one, many, appended, all
removed), objects and properties (create, show, list, rename, delete),
resource type associations, and the metadefs schemas; plus the default
namespaces a fresh service has, and who may write.
"""

from tests.functional.image import test_image_api as base

ADMIN, MEMBER = base.ADMIN, base.MEMBER
NS = '/image/v2/metadefs/namespaces'


class MetadefsTestBase(base.ImageAPITestBase):

    def call(self, method, path, body=None, status=200, token=ADMIN,
             headers=None):
        response = self.api.request(method, path, body=body, token=token,
                                    headers=headers)
        self.assertEqual(status, response.status, response)
        return response.body

    def namespace(self, name='ns1', **extra):
        body = dict({'namespace': name}, **extra)
        created = self.call('POST', NS, body, status=201)
        self.assertEqual(name, created['namespace'])
        return created


class TestNamespaces(MetadefsTestBase):

    def test_defaults_are_loaded(self):
        listed = self.call('GET', NS, token=MEMBER)
        names = {n['namespace'] for n in listed['namespaces']}
        for name in ('OS::Glance::CommonImageProperties',
                     'OS::Compute::CPUPinning', 'OS::OperatingSystem',
                     'OS::Compute::Watchdog'):
            self.assertIn(name, names)
        pinning = self.call('GET', NS + '/OS::Compute::CPUPinning',
                            token=MEMBER)
        self.assertEqual(['dedicated', 'shared'], sorted(
            pinning['properties']['cpu_policy']['enum']))
        self.assertTrue(pinning['protected'])
        self.assertIn('hw_', [a.get('prefix') for a in
                              pinning['resource_type_associations']])
        self.call('DELETE', NS + '/OS::Compute::CPUPinning', status=403)
        images = self.call('GET', NS + '?resource_types=OS::Nova::Flavor',
                           token=MEMBER)['namespaces']
        self.assertIn('OS::Compute::CPUPinning',
                      [n['namespace'] for n in images])

    def test_life_cycle(self):
        self.namespace()
        self.call('POST', NS, {'namespace': 'ns1'}, status=409)
        shown = self.call('GET', NS + '/ns1')
        self.assertEqual(('private', False, '/v2/metadefs/namespaces/ns1'),
                         (shown['visibility'], shown['protected'],
                          shown['self']))
        # A private namespace is hidden from other projects.
        self.call('GET', NS + '/ns1', token=MEMBER, status=404)
        updated = self.call('PUT', NS + '/ns1', {
            'namespace': 'ns1', 'display_name': 'A display name',
            'description': 'A description', 'visibility': 'public'})
        self.assertEqual('A display name', updated['display_name'])
        self.assertEqual('A description', self.call(
            'GET', NS + '/ns1', token=MEMBER)['description'])
        self.call('DELETE', NS + '/ns1', status=204)
        self.call('GET', NS + '/ns1', status=404)

    def test_only_admins_write(self):
        self.call('POST', NS, {'namespace': 'x'}, token=MEMBER, status=403)
        self.call('POST', NS, {'display_name': 'x'}, status=400)


class TestParts(MetadefsTestBase):

    def test_tags(self):
        self.namespace()
        tags = NS + '/ns1/tags'
        self.call('POST', tags + '/t1', status=201)
        self.call('POST', tags + '/t2', status=201)
        self.call('POST', tags + '/t2', status=409)
        self.call('DELETE', tags + '/t1', status=204)
        self.assertEqual(['t2'], [t['name'] for t in self.call(
            'GET', NS + '/ns1')['tags']])
        self.call('POST', tags, {'tags': [{'name': 't1'}, {'name': 't2'}]},
                  status=201)
        self.call('POST', tags, {'tags': [{'name': 't3'}, {'name': 't4'}]},
                  status=201, headers={'X-Openstack-Append': 'True'})
        self.assertEqual(['t1', 't2', 't3', 't4'], [
            t['name'] for t in self.call('GET', tags)['tags']])
        self.assertEqual('t5', self.call('PUT', tags + '/t4',
                                         {'name': 't5'})['name'])
        self.call('DELETE', tags, status=204)
        self.assertEqual([], self.call('GET', tags)['tags'])

    def test_objects(self):
        self.namespace()
        objects = NS + '/ns1/objects'
        created = self.call('POST', objects, {'name': 'obj'}, status=201)
        self.assertEqual('/v2/metadefs/namespaces/ns1/objects/obj',
                         created['self'])
        self.assertEqual('obj', self.call('GET', objects + '/obj')['name'])
        self.assertEqual(['obj'], [o['name'] for o in self.call(
            'GET', objects)['objects']])
        renamed = self.call('PUT', objects + '/obj', {
            'name': 'New object name',
            'description': 'New object description'})
        self.assertEqual('New object description', renamed['description'])
        self.call('GET', objects + '/obj', status=404)
        self.call('DELETE', objects + '/New object name', status=204)

    def test_properties(self):
        self.namespace()
        props = NS + '/ns1/properties'
        attrs = {'name': 'port', 'title': 'port', 'type': 'string',
                 'description': 'Web Server port', 'enum': ['80', '443']}
        self.assertEqual(attrs, self.call('POST', props, attrs,
                                          status=201))
        self.assertEqual(attrs, self.call('GET', props + '/port'))
        self.assertIn('port', self.call('GET', props)['properties'])
        attrs['title'] = 'new title'
        self.assertEqual(attrs, self.call('PUT', props + '/port', attrs))
        self.assertEqual('new title',
                         self.call('GET', props + '/port')['title'])
        self.call('POST', props, {'name': 'x', 'type': 'string'},
                  status=400)
        self.call('DELETE', props + '/port', status=204)
        self.call('GET', props + '/port', status=404)

    def test_resource_types(self):
        self.namespace()
        assocs = NS + '/ns1/resource_types'
        created = self.call('POST', assocs, {'name': 'test-resource-type'},
                            status=201)
        self.assertEqual('test-resource-type', created['name'])
        self.assertEqual(['test-resource-type'], [
            a['name'] for a in self.call(
                'GET', assocs)['resource_type_associations']])
        types = [t['name'] for t in self.call(
            'GET', '/image/v2/metadefs/resource_types')['resource_types']]
        self.assertIn('test-resource-type', types)
        self.assertIn('OS::Glance::Image', types)
        self.call('DELETE', assocs + '/test-resource-type', status=204)
        self.call('DELETE', assocs + '/test-resource-type', status=404)


class TestMetadefSchemas(MetadefsTestBase):

    def test_schemas(self):
        for name in ('namespace', 'namespaces', 'object', 'objects',
                     'property', 'properties', 'resource_type',
                     'resource_types', 'tag', 'tags'):
            body = self.call('GET', '/image/v2/schemas/metadefs/' + name,
                             token=MEMBER)
            self.assertIn('properties', body, name)
        self.call('GET', '/image/v2/schemas/metadefs/nope', status=404)


class TestWhatTheSchemasSay(MetadefsTestBase):
    """A namespace, object or property the published schemas refuse is a
    400 and nothing is stored (so no answer breaks those schemas)."""

    def test_nested_parts_with_unknown_keys_are_refused(self):
        for extra in ({'objects': [{'name': 'o', 'colour': 'red'}]},
                      {'tags': [{'name': 't', 'x': 1}]},
                      {'resource_type_associations': [
                          {'name': 'OS::Nova::Server', 'y': []}]},
                      {'properties': {'p': {'title': 't', 'type': 'string',
                                            'operators': 5}}}):
            self.call('POST', NS, dict({'namespace': 'bad'}, **extra),
                      status=400)
        self.call('GET', NS + '/bad', status=404)

    def test_a_property_keyword_of_the_wrong_type_is_refused(self):
        self.namespace()
        self.call('POST', NS + '/ns1/properties', {
            'name': 'p', 'title': 'p', 'type': 'integer',
            'minimum': 'one'}, status=400)
        self.call('GET', NS + '/ns1/properties/p', status=404)

    def test_display_name_and_description_have_glance_s_bounds(self):
        self.namespace(display_name='', description='d' * 500)
        self.call('POST', NS, {'namespace': 'ns2',
                               'display_name': 'n' * 81}, status=400)
