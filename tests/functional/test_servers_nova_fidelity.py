"""What a Nova user sees of servers, where a copy is easy to get wrong:
adminPass, private flavors, access IPs, PUT/rebuild views,
trusted_image_certificates, all_tenants/tenant_id, the metadata quota,
the migrate body at 2.1, nameless security groups at create, the disk
config, the config drive, the topology (2.78) and the changes-before
filter (2.66). Through the whole stack, in-process."""

import datetime
import json
import os
import shutil
import tempfile
import time

import testtools

from nova_lite.testing import integrated
from tests.functional import test_servers_api

OTHER_TOKEN = 'bob:other-project'
_FULL_VIEW_ONLY = ('OS-EXT-AZ:availability_zone', 'OS-EXT-STS:vm_state',
                   'OS-EXT-STS:task_state', 'OS-EXT-STS:power_state',
                   'OS-SRV-USG:launched_at', 'config_drive',
                   'security_groups', 'os-extended-volumes:volumes_attached')


def _image():
    return integrated.CONF.image_catalog.default_image_uuid


class FidelityTestCase(testtools.TestCase):
    flags = None
    # False: the real scheduler (a rebuild to a new image asks it).
    name_order_scheduler = True

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture(
            flags=self.flags))
        if self.name_order_scheduler:
            self.useFixture(test_servers_api.NameOrderScheduler())
        self.cloud.start_compute('host1')
        self.api = self.cloud.api
        self.admin_api = self.cloud.admin_api

    def boot(self, api=None, **kwargs):
        server = self.cloud.create_server(api=api, **kwargs)
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(server['id'], 'ACTIVE')

    def rebuild(self, server_id, version, **args):
        args.setdefault('imageRef', self.cloud.get_server(server_id)[
            'image']['id'])
        return self.api.post('/servers/%s/action' % server_id,
                             {'rebuild': args}, version=version)


class TestAdminPass(FidelityTestCase):
    def test_create_and_rebuild_return_the_password(self):
        created = self.cloud.create_server()
        self.assertEqual(12, len(created['adminPass']))
        given = self.cloud.create_server(name='two', adminPass='s3cret')
        self.assertEqual('s3cret', given['adminPass'])
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(created['id'], 'ACTIVE')
        rebuilt = self.rebuild(created['id'], '2.1', adminPass='n3w')
        self.assertEqual(202, rebuilt.status, rebuilt)
        self.assertEqual('n3w', rebuilt.body['server']['adminPass'])


class TestAdminPassDisabled(FidelityTestCase):
    flags = {'api': {'enable_instance_password': False}}

    def test_no_password_anywhere(self):
        created = self.cloud.create_server()
        self.assertNotIn('adminPass', created)
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(created['id'], 'ACTIVE')
        rebuilt = self.rebuild(created['id'], '2.1')
        self.assertNotIn('adminPass', rebuilt.body['server'])


