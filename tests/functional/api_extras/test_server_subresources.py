"""Server metadata, tags and password, and /extensions, as a Nova user
sees them (all services in one process)."""

from nova_lite import conf as nl_conf
from tests.functional import test_servers


class ServerSubresourceBase(test_servers.ServersTestBase):

    COMPUTES = ('host1',)

    def setUp(self):
        super().setUp()
        self.server = self.boot('ACTIVE')
        self.sid = self.server['id']


class ServerMetadataTest(ServerSubresourceBase):

    def path(self, key=None):
        base = '/servers/%s/metadata' % self.sid
        return base if key is None else '%s/%s' % (base, key)

    def test_set_merge_show_delete(self):
        r = self.api.put(self.path(), {'metadata': {'a': '1', 'b': '2'}})
        self.assertEqual((200, {'metadata': {'a': '1', 'b': '2'}}),
                         (r.status, r.body))
        r = self.api.post(self.path(), {'metadata': {'b': '3', 'c': '4'}})
        self.assertEqual({'a': '1', 'b': '3', 'c': '4'}, r.body['metadata'])
        r = self.api.put(self.path('d'), {'meta': {'d': '5'}})
        self.assertEqual((200, {'meta': {'d': '5'}}), (r.status, r.body))
        self.assertEqual({'meta': {'c': '4'}},
                         self.api.get(self.path('c')).body)
        self.assertEqual(204, self.api.delete(self.path('a')).status)
        self.assertEqual(404, self.api.delete(self.path('a')).status)
        self.assertEqual(404, self.api.get(self.path('a')).status)
        self.assertEqual({'b': '3', 'c': '4', 'd': '5'},
                         self.api.get(self.path()).body['metadata'])
        self.assertEqual({'b': '3', 'c': '4', 'd': '5'},
                         self.cloud.get_server(self.sid)['metadata'])
        # PUT replaces everything.
        r = self.api.put(self.path(), {'metadata': {}})
        self.assertEqual({}, r.body['metadata'])

    def test_bad_requests(self):
        r = self.api.put(self.path('x'), {'meta': {'y': '1'}})
        self.assertEqual(400, r.status)
        self.assertIn('Request body and URI mismatch', r.text)
        r = self.api.put(self.path('x'), {'meta': {'x': '1', 'z': '2'}})
        self.assertEqual(400, r.status)
        r = self.api.post(self.path(), {'metadata': {'k': 'v' * 256}})
        self.assertEqual(400, r.status)
        r = self.api.post(self.path(), {'metadata': {'k' * 256: 'v'}})
        self.assertEqual(400, r.status)
        r = self.api.post(self.path(), {'meta': {}})
        self.assertEqual(400, r.status)
        self.assertEqual({}, self.api.get(self.path()).body['metadata'])

    def test_over_quota_is_403(self):
        self.cloud.conf.flags(metadata_items=2, group='quota')
        r = self.api.post(self.path(), {'metadata': {
            'a': '1', 'b': '2', 'c': '3'}})
        self.assertEqual(403, r.status, r)
        self.assertIn('metadata', r.text)
        self.assertEqual({}, self.api.get(self.path()).body['metadata'])

    def test_locked_or_unknown(self):
        self.assertEqual(404, self.api.get(
            '/servers/%s/metadata' % ('0' * 8 + '-0000-0000-0000-' +
                                      '0' * 12)).status)
        self.admin_api.post('/servers/%s/action' % self.sid, {'lock': None})
        r = self.api.post(self.path(), {'metadata': {'a': '1'}})
        self.assertEqual(409, r.status)
        r = self.admin_api.post(self.path(), {'metadata': {'a': '1'}})
        self.assertEqual(200, r.status)

    def test_other_project_sees_404(self):
        r = self.api.get(self.path(), token='eve:other-project')
        self.assertEqual(404, r.status)


