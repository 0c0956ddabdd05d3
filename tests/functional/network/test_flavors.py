"""Neutron's flavors extension: network flavors, service profiles and
the profiles associated with a flavor; who may read and write them."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER


class NetworkFlavorsTest(base.NetworkTestCase):

    def _flavor(self, **values):
        body = dict({'name': 'gold', 'service_type': 'L3_ROUTER_NAT'},
                    **values)
        return self.call('POST', '/flavors', {'flavor': body}, token=ADMIN,
                         status=201)['flavor']

    def _profile(self, **values):
        body = dict({'metainfo': '{"az": "one"}'}, **values)
        return self.call('POST', '/service_profiles', {
            'service_profile': body}, token=ADMIN,
            status=201)['service_profile']

    def test_flavor_lifecycle(self):
        flavor = self._flavor(description='fast', enabled=False)
        self.assertEqual(
            ('gold', 'fast', 'L3_ROUTER_NAT', False, []),
            (flavor['name'], flavor['description'], flavor['service_type'],
             flavor['enabled'], flavor['service_profiles']))
        self.assertTrue(self._flavor(name='silver')['enabled'])
        self.assertEqual('FLAVORS', self._flavor(
            name='meta', service_type='FLAVORS')['service_type'])
        # everyone reads flavors and filters them
        listed = self.call('GET', '/flavors?enabled=false')['flavors']
        self.assertEqual([flavor['id']], [f['id'] for f in listed])
        shown = self.call('GET', '/flavors/%s' % flavor['id'])['flavor']
        self.assertEqual('gold', shown['name'])
        updated = self.call('PUT', '/flavors/%s' % flavor['id'], {
            'flavor': {'name': 'platinum', 'enabled': True}},
            token=ADMIN)['flavor']
        self.assertEqual(('platinum', True, 'L3_ROUTER_NAT'), (
            updated['name'], updated['enabled'], updated['service_type']))
        self.call('DELETE', '/flavors/%s' % flavor['id'], token=ADMIN,
                  status=204)
        self.call('GET', '/flavors/%s' % flavor['id'], status=404)

    def test_flavor_errors(self):
        # admins only write flavors
        self.call('POST', '/flavors', {'flavor': {
            'name': 'x', 'service_type': 'L3_ROUTER_NAT'}}, status=403)
        flavor = self._flavor()
        self.call('PUT', '/flavors/%s' % flavor['id'], {
            'flavor': {'name': 'y'}}, status=403)
        self.call('DELETE', '/flavors/%s' % flavor['id'], status=403)
        # a flavor that does not exist is a 404 before the policy's 403
        self.call('DELETE', '/flavors/%s' % ('0' * 32), status=404)
        # a service the lab does not serve; none at all; a fixed one
        error = self.call('POST', '/flavors', {'flavor': {
            'name': 'lb', 'service_type': 'LOADBALANCERV2'}}, token=ADMIN,
            status=400)
        self.assertEqual('InvalidFlavorServiceType',
                         error['NeutronError']['type'])
        self.call('POST', '/flavors', {'flavor': {'name': 'none'}},
                  token=ADMIN, status=400)
        self.call('PUT', '/flavors/%s' % flavor['id'], {
            'flavor': {'service_type': 'L3_ROUTER_NAT'}}, token=ADMIN,
            status=400)
        self.call('POST', '/flavors', {'flavor': {
            'name': 'x', 'service_type': 'L3_ROUTER_NAT',
            'enabled': 'sometimes'}}, token=ADMIN, status=400)
        missing = self.call('GET', '/flavors/%s' % ('0' * 32), status=404)
        self.assertEqual('FlavorNotFound', missing['NeutronError']['type'])
        names = [f['name'] for f in self.call('GET', '/flavors')['flavors']]
        self.assertEqual(['gold'], names)

    def test_service_profiles(self):
        profile = self._profile(description='d', enabled=False)
        self.assertEqual(('d', '', '{"az": "one"}', False, []), (
            profile['description'], profile['driver'], profile['metainfo'],
            profile['enabled'], profile['flavors']))
        # admins alone see and write them
        self.assertEqual([], self.call('GET', '/service_profiles')[
            'service_profiles'])
        self.call('GET', '/service_profiles/%s' % profile['id'],
                  status=404)
        self.call('POST', '/service_profiles', {'service_profile': {
            'metainfo': 'x'}}, status=403)
        # a profile a member may not see is not found for its writes
        # either (Neutron hides what the caller cannot show), existing or
        # not
        for profile_id in (profile['id'], '0' * 32):
            self.call('PUT', '/service_profiles/%s' % profile_id,
                      {'service_profile': {'enabled': True}}, status=404)
            self.call('DELETE', '/service_profiles/%s' % profile_id,
                      status=404)
        listed = self.call('GET', '/service_profiles', token=ADMIN)
        self.assertEqual([profile['id']], [
            p['id'] for p in listed['service_profiles']])
        updated = self.call('PUT', '/service_profiles/%s' % profile['id'],
                            {'service_profile': {'enabled': True}},
                            token=ADMIN)['service_profile']
        self.assertTrue(updated['enabled'])
        # neither driver nor metainfo; a driver the lab has not loaded
        empty = self.call('POST', '/service_profiles', {
            'service_profile': {'description': 'nothing'}}, token=ADMIN,
            status=400)
        self.assertEqual('ServiceProfileEmpty',
                         empty['NeutronError']['type'])
        self.call('POST', '/service_profiles', {'service_profile': {
            'driver': 'some.Driver'}}, token=ADMIN, status=404)
        # a driver of the service providers' (the L3 ones)
        driver = ('neutron.services.l3_router.service_providers.ha.'
                  'HaDriver')
        with_driver = self.call('POST', '/service_profiles', {
            'service_profile': {'driver': driver}}, token=ADMIN,
            status=201)['service_profile']
        self.assertEqual((driver, ''), (with_driver['driver'],
                                        with_driver['metainfo']))
        self.call('DELETE', '/service_profiles/%s' % profile['id'],
                  token=ADMIN, status=204)
        self.call('DELETE', '/service_profiles/%s' % profile['id'],
                  token=ADMIN, status=404)

    def test_associate_profiles_with_flavor(self):
        flavor = self._flavor()
        profile = self._profile()
        path = '/flavors/%s/service_profiles' % flavor['id']
        made = self.call('POST', path, {'service_profile': {
            'id': profile['id']}}, token=ADMIN, status=201)
        self.assertEqual({'service_profile': {'id': profile['id']}}, made)
        shown = self.call('GET', '/flavors/%s' % flavor['id'])['flavor']
        self.assertEqual([profile['id']], shown['service_profiles'])
        seen = self.call('GET', '/service_profiles/%s' % profile['id'],
                         token=ADMIN)['service_profile']
        self.assertEqual([flavor['id']], seen['flavors'])
        self.call('GET', '%s/%s' % (path, profile['id']), token=ADMIN)
        # twice; by a member; a profile or flavor that is not there
        self.call('POST', path, {'service_profile': {'id': profile['id']}},
                  token=ADMIN, status=409)
        self.call('POST', path, {'service_profile': {'id': profile['id']}},
                  status=403)
        self.call('POST', path, {'service_profile': {'id': '0' * 32}},
                  token=ADMIN, status=404)
        self.call('POST', '/flavors/%s/service_profiles' % ('0' * 32), {
            'service_profile': {'id': profile['id']}}, token=ADMIN,
            status=404)
        self.call('POST', path, {'service_profile': {}}, token=ADMIN,
                  status=400)
        # an associated profile is in use
        self.call('PUT', '/service_profiles/%s' % profile['id'], {
            'service_profile': {'enabled': False}}, token=ADMIN, status=409)
        self.call('DELETE', '/service_profiles/%s' % profile['id'],
                  token=ADMIN, status=409)
        self.call('DELETE', '%s/%s' % (path, profile['id']), token=ADMIN,
                  status=204)
        self.call('DELETE', '%s/%s' % (path, profile['id']), token=ADMIN,
                  status=404)
        shown = self.call('GET', '/flavors/%s' % flavor['id'])['flavor']
        self.assertEqual([], shown['service_profiles'])
        self.call('DELETE', '/service_profiles/%s' % profile['id'],
                  token=ADMIN, status=204)

    def test_extension_listed(self):
        aliases = [e['alias'] for e in self.call('GET', '/extensions')[
            'extensions']]
        self.assertIn('flavors', aliases)
        self.assertIn('default-subnetpools', aliases)
