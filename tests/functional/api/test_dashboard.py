"""The capacity dashboard (/dashboard) on an in-process cloud: admins
see every cell, host, node and provider with placement's numbers;
members get a 403 that shows nothing; the data API's ETag; the server
page's funnel and weights; the noauth2 login cookie."""

import re

import webob

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