class ServerTagsTest(ServerSubresourceBase):

    def path(self, tag=None):
        base = '/servers/%s/tags' % self.sid
        return base if tag is None else '%s/%s' % (base, tag)

    def test_tags_lifecycle(self):
        self.assertEqual({'tags': []}, self.api.get(self.path()).body)
        r = self.api.put(self.path('red'))
        self.assertEqual(201, r.status)
        self.assertTrue(r.headers['Location'].endswith(
            '/v2.1/servers/%s/tags/red' % self.sid))
        self.assertEqual(204, self.api.put(self.path('red')).status)
        self.assertEqual(204, self.api.get(self.path('red')).status)
        self.assertEqual(404, self.api.get(self.path('blue')).status)
        r = self.api.put(self.path(), {'tags': ['a', 'b', 'a']})
        self.assertEqual((200, {'tags': ['a', 'b']}), (r.status, r.body))
        self.assertEqual(['a', 'b'],
                         self.cloud.get_server(self.sid)['tags'])
        self.assertEqual(204, self.api.delete(self.path('a')).status)
        self.assertEqual(404, self.api.delete(self.path('a')).status)
        self.assertEqual(204, self.api.delete(self.path()).status)
        self.assertEqual({'tags': []}, self.api.get(self.path()).body)

    def test_limits_and_validation(self):
        self.assertEqual(400, self.api.put(self.path('a,b')).status)
        self.assertEqual(400, self.api.put(self.path('x' * 61)).status)
        self.assertEqual(400, self.api.put(
            self.path(), {'tags': ['x/y']}).status)
        self.assertEqual(400, self.api.put(
            self.path(), {'tags': ['t%d' % i for i in range(51)]}).status)
        tags = ['t%d' % i for i in range(50)]
        self.assertEqual(200, self.api.put(self.path(),
                                           {'tags': tags}).status)
        r = self.api.put(self.path('one-more'))
        self.assertEqual(400, r.status)
        self.assertIn('per-server limit 50', r.text)

    def test_not_served_before_2_26(self):
        self.assertEqual(404, self.api.get(self.path(),
                                           version='2.25').status)
        server = self.api.get('/servers/%s' % self.sid,
                              version='2.25').body['server']
        self.assertNotIn('tags', server)

    def test_list_filters(self):
        other = self.boot('ACTIVE', name='other')['id']
        self.api.put(self.path(), {'tags': ['a', 'b']})
        self.api.put('/servers/%s/tags' % other, {'tags': ['b', 'c']})

        def ids(query):
            r = self.api.get('/servers?' + query)
            self.assertEqual(200, r.status, r)
            return sorted(s['id'] for s in r.body['servers'])

        self.assertEqual([self.sid], ids('tags=a,b'))
        self.assertEqual(sorted([self.sid, other]), ids('tags=b'))
        self.assertEqual(sorted([self.sid, other]), ids('tags-any=a,c'))
        self.assertEqual([other], ids('not-tags=a,b'))
        self.assertEqual([], ids('not-tags-any=a,c'))
        self.assertEqual([self.sid], ids('not-tags-any=c'))


class ServerTagsAtCreateTest(test_servers.ServersTestBase):
    """2.52: tags given in POST /servers."""

    COMPUTES = ('host1',)

    def test_tags_given_at_create(self):
        server = self.boot('ACTIVE', tags=['a', 'b', 'a'])
        self.assertEqual(['a', 'b'], server['tags'])
        self.assertEqual({'tags': ['a', 'b']}, self.api.get(
            '/servers/%s/tags' % server['id']).body)
        listed = self.api.get('/servers?tags=b').body['servers']
        self.assertEqual([server['id']], [s['id'] for s in listed])

    def test_bad_tags_or_before_2_52(self):
        body = {'server': {'name': 's', 'flavorRef': '1',
                           'imageRef': self.server_image(),
                           'networks': 'none', 'tags': ['ok']}}
        self.assertEqual(400, self.api.post('/servers', body,
                                            version='2.51').status)
        for bad in (['x/y'], [''], ['t%d' % i for i in range(51)], 'a'):
            body['server']['tags'] = bad
            self.assertEqual(400, self.api.post('/servers', body).status,
                             bad)
        self.assertEqual([], self.api.get('/servers').body['servers'])

    @staticmethod
    def server_image():
        return nl_conf.CONF.image_catalog.default_image_uuid


class ServerPasswordTest(ServerSubresourceBase):

    def test_empty_then_cleared(self):
        path = '/servers/%s/os-server-password' % self.sid
        self.assertEqual({'password': ''}, self.api.get(path).body)
        self.assertEqual(204, self.api.delete(path).status)
        self.assertEqual({'password': ''}, self.api.get(path).body)


class ExtensionsTest(test_servers.ServersTestBase):

    COMPUTES = ()

    def test_list_and_show(self):
        r = self.api.get('/extensions')
        self.assertEqual(200, r.status)
        aliases = [e['alias'] for e in r.body['extensions']]
        self.assertIn('os-server-password', aliases)
        self.assertEqual(set(['alias', 'name', 'links', 'description',
                              'namespace', 'updated']),
                         set(r.body['extensions'][0]))
        r = self.api.get('/extensions/os-server-password')
        self.assertEqual('ServerPassword', r.body['extension']['name'])
        self.assertEqual(404, self.api.get('/extensions/nope').status)
