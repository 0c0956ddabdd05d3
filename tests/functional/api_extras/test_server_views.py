"""Fields of a server's view that depend on its state, as Nova shows
them (all services in one process)."""

from oslo_policy import policy as oslo_policy

from nova_lite.api import policies
from nova_lite import context as nl_context
from nova_lite.db.api import api as db_api
from nova_lite.api import policy
from tests.functional.api_extras import test_server_subresources as base


class ProgressTest(base.ServerSubresourceBase):

    def test_shown_while_active_hidden_when_stopped(self):
        # Nova shows ``progress`` (0 unless a move reports some) only for
        # ACTIVE, BUILD, REBUILD, RESIZE, VERIFY_RESIZE and MIGRATING.
        server = self.api.get('/servers/%s' % self.sid).body['server']
        self.assertEqual(0, server['progress'])
        self.api.post('/servers/%s/action' % self.sid, {'os-stop': None})
        self.cloud.wait_for_server(self.sid, 'SHUTOFF')
        server = self.api.get('/servers/%s' % self.sid).body['server']
        self.assertNotIn('progress', server)
        listed = self.api.get('/servers/detail').body['servers']
        self.assertNotIn('progress', listed[0])


class DescriptionTest(base.ServerSubresourceBase):

    def test_created_below_2_19_the_name_is_the_description(self):
        r = self.api.post('/servers', {'server': {
            'name': 'old-client', 'flavorRef': '1',
            'imageRef': self.server['image']['id']}}, version='2.18')
        self.assertEqual(202, r.status, r)
        server = self.api.get('/servers/%s' % r.body['server']['id'],
                              version='2.19').body['server']
        self.assertEqual('old-client', server['description'])
        mine = self.api.get('/servers/%s' % self.sid,
                            version='2.19').body['server']
        self.assertIsNone(mine['description'])


class TrustedCertsPolicyTest(base.ServerSubresourceBase):

    def setUp(self):
        super().setUp()
        self.addCleanup(policy.reset)
        policy.get_enforcer().set_rules(oslo_policy.Rules.from_dict({
            policies.P + 'servers:create:trusted_certs': '!',
            policies.P + 'servers:rebuild:trusted_certs': '!'}),
            overwrite=False, use_conf=False)

    def test_certificates_need_their_own_rules(self):
        image = self.server['image']['id']
        certs = {'trusted_image_certificates': ['cert-1']}
        r = self.api.post('/servers', {'server': dict(
            certs, name='s', flavorRef='1', imageRef=image,
            networks='none')}, version='2.63')
        self.assertEqual(403, r.status, r)
        r = self.api.post('/servers/%s/action' % self.sid, {
            'rebuild': dict(certs, imageRef=image)}, version='2.63')
        self.assertEqual(403, r.status, r)
        # Without certificates the rules are not consulted.
        r = self.api.post('/servers', {'server': {
            'name': 's', 'flavorRef': '1', 'imageRef': image,
            'networks': 'none'}}, version='2.63')
        self.assertEqual(202, r.status, r)


class DisabledFlavorTest(base.ServerSubresourceBase):

    def test_a_disabled_flavor_is_not_found(self):
        r = self.admin_api.post('/flavors', {'flavor': {
            'name': 'retired', 'ram': 256, 'vcpus': 1, 'disk': 1,
            'id': 'retired'}})
        self.assertEqual(200, r.status, r)
        row = db_api.flavor_update(nl_context.get_admin_context(),
                                   'retired', {'disabled': True})
        image = self.server['image']['id']
        r = self.api.post('/servers', {'server': {
            'name': 's', 'flavorRef': 'retired', 'imageRef': image,
            'networks': 'none'}})
        # Nova's message at create names the flavor's internal id.
        self.assertEqual(400, r.status, r)
        self.assertIn('Flavor %s could not be found.' % row.id, r.text)
        r = self.api.post('/servers/%s/action' % self.sid,
                          {'resize': {'flavorRef': 'retired'}})
        self.assertEqual(400, r.status, r)
        self.assertIn('Flavor retired could not be found.', r.text)


class FlavorFitsImageTest(base.ServerSubresourceBase):

    def create(self, flavor='1'):
        return self.api.post('/servers', {'server': {
            'name': 's', 'flavorRef': flavor,
            'imageRef': self.server['image']['id'], 'networks': 'none'}})

    def rebuild(self):
        return self.api.post('/servers/%s/action' % self.sid, {
            'rebuild': {'imageRef': self.server['image']['id']}})

    def test_image_min_ram_above_the_flavor_memory(self):
        self.cloud.conf.flags(default_image_min_ram=1024,
                              group='image_catalog')
        for r in (self.create(), self.rebuild()):
            self.assertEqual(400, r.status, r)
            self.assertIn("Flavor's memory is too small for requested "
                          "image.", r.text)
        self.assertEqual(202, self.create(flavor='2').status)

    def test_image_min_disk_and_size_above_the_root_disk(self):
        self.cloud.conf.flags(default_image_min_disk=2,
                              group='image_catalog')
        r = self.create()
        self.assertEqual(400, r.status, r)
        self.assertIn('Flavor disk is 1073741824 bytes, minimum size is '
                      '2147483648 bytes.', r.text)
        self.cloud.conf.flags(default_image_min_disk=0,
                              default_image_size=2 * 1024 ** 3,
                              group='image_catalog')
        r = self.rebuild()
        self.assertEqual(400, r.status, r)
        self.assertIn("Flavor's disk is too small for requested image.",
                      r.text)


