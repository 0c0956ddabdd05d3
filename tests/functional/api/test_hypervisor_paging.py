"""os-hypervisors paging over two cells, as Nova pages (2.33 limit and
marker, ``hypervisors_links``; 2.53 uuid ids and markers; the hostname
pattern refusing paging; nodes of a deleted service left out), and the
``with_servers`` rule of 2.75."""

from urllib import parse

import testtools

from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'
MAX_LIMIT = 4


class TestHypervisorPaging(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(
            api={'max_limit': MAX_LIMIT}))
        _svc, self.cell1_nodes = self.api.add_compute('host1', 'cell1',
                                                      nodes=3)
        _svc, more = self.api.add_compute('host2', 'cell1', nodes=1)
        self.cell1_nodes += more
        _svc, self.cell2_nodes = self.api.add_compute('host3', 'cell2',
                                                      nodes=3)
        # Nova's order: cell by cell (mapping order), nodes by id.
        self.all_nodes = self.cell1_nodes + self.cell2_nodes

    def _get(self, path, version='2.53'):
        resp = self.api.get(path, version=version)
        self.assertEqual(200, resp.status, resp)
        return resp.body

    def _next(self, body):
        links = body.get('hypervisors_links')
        if not links:
            return None
        self.assertEqual('next', links[0]['rel'])
        url = parse.urlsplit(links[0]['href'])
        self.assertEqual(('http', 'nova.test:8774'),
                         (url.scheme, url.netloc))
        return '%s?%s' % (url.path, url.query)

    def test_follow_links_through_both_cells(self):
        path, pages = V + '/os-hypervisors/detail', []
        while path:
            body = self._get(path, version='2.88')
            pages.append([h['id'] for h in body['hypervisors']])
            path = self._next(body)
        # 7 nodes, max_limit 4: a full page with a link, then the rest.
        self.assertEqual([[n.uuid for n in self.all_nodes[:4]],
                          [n.uuid for n in self.all_nodes[4:]]], pages)

    def test_limit_and_marker_across_the_cell_boundary(self):
        body = self._get(V + '/os-hypervisors?limit=3')
        self.assertEqual([n.uuid for n in self.all_nodes[:3]],
                         [h['id'] for h in body['hypervisors']])
        href = body['hypervisors_links'][0]['href']
        self.assertEqual(
            'http://nova.test:8774/v2.1/os-hypervisors?limit=3&marker=%s'
            % self.all_nodes[2].uuid, href)
        body = self._get(self._next(body))
        # The last node of cell1, then cell2 from its start.
        self.assertEqual([n.uuid for n in self.all_nodes[3:6]],
                         [h['id'] for h in body['hypervisors']])
        body = self._get(self._next(body))
        self.assertEqual([self.all_nodes[6].uuid],
                         [h['id'] for h in body['hypervisors']])
        self.assertNotIn('hypervisors_links', body)

    def test_full_last_page_still_links_and_next_is_empty(self):
        body = self._get(V + '/os-hypervisors?limit=4&marker=%s'
                         % self.all_nodes[2].uuid)
        self.assertEqual([n.uuid for n in self.all_nodes[3:]],
                         [h['id'] for h in body['hypervisors']])
        body = self._get(self._next(body))
        self.assertEqual({'hypervisors': []}, body)

    def test_limit_above_max_limit_and_zero(self):
        body = self._get(V + '/os-hypervisors?limit=100')
        self.assertEqual(MAX_LIMIT, len(body['hypervisors']))
        self.assertIn('limit=100', body['hypervisors_links'][0]['href'])
        body = self._get(V + '/os-hypervisors?limit=0')
        self.assertEqual({'hypervisors': []}, body)

    def test_unknown_marker_is_400(self):
        for marker in ('9f1b3ad2-7fd4-4c2e-8b43-2f4c5b6a7d8e', 'abc'):
            resp = self.api.get(V + '/os-hypervisors?marker=%s' % marker,
                                version='2.53')
            self.assertEqual(400, resp.status)
            self.assertIn('marker [%s] not found' % marker, resp.text)

    def test_integer_ids_and_markers_before_2_53(self):
        body = self._get(V + '/os-hypervisors?limit=2', version='2.33')
        self.assertEqual([n.id for n in self.all_nodes[:2]],
                         [h['id'] for h in body['hypervisors']])
        self.assertIn('marker=%d' % self.all_nodes[1].id,
                      body['hypervisors_links'][0]['href'])
        # Before 2.33 there is no paging: every node, no links.
        body = self._get(V + '/os-hypervisors', version='2.32')
        self.assertEqual(7, len(body['hypervisors']))
        self.assertNotIn('hypervisors_links', body)
        body = self._get(V + '/os-hypervisors?limit=1', version='2.1')
        self.assertEqual(7, len(body['hypervisors']))

    def test_pattern_refuses_paging_and_has_no_links(self):
        for query in ('limit=1', 'marker=%s' % self.all_nodes[0].uuid):
            resp = self.api.get(V + '/os-hypervisors?hypervisor_hostname_'
                                'pattern=host&' + query, version='2.53')
            self.assertEqual(400, resp.status)
            self.assertIn('Paging over hypervisors', resp.text)
        body = self._get(V + '/os-hypervisors?hypervisor_hostname_pattern='
                         'node')
        # 7 matches, more than max_limit: all of them and no link.
        self.assertEqual(7, len(body['hypervisors']))
        self.assertNotIn('hypervisors_links', body)
        resp = self.api.get(V + '/os-hypervisors?hypervisor_hostname_'
                            'pattern=nowhere', version='2.53')
        self.assertEqual(404, resp.status)

    def test_nodes_of_a_deleted_service_are_left_out(self):
        ctxt = self.api.cell_context('cell1')
        service = cell_db.service_get_by_host_and_binary(
            ctxt, 'host2', 'nova-lite-compute')
        cell_db.service_destroy(ctxt, service.id)
        body = self._get(V + '/os-hypervisors?limit=4')
        # Nova cuts the page, then drops the node: 3 shown, no link.
        self.assertEqual([n.uuid for n in self.all_nodes[:3]],
                         [h['id'] for h in body['hypervisors']])
        self.assertNotIn('hypervisors_links', body)
        resp = self.api.get(V + '/os-hypervisors/%s' % self.all_nodes[3].uuid,
                            version='2.53')
        self.assertEqual(404, resp.status)

    def test_with_servers_key_before_and_from_2_75(self):
        node = self.cell2_nodes[0]
        instance_api.instance_create(self.api.cell_context('cell2'), {
            'host': 'host3', 'node': node.hypervisor_hostname,
            'display_name': 'vm', 'project_id': 'p'})
        path = V + '/os-hypervisors?with_servers=true&limit=100'
        for version, empty in (('2.53', None), ('2.75', [])):
            found = {h['id']: h.get('servers') for h in self._get(
                path + '&marker=%s' % self.all_nodes[3].uuid,
                version=version)['hypervisors']}
            self.assertEqual(['vm'], [s['name'] for s in found[node.uuid]])
            self.assertEqual(empty, found[self.cell2_nodes[1].uuid])