class TestServers(FidelityTestCase):
    def test_private_flavor_needs_access_to_boot(self):
        self.admin_api.post('/flavors', {'flavor': {
            'name': 'priv', 'id': 'priv', 'ram': 64, 'vcpus': 1, 'disk': 1,
            'os-flavor-access:is_public': False}})
        body = {'server': {'name': 'vm', 'flavorRef': 'priv',
                           'imageRef': _image(), 'networks': 'none'}}
        refused = self.api.post('/servers', body)
        self.assertEqual(400, refused.status, refused)
        self.assertEqual('Flavor priv could not be found.',
                         refused.body['badRequest']['message'])
        self.admin_api.post('/flavors/priv/action', {
            'addTenantAccess': {'tenant': 'demo-project'}})
        self.assertEqual(202, self.api.post('/servers', body).status)
        self.assertEqual(400, self.api.post(
            '/servers', body, token=OTHER_TOKEN).status)
        self.cloud.wait_for_builds()

    def test_access_ips_are_kept(self):
        server = self.boot(accessIPv4='192.0.2.10',
                           accessIPv6='2001:db8::10')
        self.assertEqual(('192.0.2.10', '2001:db8::10'),
                         (server['accessIPv4'], server['accessIPv6']))
        updated = self.api.put('/servers/%s' % server['id'], {
            'server': {'accessIPv6': '2001:db8::11'}})
        self.assertEqual('2001:db8::11', updated.body['server']['accessIPv6'])
        self.assertEqual('192.0.2.10', updated.body['server']['accessIPv4'])
        rebuilt = self.rebuild(server['id'], '2.1', accessIPv4='192.0.2.12')
        self.assertEqual('192.0.2.12', rebuilt.body['server']['accessIPv4'])
        for bad in ({'accessIPv6': 'not-an-address'},
                    {'accessIPv4': '2001:db8::1'}):
            resp = self.api.put('/servers/%s' % server['id'],
                                {'server': bad})
            self.assertEqual(400, resp.status, bad)
        resp = self.api.post('/servers', {'server': {
            'name': 'bad', 'flavorRef': '1', 'networks': 'none',
            'imageRef': server['image']['id'], 'accessIPv6': '1::2::3'}})
        self.assertEqual(400, resp.status, resp)
        self.assertEqual('', self.boot(name='plain')['accessIPv4'])

    def test_put_and_rebuild_views_by_version(self):
        server = self.boot()
        put = self.api.put('/servers/%s' % server['id'],
                           {'server': {'name': 'renamed'}}, version='2.1')
        rebuilt = self.rebuild(server['id'], '2.1').body['server']
        for view in (put.body['server'], rebuilt):
            for key in _FULL_VIEW_ONLY + ('key_name',):
                self.assertNotIn(key, view)
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        at_2_63 = self.rebuild(server['id'], '2.63').body['server']
        self.assertIsNone(at_2_63['trusted_image_certificates'])
        self.assertIn('key_name', at_2_63)          # from 2.54
        self.assertIn('user_data', at_2_63)         # from 2.57
        self.assertNotIn('OS-EXT-STS:vm_state', at_2_63)
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        at_2_75 = self.rebuild(server['id'], '2.75').body['server']
        for key in _FULL_VIEW_ONLY:
            self.assertIn(key, at_2_75)
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        shown = self.api.get('/servers/%s' % server['id'], version='2.63')
        self.assertIsNone(shown.body['server']['trusted_image_certificates'])
        self.assertNotIn('trusted_image_certificates', self.api.get(
            '/servers/%s' % server['id'], version='2.62').body['server'])
        # The owner sees the hostname from 2.90 (before, admins only).
        self.assertNotIn('OS-EXT-SRV-ATTR:hostname', self.api.get(
            '/servers/%s' % server['id'], version='2.89').body['server'])
        self.assertEqual('server', self.api.get(
            '/servers/%s' % server['id'], version='2.90').body['server'][
                'OS-EXT-SRV-ATTR:hostname'])

    def test_all_tenants_and_tenant_id(self):
        mine = self.boot()
        theirs = self.boot(api=self.admin_api, name='admins')
        for query in ('all_tenants', 'all_tenants=', 'all_tenants=1'):
            ids = {s['id'] for s in self.admin_api.get(
                '/servers?' + query).body['servers']}
            self.assertEqual({mine['id'], theirs['id']}, ids, query)
        # Without all_tenants an admin's tenant_id is ignored (as Nova).
        ids = [s['id'] for s in self.admin_api.get(
            '/servers?tenant_id=demo-project').body['servers']]
        self.assertEqual([theirs['id']], ids)
        ids = [s['id'] for s in self.admin_api.get(
            '/servers?all_tenants&tenant_id=demo-project').body['servers']]
        self.assertEqual([mine['id']], ids)
        self.assertEqual(403, self.api.get('/servers?all_tenants=').status)

    def test_metadata_beyond_the_quota_is_403(self):
        body = {'server': {'name': 'meta', 'flavorRef': '1',
                           'networks': 'none', 'imageRef': _image(),
                           'metadata': {'k%d' % i: 'v' for i in range(129)}}}
        resp = self.api.post('/servers', body)
        self.assertEqual(403, resp.status, resp)
        self.assertEqual('Maximum number of metadata items exceeds 128',
                         resp.body['forbidden']['message'])
        self.admin_api.put('/os-quota-sets/demo-project', {
            'quota_set': {'metadata_items': 2}})
        body['server']['metadata'] = {'a': '1', 'b': '2', 'c': '3'}
        self.assertEqual(403, self.api.post('/servers', body).status)
        server = self.boot()
        resp = self.rebuild(server['id'], '2.1',
                            metadata={'a': '1', 'b': '2', 'c': '3'})
        self.assertEqual(403, resp.status, resp)

    def test_migrate_body_is_not_checked_before_2_56(self):
        server = self.boot()
        self.api.post('/servers/%s/action' % server['id'], {'pause': None})
        self.cloud.wait_for_server(server['id'], 'PAUSED')
        for body in ({}, None, {'host': 'host1'}):
            resp = self.admin_api.post(
                '/servers/%s/action' % server['id'], {'migrate': body},
                version='2.1')
            self.assertEqual(409, resp.status, resp)
        resp = self.admin_api.post(
            '/servers/%s/action' % server['id'], {'migrate': {}},
            version='2.56')
        self.assertEqual(409, resp.status, resp)
        resp = self.admin_api.post(
            '/servers/%s/action' % server['id'], {'migrate': {'x': 1}},
            version='2.56')
        self.assertEqual(400, resp.status, resp)

    def test_trusted_image_certificates_from_2_63(self):
        body = {'server': {'name': 'tc', 'flavorRef': '1', 'networks': 'none',
                           'imageRef': _image(),
                           'trusted_image_certificates': ['cert-a']}}
        self.assertEqual(400, self.api.post('/servers', body,
                                            version='2.62').status)
        resp = self.api.post('/servers', body, version='2.63')
        self.assertEqual(202, resp.status, resp)
        self.cloud.wait_for_builds()
        server = self.cloud.wait_for_server(resp.body['server']['id'],
                                            'ACTIVE', api=self.api)
        self.assertEqual(['cert-a'], server['trusted_image_certificates'])
        rebuilt = self.rebuild(server['id'], '2.63',
                               trusted_image_certificates=None)
        self.assertIsNone(rebuilt.body['server'][
            'trusted_image_certificates'])


