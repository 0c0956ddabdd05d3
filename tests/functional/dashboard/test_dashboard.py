"""The capacity dashboard (/dashboard) on an in-process cloud: admins
see every cell, host, node and provider with placement's numbers;
members get a 403 that shows nothing; the data API's ETag; the server
page's funnel and weights; the noauth2 login cookie."""

import re

import fixtures
from oslo_utils import uuidutils

import webob

from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import dashboard
from nova_lite.testing import integrated
from tests.functional import test_servers


class DashboardTestCase(test_servers.ServersTestBase):

    CELLS = ('cell1', 'cell2')
    COMPUTES = ()

    def setUp(self):
        super().setUp()
        self.cloud.start_compute('host1', cell='cell1')
        self.cloud.start_compute('host2', cell='cell2')

    def raw(self, path, token='admin', method='GET', headers=None,
            body=None):
        req = webob.Request.blank(path, method=method)
        if token:
            req.headers['X-Auth-Token'] = token
        for key, value in (headers or {}).items():
            req.headers[key] = value
        if body is not None:
            req.body = body
            req.content_type = 'application/x-www-form-urlencoded'
        return req.get_response(self.cloud.app)

    def test_admin_sees_every_node_with_placements_usage(self):
        servers = [self.boot('ACTIVE', name='s%d' % i) for i in range(3)]
        resp = self.raw('/dashboard')
        self.assertEqual(200, resp.status_int, resp.text[:500])
        page = resp.text
        for name in ('cell1', 'cell2', 'host1', 'host2', 'host1-node-0',
                     'host2-node-0'):
            self.assertIn(name, page)
        for server in servers:
            self.assertIn(server['id'], page)
        for node in ('host1-node-0', 'host2-node-0'):
            rp = self.cloud.provider_uuid(node)
            usages = self.cloud.usages(node)
            inv = self.cloud.placement.client.get_inventories(rp)[
                'inventories']
            for rc in ('VCPU', 'MEMORY_MB', 'DISK_GB'):
                cap = int((inv[rc]['total'] - inv[rc]['reserved']) *
                          inv[rc]['allocation_ratio'])
                shown = re.search(
                    r'class="num" data-rp="%s" data-rc="%s">(\d+) / (\d+)<'
                    % (rp, rc), page)
                self.assertEqual((usages.get(rc, 0), cap),
                                 (int(shown.group(1)), int(shown.group(2))))

    def test_data_api_etag_and_live_change(self):
        resp = self.raw('/dashboard/api/capacity')
        self.assertEqual(200, resp.status_int)
        etag = resp.headers['ETag']
        same = self.raw('/dashboard/api/capacity',
                        headers={'If-None-Match': etag})
        self.assertEqual(304, same.status_int)
        server = self.boot('ACTIVE')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        changed = self.raw('/dashboard/api/capacity',
                           headers={'If-None-Match': etag})
        self.assertEqual(200, changed.status_int)
        doc = changed.json
        rp = self.cloud.provider_uuid(node)
        self.assertEqual(self.cloud.usages(node)['VCPU'],
                         doc['usages'][rp]['VCPU'][0])
        squares = {n[0]: n for c in doc['cells'] for n in c['nodes']}
        self.assertEqual(1, squares[node][4])

    def test_member_gets_403_and_nothing_else(self):
        server = self.boot('ACTIVE')
        for path in ('/dashboard', '/dashboard/api/capacity',
                     '/dashboard/servers/%s' % server['id'],
                     '/dashboard/api/servers/%s' % server['id']):
            resp = self.raw(path, token=integrated.MEMBER_TOKEN)
            self.assertEqual(403, resp.status_int, path)
            for secret in ('host1', 'host2', 'cell1', server['id']):
                self.assertNotIn(secret, resp.text, path)

    def test_unauthenticated_page_redirects_to_login(self):
        resp = self.raw('/dashboard', token=None)
        self.assertEqual(303, resp.status_int)
        self.assertEqual('/dashboard/login',
                         resp.headers['Location'].split('localhost')[-1])
        self.assertEqual(401, self.raw('/dashboard/api/capacity',
                                       token=None).status_int)
        form = self.raw('/dashboard/login', token=None)
        self.assertEqual(200, form.status_int)
        self.assertIn('name="password"', form.text)

    def test_login_cookie_opens_the_page(self):
        resp = self.raw('/dashboard/login', token=None, method='POST',
                        body=b'username=admin&password=x')
        self.assertEqual(303, resp.status_int)
        cookie = resp.headers['Set-Cookie']
        self.assertIn('HttpOnly', cookie)
        self.assertIn('samesite=strict', cookie.lower())
        value = cookie.split(';')[0]
        page = self.raw('/dashboard', token=None,
                        headers={'Cookie': value})
        self.assertEqual(200, page.status_int)
        self.assertIn('host1-node-0', page.text)

    def test_server_page_shows_funnel_weights_and_allocations(self):
        server = self.boot('ACTIVE')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        resp = self.raw('/dashboard/servers/%s' % server['id'])
        self.assertEqual(200, resp.status_int, resp.text[:300])
        page = resp.text
        self.assertIn('data-filter="ComputeFilter"', page)
        self.assertIn('class="wrow picked" data-weight-node="%s"' % node,
                      page)
        self.assertIn('RAMWeigher', page)
        self.assertIn('VCPU=1', page)
        doc = self.raw('/dashboard/api/servers/%s' % server['id']).json
        self.assertEqual(node, doc['server']['decisions'][0]['attempts'][0][
            'picked']['node'])
        self.assertEqual(404, self.raw('/dashboard/servers/nope').status_int)

    def test_live_updates_reread_only_changed_providers(self):
        first = self.raw('/dashboard/api/capacity')
        self.assertEqual(200, first.status_int)
        client = self.cloud.placement.client
        real = client.get_capacity
        reads = []

        def spy(uuids=None):
            reads.append(None if uuids is None else sorted(uuids))
            return real(uuids)
        self.useFixture(fixtures.MockPatchObject(client, 'get_capacity',
                                                 side_effect=spy))
        server = self.boot('ACTIVE')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        rp = self.cloud.provider_uuid(node)
        doc = self.raw('/dashboard/api/capacity').json
        self.assertEqual([[rp]], reads)
        self.assertEqual(1, doc['usages'][rp]['VCPU'][0])
        other = self.cloud.provider_uuid(
            'host2-node-0' if node == 'host1-node-0' else 'host1-node-0')
        self.assertEqual(0, doc['usages'][other]['VCPU'][0])
        # Deleting frees the allocation without moving the provider's
        # generation (as in Placement): seen from the usages alone.
        self.delete_and_check_no_allocations(server['id'])
        doc = self.raw('/dashboard/api/capacity').json
        self.assertEqual([[rp]], reads)
        self.assertEqual(0, doc['usages'][rp]['VCPU'][0])
        squares = {n[0]: n for c in doc['cells'] for n in c['nodes']}
        self.assertEqual(0, squares[node][4])
        page = self.raw('/dashboard').text
        self.assertIn('class="num" data-rp="%s" data-rc="VCPU">0 / ' % rp,
                      page)

    def test_placement_capacity_extension_by_uuid_and_usages(self):
        self.boot('ACTIVE')
        client = self.cloud.placement.client
        everything = {p['uuid']: p for p in client.get_capacity()}
        rp = self.cloud.provider_uuid('host1-node-0')
        only = client.get_capacity([rp, uuidutils.generate_uuid()])
        self.assertEqual([everything[rp]], only)
        usages = {u: (g, used) for u, g, used in
                  client.get_capacity_usages()}
        self.assertEqual(set(everything), set(usages))
        for uuid, provider in everything.items():
            self.assertEqual(provider['generation'], usages[uuid][0])
            self.assertEqual({rc: n for rc, n in provider['usages'].items()
                              if n}, usages[uuid][1])
        agg = uuidutils.generate_uuid()
        generation = client.request(
            'GET', '/resource_providers/%s' % rp)['generation']
        client.request('PUT', '/resource_providers/%s/aggregates' % rp,
                       {'aggregates': [agg],
                        'resource_provider_generation': generation},
                       microversion='1.19')
        traits = client.request('GET',
                                '/resource_providers/%s/traits' % rp)
        [linked] = client.get_capacity([rp])
        self.assertEqual(sorted(traits['traits']), sorted(linked['traits']))
        self.assertIn('COMPUTE_NODE', linked['traits'])
        self.assertEqual([agg], linked['aggregates'])
        err = self.assertRaises(placement_client.PlacementError,
                                client.request, 'GET',
                                '/nova_lite/capacity?uuids=not-a-uuid')
        self.assertEqual(400, err.status)
        member = self.cloud.placement.client_for('member:project-b')
        for path in ('/nova_lite/capacity', '/nova_lite/capacity/usages',
                     '/nova_lite/capacity?uuids=%s' % rp):
            err = self.assertRaises(placement_client.PlacementError,
                                    member.request, 'GET', path)
            self.assertEqual(403, err.status, path)

    def test_prewarm_reads_the_cloud_before_the_first_page(self):
        server = self.boot('ACTIVE')
        dispatch = dashboard.Dispatch(None, nl_conf.CONF)
        thread = dispatch.prewarm(nl_context.get_admin_context(),
                                  self.cloud.placement.client)
        thread.join(60)
        snapshot = dispatch.cache._snapshot
        self.assertIsNotNone(snapshot)
        self.assertEqual({'host1-node-0', 'host2-node-0'},
                         {n['name'] for _c, _h, n in snapshot.nodes()})
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.assertEqual([server['id']],
                         [s[0] for s in snapshot.servers_by_node[node]])
