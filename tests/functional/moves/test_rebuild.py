"""Rebuild (NOVA_FACTS 5.6): same host, same allocation; a new image is
checked against the current host by the scheduler's image filters, and
an image the host cannot run ends as Nova's does: the server in ERROR
with a NoValidHost fault, its old image kept."""

import json
import os

import fixtures

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite import objects
from tests.functional.moves import base

X86_IMAGE = '4a1c56a2-7a3e-4d3f-9d6b-2f0f6d3c1a01'
ARM_IMAGE = '4a1c56a2-7a3e-4d3f-9d6b-2f0f6d3c1a02'


class RebuildTestCase(base.MovesTestBase):

    def setUp(self):
        directory = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(directory, 'images.json')
        with open(path, 'w') as f:
            json.dump([
                {'id': X86_IMAGE, 'name': 'fedora-x86_64',
                 'properties': {'hw_architecture': 'x86_64'}},
                {'id': ARM_IMAGE, 'name': 'fedora-aarch64',
                 'properties': {'hw_architecture': 'aarch64'}}], f)
        self.FLAGS = {'image_catalog': {'images_file': path,
                                        'default_image_properties': {}}}
        super().setUp()

    def rebuild(self, server_id, image, status=202, api=None, **extra):
        body = {'rebuild': dict(extra, imageRef=image)}
        response = (api or self.api).post('/servers/%s/action' % server_id,
                                          body)
        self.assertEqual(status, response.status, response)
        self.cloud.wait_for_builds()
        return response

    def test_rebuild_same_image(self):
        """202 with the server (status REBUILD as the API wrote it) and an
        admin password; the guest is re-created, usage unchanged."""
        server = self.boot('ACTIVE')
        node = self.cloud.get_server(server['id'])[
            'OS-EXT-SRV-ATTR:hypervisor_hostname']
        response = self.rebuild(server['id'], server['image']['id'],
                                name='renamed')
        body = response.body['server']
        self.assertEqual('REBUILD', body['status'])
        self.assertEqual('renamed', body['name'])
        self.assertTrue(body['adminPass'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('renamed', server['name'])
        self.assertEqual(node, server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual({node: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assert_usage(node, base.FLAVOR_1)
        actions = self.api.get(
            '/servers/%s/os-instance-actions' % server['id']).body
        self.assertEqual('rebuild', actions['instanceActions'][0]['action'])

    def test_rebuild_new_image_on_same_host(self):
        server = self.boot('ACTIVE')
        node = self.cloud.get_server(server['id'])[
            'OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.rebuild(server['id'], 'fedora-x86_64')
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(X86_IMAGE, server['image']['id'])
        self.assertEqual(node, server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual({node: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assertEqual([], self.migrations(server['id']))

    def test_stopped_server_rebuilt_stays_stopped(self):
        server = self.boot('ACTIVE')
        self.post_action(server['id'], {'os-stop': None}, api=self.api)
        self.cloud.wait_for_server(server['id'], 'SHUTOFF')
        self.rebuild(server['id'], X86_IMAGE)
        server = self.cloud.wait_for_server(server['id'], 'SHUTOFF')
        self.assertEqual(X86_IMAGE, server['image']['id'])

    def test_image_the_host_cannot_run(self):
        """As Nova: accepted (202), then ERROR with the NoValidHost fault;
        the old image stays; the allocation does not change."""
        server = self.boot('ACTIVE')
        old_image = server['image']['id']
        node = self.cloud.get_server(server['id'])[
            'OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.rebuild(server['id'], ARM_IMAGE, name='renamed',
                     metadata={'role': 'arm'})
        server = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertIn('ImagePropertiesFilter', server['fault']['message'])
        self.assertEqual(old_image, server['image']['id'])
        # What the rebuild wrote goes too: the server is as it was.
        self.assertEqual(('server', {}), (server['name'], server['metadata']))
        self.assertEqual({node: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))

    def test_refusals(self):
        """Unknown image 400; admins may rebuild a member's server; a
        locked server 409 for its owner; another project 404."""
        server = self.boot('ACTIVE')
        self.rebuild(server['id'], 'no-such-image', status=400)
        other = self.cloud.admin_api
        self.assertEqual(202, self.rebuild(server['id'], X86_IMAGE,
                                           api=other).status)
        self.post_action(server['id'], {'lock': None}, api=self.admin_api)
        response = self.rebuild(server['id'], X86_IMAGE, status=409)
        self.assertIn('Instance %s is locked' % server['id'],
                      response.body['conflictingRequest']['message'])
        stranger = self.api.post(
            '/servers/%s/action' % server['id'],
            {'rebuild': {'imageRef': X86_IMAGE}},
            token='other:other-project')
        self.assertEqual(404, stranger.status, stranger)

    def instance_row(self, server_id):
        context = nl_context.get_admin_context()
        with cells.target_cell(context,
                               self.cloud.dbs.cells['cell1']) as cctxt:
            return objects.Instance.get_by_uuid(cctxt, server_id)

    def test_rebuild_with_key_name(self):
        """2.54: an unknown key pair is a 400 that changes nothing; a known
        one replaces the server's key (name and public key); null
        removes it."""
        created = self.api.post('/os-keypairs', {'keypair': {'name': 'k1'}},
                                version='2.1')
        self.assertEqual(200, created.status, created)
        public_key = created.body['keypair']['public_key']
        server = self.boot('ACTIVE')
        response = self.rebuild(server['id'], X86_IMAGE, status=400,
                                key_name='nokey')
        self.assertIn('Invalid key_name provided', response.text)
        server = self.cloud.get_server(server['id'])
        self.assertEqual((None, None, server['image']['id']),
                         (server['key_name'],
                          server['OS-EXT-STS:task_state'],
                          self.instance_row(server['id']).image_ref))

        self.rebuild(server['id'], X86_IMAGE, key_name='k1')
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('k1', server['key_name'])
        self.assertEqual(public_key, self.instance_row(server['id']).key_data)

        self.rebuild(server['id'], X86_IMAGE, key_name=None)
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertIsNone(server['key_name'])
        self.assertIsNone(self.instance_row(server['id']).key_data)