class TestCreateBody(FidelityTestCase):
    def test_security_group_entries_without_a_name_are_skipped(self):
        """Nova's schema lets ``{}`` through and its create skips it: the
        server is in the default group (a KeyError, 500, before)."""
        for groups in ([{}], [{}, {'name': 'default'}]):
            created = self.cloud.create_server(security_groups=groups)
            self.assertEqual([{'name': 'default'}],
                             created['security_groups'])
            self.cloud.wait_for_builds()
            self.cloud.wait_for_server(created['id'], 'ACTIVE')


ALT_IMAGE = '5f0c5d2e-7d5a-4e0c-9a57-0f6a52e3b0b2'
AUTO_IMAGE = '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e'
NO_AUTO_IMAGE = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4f'


class TestDiskConfig(FidelityTestCase):
    """``OS-DCF:diskConfig`` is kept as given at create, update, rebuild
    and resize, with Tempest's calls (test_disk_config,
    ServersTestManualDisk), and the image's ``auto_disk_config``
    property applies as in Nova."""

    name_order_scheduler = False

    def setUp(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        path = os.path.join(tmp, 'images.json')
        with open(path, 'w') as f:
            json.dump([
                {'id': ALT_IMAGE, 'name': 'alt'},
                {'id': AUTO_IMAGE, 'name': 'auto',
                 'properties': {'auto_disk_config': 'True'}},
                {'id': NO_AUTO_IMAGE, 'name': 'no-auto',
                 'properties': {'auto_disk_config': 'disabled'}}], f)
        self.flags = {'image_catalog': {'images_file': path},
                      'DEFAULT': {'allow_resize_to_same_host': True}}
        super().setUp()

    def disk_config(self, server_id):
        return self.cloud.get_server(server_id, api=self.api)[
            'OS-DCF:diskConfig']

    def update(self, server_id, value):
        response = self.api.put('/servers/%s' % server_id, {
            'server': {'OS-DCF:diskConfig': value}})
        self.assertEqual(200, response.status, response)
        self.assertEqual(value, response.body['server']['OS-DCF:diskConfig'])
        self.assertEqual(value, self.disk_config(server_id))

    def test_create_shows_what_was_asked(self):
        for value in ('AUTO', 'MANUAL'):
            created = self.cloud.create_server(
                name=value, **{'OS-DCF:diskConfig': value})
            self.assertEqual(value, created['OS-DCF:diskConfig'])
            self.assertEqual(value, self.disk_config(created['id']))
            self.cloud.wait_for_builds()
            self.assertEqual(value, self.boot(name=value + '-2', **{
                'OS-DCF:diskConfig': value})['OS-DCF:diskConfig'])
            self.assertIn(value, [s['OS-DCF:diskConfig'] for s in self.api.get(
                '/servers/detail').body['servers']])
        self.assertEqual('MANUAL', self.boot()['OS-DCF:diskConfig'])
        # A sort key of Nova's list, now that it is kept.
        for direction, first in (('asc', 'MANUAL'), ('desc', 'AUTO')):
            listed = self.api.get('/servers/detail?sort_key=auto_disk_config'
                                  '&sort_dir=%s' % direction).body['servers']
            self.assertEqual(first, listed[0]['OS-DCF:diskConfig'])

    def test_the_image_property_is_the_default_and_may_forbid_auto(self):
        self.assertEqual('AUTO', self.boot(
            image_id=AUTO_IMAGE)['OS-DCF:diskConfig'])
        self.assertEqual('MANUAL', self.boot(image_id=AUTO_IMAGE, **{
            'OS-DCF:diskConfig': 'MANUAL'})['OS-DCF:diskConfig'])
        refused = self.api.post('/servers', {'server': {
            'name': 'x', 'flavorRef': '1', 'imageRef': NO_AUTO_IMAGE,
            'networks': 'none', 'OS-DCF:diskConfig': 'AUTO'}})
        self.assertEqual(400, refused.status, refused)
        self.assertEqual('Requested image %s has automatic disk resize '
                         'disabled.' % NO_AUTO_IMAGE,
                         refused.body['badRequest']['message'])
        server = self.boot(image_id=NO_AUTO_IMAGE)
        self.assertEqual('MANUAL', server['OS-DCF:diskConfig'])
        resized = self.api.post('/servers/%s/action' % server['id'], {
            'resize': {'flavorRef': '2', 'OS-DCF:diskConfig': 'AUTO'}})
        self.assertEqual(400, resized.status, resized)
        rebuilt = self.rebuild(server['id'], '2.1', imageRef=NO_AUTO_IMAGE,
                               **{'OS-DCF:diskConfig': 'AUTO'})
        self.assertEqual(400, rebuilt.status, rebuilt)

    def test_update_from_auto_to_manual(self):
        server = self.boot()
        self.update(server['id'], 'AUTO')
        self.update(server['id'], 'MANUAL')

    def test_rebuild_with_manual_and_auto(self):
        server = self.boot()
        for before, value in (('AUTO', 'MANUAL'), ('MANUAL', 'AUTO')):
            self.update(server['id'], before)
            rebuilt = self.rebuild(server['id'], '2.1', imageRef=ALT_IMAGE,
                                   **{'OS-DCF:diskConfig': value})
            self.assertEqual(202, rebuilt.status, rebuilt)
            self.assertEqual(value, rebuilt.body['server'][
                'OS-DCF:diskConfig'])
            self.cloud.wait_for_server(server['id'], 'ACTIVE')
            self.assertEqual(value, self.disk_config(server['id']))
        # Not given, the new image's property decides (Nova's rebuild).
        self.rebuild(server['id'], '2.1', imageRef=ALT_IMAGE)
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('MANUAL', self.disk_config(server['id']))
        self.rebuild(server['id'], '2.1', imageRef=AUTO_IMAGE)
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('AUTO', self.disk_config(server['id']))

    def test_resize_between_manual_and_auto(self):
        self.admin_api.post('/flavors', {'flavor': {
            'name': 'other', 'id': '20', 'ram': 1024, 'vcpus': 1,
            'disk': 20}})
        server = self.boot()
        for flavor, before, value in (('2', 'MANUAL', 'AUTO'),
                                      ('20', 'AUTO', 'MANUAL')):
            self.update(server['id'], before)
            response = self.api.post('/servers/%s/action' % server['id'], {
                'resize': {'flavorRef': flavor,
                           'OS-DCF:diskConfig': value}})
            self.assertEqual(202, response.status, response)
            self.cloud.wait_for_server(server['id'], 'VERIFY_RESIZE')
            self.api.post('/servers/%s/action' % server['id'],
                          {'confirmResize': None})
            self.cloud.wait_for_server(server['id'], 'ACTIVE')
            self.assertEqual(value, self.disk_config(server['id']))
        # Nova's cold migration is a resize without a disk config: the
        # server becomes MANUAL.
        self.update(server['id'], 'AUTO')
        self.cloud.start_compute('host2')
        response = self.admin_api.post('/servers/%s/action' % server['id'],
                                       {'migrate': None})
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_server(server['id'], 'VERIFY_RESIZE')
        self.assertEqual('MANUAL', self.disk_config(server['id']))


class TestConfigDrive(FidelityTestCase):
    def test_config_drive_is_kept(self):
        """Nova stores a requested config drive and shows ``"True"``
        (``""`` without one)."""
        asked = self.boot(name='cd', config_drive=True)
        self.assertEqual('True', asked['config_drive'])
        self.assertEqual('True', self.boot(
            name='cd2', config_drive='true')['config_drive'])
        self.assertEqual('', self.boot(name='plain')['config_drive'])
        self.assertEqual('', self.boot(
            name='off', config_drive=False)['config_drive'])
        listed = {s['name']: s['config_drive'] for s in self.api.get(
            '/servers/detail').body['servers']}
        self.assertEqual('True', listed['cd'])
        self.assertEqual('', listed['plain'])


class TestTopology(FidelityTestCase):
    def test_server_without_numa_topology(self):
        """2.78: Nova's answer for a server with no NUMA topology, to
        its owner and to admins; 404 before 2.78 and for others."""
        server = self.boot()
        url = '/servers/%s/topology' % server['id']
        for api in (self.api, self.admin_api):
            response = api.get(url, version='2.78')
            self.assertEqual(200, response.status, response)
            self.assertEqual({'nodes': [], 'pagesize_kb': None},
                             response.body)
        self.assertEqual(404, self.api.get(url, version='2.77').status)
        self.assertEqual(404, self.api.get(url, version='2.78',
                                           token=OTHER_TOKEN).status)
        self.assertEqual(404, self.api.get(
            '/servers/%s/topology' % ('0' * 8 + '-0000-4000-8000-' + '0' * 12),
            version='2.78').status)


def _now():
    time.sleep(0.05)
    moment = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(0.05)
    return moment.strftime('%Y-%m-%dT%H:%M:%S.%fZ')


class TestChangesBefore(FidelityTestCase):
    def names(self, query, version='2.66', api=None):
        response = (api or self.api).get('/servers/detail?' + query,
                                          version=version)
        self.assertEqual(200, response.status, response)
        return sorted((s['name'], s['status'])
                      for s in response.body['servers'])

    def test_window_of_changes_with_deletions(self):
        """2.66: ``changes-before`` is applied, with ``changes-since``
        or alone, and lists the servers deleted in the window, as
        ``changes-since`` does (Nova's reading of both)."""
        start = _now()
        self.boot(name='kept')
        middle = _now()
        gone = self.boot(name='gone')
        self.api.delete('/servers/%s' % gone['id'])
        self.cloud.wait_until_deleted(gone['id'])
        end = _now()
        self.assertEqual([('kept', 'ACTIVE')], self.names(''))
        self.assertEqual([('gone', 'DELETED'), ('kept', 'ACTIVE')],
                         self.names('changes-since=%s' % start))
        self.assertEqual([('gone', 'DELETED')],
                         self.names('changes-since=%s' % middle))
        self.assertEqual([('kept', 'ACTIVE')],
                         self.names('changes-before=%s' % middle))
        self.assertEqual([('kept', 'ACTIVE')], self.names(
            'changes-since=%s&changes-before=%s' % (start, middle)))
        self.assertEqual([('gone', 'DELETED'), ('kept', 'ACTIVE')],
                         self.names('changes-before=%s' % end))
        self.assertEqual([], self.names('changes-before=%s' % start))
        # An admin's deleted=false keeps deletions out of the window.
        self.assertEqual(2, len(self.names(
            'all_tenants=1&changes-since=%s' % start, api=self.admin_api)))
        self.assertEqual([('kept', 'ACTIVE')], self.names(
            'all_tenants=1&changes-since=%s&deleted=false' % start,
            api=self.admin_api))
        # Below 2.66 a member's changes-before is not a filter.
        self.assertEqual([('kept', 'ACTIVE')], self.names(
            'changes-before=%s' % start, version='2.65'))

    def test_window_ending_before_it_starts_is_400(self):
        earlier, later = _now(), _now()
        response = self.api.get(
            '/servers?changes-since=%s&changes-before=%s' % (later, earlier),
            version='2.66')
        self.assertEqual(400, response.status, response)
        self.assertEqual('The value of changes-since must be less than or '
                         'equal to changes-before.',
                         response.body['badRequest']['message'])
        self.assertEqual(200, self.api.get(
            '/servers?changes-since=%s&changes-before=%s' % (later, later),
            version='2.66').status)
