"""Neutron's standard-attr-tag: tag calls on each taggable collection
(openstacksdk's TagMixin: set_tags, add_tag, check_tag, remove_tag,
remove_all_tags) and the tag filters on lists."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

MEMBER = api_fixtures.MEMBER
OTHER = api_fixtures.OTHER
READER = api_fixtures.READER
N = '/network/v2.0'


class TagsTest(base.NetworkTestCase):

    def make(self, kind, **values):
        path = '/%ss' % kind.replace('_', '-')
        return self.call('POST', path, {kind: values}, status=201)[kind]

    def _resources(self):
        net = self.make('network', name='n')
        subnet = self.make('subnet', network_id=net['id'],
                           cidr='10.0.0.0/24', ip_version=4)
        port = self.make('port', network_id=net['id'])
        group = self.make('security_group', name='g')
        return [('networks', net), ('subnets', subnet), ('ports', port),
                ('security-groups', group)]

    def test_tag_calls_on_every_collection(self):
        for collection, item in self._resources():
            path = '/%s/%s/tags' % (collection, item['id'])
            self.assertEqual({'tags': []}, self.call('GET', path))
            body = self.call('PUT', path, {'tags': ['a', 'b', 'a']})
            self.assertEqual(['a', 'b'], body['tags'])
            self.call('PUT', path + '/c', status=201)
            self.call('GET', path + '/c', status=204)
            missing = self.call('GET', path + '/zz', status=404)
            self.assertEqual('TagNotFound', missing['NeutronError']['type'])
            self.call('DELETE', path + '/a', status=204)
            self.call('DELETE', path + '/a', status=404)
            shown = self.call('GET', '/%s/%s' % (collection, item['id']))
            shown = next(iter(shown.values()))
            self.assertEqual(['b', 'c'], shown['tags'])
            self.assertGreater(shown['revision_number'],
                               item['revision_number'])
            self.call('DELETE', path, status=204)
            self.assertEqual({'tags': []}, self.call('GET', path))

    def test_bad_tags_and_other_projects(self):
        net = self.make('network', name='n')
        path = '/networks/%s/tags' % net['id']
        self.call('PUT', path, {'tags': 'a'}, status=400)
        self.call('PUT', path, {'tags': ['x' * 61]}, status=400)
        self.call('PUT', path + '/' + 'x' * 61, status=400)
        self.call('GET', path, token=OTHER, status=404)
        self.call('PUT', path + '/a', token=OTHER, status=404)
        self.call('PUT', path + '/a', token=READER, status=403)
        self.call('GET', '/networks/nope/tags', status=404)

    def test_list_filters(self):
        nets = {}
        for name, tags in (('ab', ['a', 'b']), ('a', ['a']), ('c', ['c']),
                           ('none', [])):
            net = self.make('network', name=name)
            self.call('PUT', '/networks/%s/tags' % net['id'],
                      {'tags': tags})
            nets[name] = net

        def names(query):
            return {n['name'] for n in self.call(
                'GET', '/networks?' + query)['networks']}

        self.assertEqual({'ab'}, names('tags=a,b'))
        self.assertEqual({'ab', 'a'}, names('tags=a'))
        self.assertEqual({'ab', 'a', 'c'}, names('tags-any=a,c'))
        self.assertEqual({'a', 'c', 'none'}, names('not-tags=a,b'))
        self.assertEqual({'none'}, names('not-tags-any=a,c'))
        self.assertEqual({'ab'}, names('tags=a&tags=b'))

    def test_extension_listed(self):
        aliases = {e['alias'] for e in self.call(
            'GET', '/extensions')['extensions']}
        self.assertIn('standard-attr-tag', aliases)