class RebuildAnswerTest(base.ServerSubresourceBase):

    def test_admin_sees_user_data_only_at_the_top_level(self):
        r = self.admin_api.post('/servers/%s/action' % self.sid, {
            'rebuild': {'imageRef': self.server['image']['id']}},
            version='2.75')
        self.assertEqual(202, r.status, r)
        self.assertIn('OS-EXT-SRV-ATTR:host', r.body['server'])
        self.assertNotIn('OS-EXT-SRV-ATTR:user_data', r.body['server'])
        self.assertIn('user_data', r.body['server'])


class ResizeQuotaTest(base.ServerSubresourceBase):

    def test_what_the_new_flavor_adds_must_fit(self):
        self.cloud.conf.flags(cores=1, group='quota')
        r = self.api.post('/servers/%s/action' % self.sid,
                          {'resize': {'flavorRef': '3'}})
        self.assertEqual(403, r.status, r)
        self.assertIn('Quota exceeded for cores: Requested 1, but already '
                      'used 1 of 1 cores', r.text)
        self.cloud.conf.flags(cores=-1, ram=1024, group='quota')
        r = self.api.post('/servers/%s/action' % self.sid,
                          {'resize': {'flavorRef': '2'}})
        self.assertEqual(403, r.status, r)
        self.assertIn('Quota exceeded for ram', r.text)
        self.assertEqual('ACTIVE', self.cloud.get_server(self.sid)['status'])


class AccessAddressTest(base.ServerSubresourceBase):

    def test_shown_in_canonical_form(self):
        r = self.api.post('/servers', {'server': {
            'name': 's', 'flavorRef': '1', 'networks': 'none',
            'imageRef': self.server['image']['id'],
            'accessIPv4': '1.1.1.1',
            'accessIPv6': '0000:0000:0000:0000:0000:babe:220.12.22.2'}})
        self.assertEqual(202, r.status, r)
        server = self.api.get('/servers/%s' % r.body['server']['id'])
        self.assertEqual('::babe:dc0c:1602',
                         server.body['server']['accessIPv6'])
        self.assertEqual('1.1.1.1', server.body['server']['accessIPv4'])


class NetworkAdminActionsTest(base.ServerSubresourceBase):

    def test_inject_network_info_admins_only_reset_network_gone(self):
        path = '/servers/%s/action' % self.sid
        body = {'injectNetworkInfo': None}
        self.assertEqual(403, self.api.post(path, body).status)
        self.assertEqual(202, self.admin_api.post(path, body).status)
        self.assertEqual(410, self.admin_api.post(
            path, {'resetNetwork': None}).status)


class ViewPolicyChecksTest(base.ServerSubresourceBase):
    """The view's rules on the caller (extended attributes, host status,
    flavor extra specs) are checked once per request, not per server."""

    def _checked(self, path, api):
        enforcer = policy.get_enforcer()
        real = enforcer.authorize
        rules = []

        def recorded(rule, *args, **kwargs):
            rules.append(rule)
            return real(rule, *args, **kwargs)
        enforcer.authorize = recorded
        self.addCleanup(setattr, enforcer, 'authorize', real)
        try:
            response = api.get(path)
        finally:
            enforcer.authorize = real
        return response, rules

    def test_a_listing_checks_each_view_rule_once(self):
        r = self.api.post('/servers', {'server': {
            'name': 'second', 'flavorRef': '1',
            'imageRef': self.server['image']['id'], 'networks': 'none'}})
        self.assertEqual(202, r.status, r)
        self.cloud.wait_for_server(r.body['server']['id'], 'ACTIVE')
        for api, admin in ((self.api, False), (self.cloud.admin_api, True)):
            response, rules = self._checked(
                '/servers/detail?all_tenants=1' if admin else
                '/servers/detail', api)
            servers = response.body['servers']
            self.assertEqual(2, len(servers))
            for rule in ('os-extended-server-attributes',
                         'servers:show:host_status',
                         'os-flavor-extra-specs:index'):
                self.assertEqual(1, rules.count(policies.P + rule), rule)
            for server in servers:
                self.assertEqual(admin, 'OS-EXT-SRV-ATTR:host' in server)
                self.assertEqual(admin, 'host_status' in server)
