"""The servers API through the whole stack (create, list, show, update,
delete, actions, validation, isolation).

A stand-in scheduler picks hosts in name order and claims like the real
one, so these tests look at the API and the conductors, not at the
scheduler's choices (tests/functional/test_servers.py covers those).
"""

import fixtures
import testtools

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite.db.cell import api as cell_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.testing import integrated

OTHER_TOKEN = 'bob:other-project'


class NameOrderScheduler(fixtures.Fixture):
    """select_destinations: nodes in name order, first with room wins."""

    def _setUp(self):
        stand_in = self

        def select_destinations(manager, context, request_spec,
                                instance_uuids, return_alternates=True,
                                return_decisions=False):
            return stand_in.select_destinations(
                context, request_spec, instance_uuids, return_alternates)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.manager.SchedulerManager.'
            'select_destinations', select_destinations))

    @staticmethod
    def _nodes(context, spec):
        nodes = []
        for cell in objects.CellMappingList.get_all(context).objects:
            if cell.is_cell0:
                continue
            with cells.target_cell(context, cell) as cctxt:
                for node in cell_db.compute_node_get_all(cctxt):
                    nodes.append((node, cell))
        forced = list(spec.force_hosts)
        nodes = [n for n in nodes if not forced or n[0].host in forced]
        return sorted(nodes, key=lambda n: n[0].hypervisor_hostname)

    def select_destinations(self, context, request_spec, instance_uuids,
                            return_alternates=True):
        from nova_lite.clients import placement as placement_client
        placement = placement_client.PlacementClient()
        flavor = request_spec.flavor
        resources = {'VCPU': flavor.vcpus, 'MEMORY_MB': flavor.memory_mb,
                     'DISK_GB': flavor.root_gb}
        nodes = self._nodes(context, request_spec)
        result = []
        for uuid in instance_uuids:
            selections = [objects.Selection.from_allocation_request(
                node.host, node.hypervisor_hostname, node.uuid, cell.uuid,
                {'allocations': {node.uuid: {'resources': resources}}},
                '1.36', availability_zone='nova') for node, cell in nodes]
            for index, selection in enumerate(selections):
                try:
                    placement.put_allocations(
                        uuid, selection.allocation_request_dict()[
                            'allocations'], request_spec.project_id,
                        request_spec.user_id)
                except placement_client.PlacementClientError:
                    continue
                result.append(selections[index:])
                break
            else:
                raise exception.NoValidHost(reason='stand-in: no room')
        return result


class ServersAPITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.useFixture(NameOrderScheduler())
        self.cloud.start_compute('host1')
        self.cloud.start_compute('host2')
        self.api = self.cloud.api
        self.admin_api = self.cloud.admin_api

    def boot(self, status='ACTIVE', **kwargs):
        server = self.cloud.create_server(**kwargs)
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(server['id'], status)

    def action(self, server_id, body, api=None, version=None):
        return (api or self.api).post('/servers/%s/action' % server_id, body,
                                      version=version)

    def assertBadRequest(self, response, *words):
        self.assertEqual(400, response.status, response)
        message = response.body['badRequest']['message']
        for word in words:
            self.assertIn(word, message)

    # -- create --------------------------------------------------------

    def test_create_answers_202_with_location(self):
        response = self.api.post('/servers', {'server': {
            'name': 'vm', 'flavorRef': '1', 'networks': 'auto',
            'imageRef': 'cirros-0.6.3-x86_64-disk'}})
        self.assertEqual(202, response.status, response)
        server = response.body['server']
        self.assertEqual(server['links'][0]['href'],
                         response.headers['Location'])
        self.cloud.wait_for_builds()
        shown = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host1', shown['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('m1.tiny', shown['flavor']['original_name'])

    def test_multi_create_with_reservation_id(self):
        response = self.api.post('/servers', {'server': {
            'name': 'many', 'flavorRef': '1', 'networks': 'none',
            'imageRef': self.cloud.conf.conf.conf.image_catalog
            .default_image_uuid, 'min_count': 2,
            'return_reservation_id': True}})
        self.assertEqual(202, response.status, response)
        reservation = response.body['reservation_id']
        self.cloud.wait_for_builds()
        listed = self.api.get('/servers/detail?reservation_id=%s'
                              % reservation).body['servers']
        self.assertEqual(['many-1', 'many-2'],
                         sorted(s['name'] for s in listed))

    def test_forced_host_is_admin_only(self):
        response = self.api.post('/servers', {'server': {
            'name': 'vm', 'flavorRef': '1', 'networks': 'none',
            'imageRef': 'cirros-0.6.3-x86_64-disk',
            'availability_zone': 'nova:host2'}})
        self.assertEqual(403, response.status, response)
        server = self.boot(availability_zone='nova:host2',
                           api=self.admin_api)
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])

    def test_create_validation(self):
        cases = [
            ({'server': {'flavorRef': '1', 'networks': 'none'}}, 'name'),
            ({'server': {'name': 'x', 'flavorRef': '1', 'networks': 'none',
                         'imageRef': 'nope'}}, 'nope'),
            ({'server': {'name': 'x', 'flavorRef': '99', 'networks': 'none',
                         'imageRef': 'cirros-0.6.3-x86_64-disk'}}, '99'),
            ({'server': {'name': 'x', 'flavorRef': '1', 'networks': 'none',
                         'bogus': 1}}, 'bogus'),
            ({'server': {'name': 'x', 'flavorRef': '1', 'networks': 'none',
                         'min_count': 0}}, 'min_count'),
            ({'server': {'name': 'x', 'flavorRef': '1'}}, 'networks'),
            ({'server': {'name': 'x', 'flavorRef': '1', 'networks': 'none',
                         'imageRef': 'cirros-0.6.3-x86_64-disk',
                         'availability_zone': 'atlantis'}}, 'atlantis'),
            ({'server': {'name': 'x', 'flavorRef': '1', 'networks': 'none'},
              'os:scheduler_hints': {'group': 'not-a-uuid'}}, 'group'),
        ]
        for body, word in cases:
            self.assertBadRequest(self.api.post('/servers', body), word)
        self.assertBadRequest(self.api.post('/servers', {'server': {
            'name': 'x', 'flavorRef': '1', 'imageRef':
            'cirros-0.6.3-x86_64-disk',
            'networks': [{'uuid': 'b7e5c2f4-3b1e-4e8a-9d6a-2f0e6c1d2a3b'}]
        }}), 'Network b7e5c2f4-3b1e-4e8a-9d6a-2f0e6c1d2a3b could not be found')

    def test_quota_instances(self):
        from nova_lite.db.api import group_api
        group_api.quota_set(nl_context.get_admin_context(), 'demo-project',
                            'instances', 1)
        self.boot()
        response = self.api.post('/servers', {'server': {
            'name': 'x', 'flavorRef': '1', 'networks': 'none',
            'imageRef': 'cirros-0.6.3-x86_64-disk'}})
        self.assertEqual(403, response.status, response)
        self.assertIn('instances', response.body['forbidden']['message'])

    # -- list, show, isolation -------------------------------------------

    def test_list_detail_paging_and_filters(self):
        first = self.boot(name='alpha')
        second = self.boot(name='beta', flavor_id='2')
        names = [s['name'] for s in self.api.get('/servers').body['servers']]
        self.assertEqual(['beta', 'alpha'], names)
        page = self.api.get('/servers?limit=1').body
        self.assertEqual([second['id']], [s['id'] for s in page['servers']])
        self.assertIn('servers_links', page)
        page = self.api.get('/servers?limit=1&marker=%s'
                            % second['id']).body
        self.assertEqual([first['id']], [s['id'] for s in page['servers']])
        self.assertEqual(['alpha'], [s['name'] for s in self.api.get(
            '/servers?name=^alp').body['servers']])
        self.assertEqual(['beta'], [s['name'] for s in self.api.get(
            '/servers/detail?flavor=2').body['servers']])
        self.assertEqual(2, len(self.api.get(
            '/servers?status=ACTIVE').body['servers']))
        self.assertEqual([], self.api.get(
            '/servers?status=SHUTOFF').body['servers'])
        self.assertEqual(400, self.api.get(
            '/servers?marker=%s' % 'f0000000-0000-4000-8000-000000000000'
        ).status)
        self.assertEqual(400, self.api.get(
            '/servers?bogus=1', version='2.75').status)
        self.assertEqual(200, self.api.get(
            '/servers?bogus=1', version='2.74').status)

    def test_project_isolation(self):
        server = self.boot()
        other = integrated.APIClient(self.cloud.app, token=OTHER_TOKEN)
        self.assertEqual([], other.get('/servers').body['servers'])
        self.assertEqual(404, other.get('/servers/%s' % server['id']).status)
        self.assertEqual(404, other.delete('/servers/%s'
                                           % server['id']).status)
        self.assertEqual(403, other.get('/servers?all_tenants=1').status)
        listed = self.admin_api.get('/servers?all_tenants=1').body
        self.assertEqual([server['id']], [s['id'] for s in
                                          listed['servers']])
        self.assertEqual(404, self.api.get('/servers/not-a-uuid').status)
        member_view = self.api.get('/servers/%s' % server['id']).body
        self.assertNotIn('OS-EXT-SRV-ATTR:host', member_view['server'])

    def test_flavor_embedded_from_2_47(self):
        server = self.boot()
        old = self.api.get('/servers/%s' % server['id'],
                           version='2.46').body['server']
        self.assertEqual('1', old['flavor']['id'])
        new = self.api.get('/servers/%s' % server['id'],
                           version='2.47').body['server']
        self.assertEqual(512, new['flavor']['ram'])

    # -- update, delete --------------------------------------------------

    def test_update_and_delete(self):
        server = self.boot()
        response = self.api.put('/servers/%s' % server['id'], {'server': {
            'name': 'renamed', 'description': 'hello'}})
        self.assertEqual(200, response.status, response)
        self.assertEqual(('renamed', 'hello'),
                         (response.body['server']['name'],
                          response.body['server']['description']))
        self.assertBadRequest(self.api.put(
            '/servers/%s' % server['id'], {'server': {'bogus': 1}}),
            'bogus')
        self.assertEqual(204, self.api.delete('/servers/%s'
                                              % server['id']).status)
        self.cloud.wait_for_builds()
        self.cloud.wait_until_deleted(server['id'])
        self.assertEqual({}, self.cloud.allocations(server['id']))

    def test_delete_with_compute_down_is_local(self):
        server = self.boot()
        cell = self.cloud.dbs.cells['cell1']
        context = nl_context.get_admin_context()
        with cells.target_cell(context, cell) as cctxt:
            service = objects.Service.get_by_host_and_binary(
                cctxt, server['OS-EXT-SRV-ATTR:host'], 'nova-lite-compute')
            service.forced_down = True
            service.save()
        self.assertEqual(204, self.api.delete('/servers/%s'
                                              % server['id']).status)
        self.assertEqual(404, self.api.get('/servers/%s'
                                           % server['id']).status)
        self.assertEqual({}, self.cloud.allocations(server['id']))

    # -- actions --------------------------------------------------------------

    def _wait_status(self, server_id, status):
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(server_id, status)

    def test_power_actions(self):
        server_id = self.boot()['id']
        steps = [({'os-stop': None}, 'SHUTOFF'),
                 ({'os-start': None}, 'ACTIVE'),
                 ({'reboot': {'type': 'SOFT'}}, 'ACTIVE'),
                 ({'pause': None}, 'PAUSED'),
                 ({'unpause': None}, 'ACTIVE'),
                 ({'suspend': None}, 'SUSPENDED'),
                 ({'resume': None}, 'ACTIVE')]
        for body, status in steps:
            response = self.action(server_id, body)
            self.assertEqual(202, response.status, (body, response))
            self._wait_status(server_id, status)

    def test_action_in_wrong_state_is_409(self):
        server_id = self.boot()['id']
        response = self.action(server_id, {'os-start': None})
        self.assertEqual(409, response.status, response)
        self.assertBadRequest(self.action(server_id, {'reboot': {
            'type': 'SIDEWAYS'}}), 'type')
        self.assertBadRequest(self.action(server_id, {'explode': None}),
                              'explode')

    def test_lock_blocks_members_not_admins(self):
        server_id = self.boot()['id']
        response = self.action(server_id, {'lock': {
            'locked_reason': 'maintenance'}}, api=self.admin_api,
            version='2.73')
        self.assertEqual(202, response.status, response)
        shown = self.api.get('/servers/%s' % server_id).body['server']
        self.assertEqual((True, 'maintenance'),
                         (shown['locked'], shown['locked_reason']))
        self.assertEqual(409, self.action(server_id,
                                          {'os-stop': None}).status)
        self.assertEqual(403, self.action(server_id,
                                          {'unlock': None}).status)
        self.assertEqual(202, self.action(server_id, {'os-stop': None},
                                          api=self.admin_api).status)
        self._wait_status(server_id, 'SHUTOFF')
        self.assertEqual(202, self.action(server_id, {'unlock': None},
                                          api=self.admin_api).status)


class MultiCellListTestCase(testtools.TestCase):
    """Servers of two cells and build requests, in one order."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture(
            cells=('cell1', 'cell2')))
        self.useFixture(NameOrderScheduler())
        self.cloud.start_compute('host1', cell='cell1')
        self.cloud.start_compute('host2', cell='cell2')

    def test_sorted_across_cells_with_paging(self):
        hosts = ['host1', 'host2', 'host1', 'host2']
        created = []
        for index, host in enumerate(hosts):
            server = self.cloud.create_server(
                name='vm%d' % index, availability_zone='nova:%s' % host,
                api=self.cloud.admin_api)
            self.cloud.wait_for_builds()
            shown = self.cloud.wait_for_server(server['id'], 'ACTIVE')
            self.assertEqual(host, shown['OS-EXT-SRV-ATTR:host'])
            created.append(server['id'])
        newest_first = list(reversed(created))
        api = self.cloud.admin_api
        listed = api.get('/servers').body['servers']
        self.assertEqual(newest_first, [s['id'] for s in listed])
        seen, marker = [], None
        while True:
            path = '/servers?limit=3' + ('&marker=%s' % marker
                                         if marker else '')
            page = api.get(path).body['servers']
            if not page:
                break
            seen.extend(s['id'] for s in page)
            marker = page[-1]['id']
        self.assertEqual(newest_first, seen)
        hosts_listed = [s['OS-EXT-SRV-ATTR:host'] for s in api.get(
            '/servers/detail?host=host2').body['servers']]
        self.assertEqual(['host2', 'host2'], hosts_listed)


class MalformedRequestsTestCase(testtools.TestCase):
    """Bad input gets a 4xx naming the problem, never a 500."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.useFixture(NameOrderScheduler())
        self.cloud.start_compute('host1')
        server = self.cloud.create_server()
        self.cloud.wait_for_builds()
        self.server_id = self.cloud.wait_for_server(server['id'],
                                                    'ACTIVE')['id']

    def test_no_500(self):
        sid = self.server_id
        missing = 'b7e5c2f4-3b1e-4e8a-9d6a-2f0e6c1d2a3b'
        cases = [
            ('POST', '/servers', None, 400),
            ('POST', '/servers', [], 400),
            ('POST', '/servers', {'server': []}, 400),
            ('POST', '/servers', {'server': {'name': ' x', 'flavorRef': '1',
                                             'networks': 'none'}}, 400),
            ('POST', '/servers', {'server': {'name': 'x', 'flavorRef': '',
                                             'networks': 'none'}}, 400),
            ('POST', '/servers', {'server': {
                'name': 'x', 'flavorRef': '1', 'networks': 'none',
                'metadata': {'k': 1}}}, 400),
            ('POST', '/servers', {'server': {
                'name': 'x', 'flavorRef': '1', 'networks': 'none',
                'max_count': 'many'}}, 400),
            ('POST', '/servers', {'server': {
                'name': 'x', 'flavorRef': '1', 'networks': 'none',
                'imageRef': 'cirros-0.6.3-x86_64-disk',
                'min_count': 3, 'max_count': 2}}, 400),
            ('POST', '/servers', {'server': {
                'name': 'x', 'flavorRef': '1', 'networks': 'none',
                'imageRef': 'cirros-0.6.3-x86_64-disk',
                'key_name': 'nokey'}}, 400),
            ('POST', '/servers', {'server': {
                'name': 'x', 'flavorRef': '1', 'networks': 'none',
                'imageRef': 'cirros-0.6.3-x86_64-disk'},
                'os:scheduler_hints': {'group': missing}}, 400),
            ('POST', '/servers', {'server': {
                'name': 'x', 'flavorRef': '1', 'networks': 'none',
                'imageRef': 'cirros-0.6.3-x86_64-disk',
                'availability_zone': 'a:b:c:d'}}, 403),
            ('GET', '/servers?limit=abc', None, 400),
            ('GET', '/servers?limit=-1', None, 400),
            ('GET', '/servers?changes-since=yesterday', None, 400),
            ('GET', '/servers?status=DELETED', None, 403),
            ('GET', '/servers/%s' % missing, None, 404),
            ('GET', '/servers/123', None, 404),
            ('PUT', '/servers/%s' % sid, {'server': {'name': ''}}, 400),
            ('PUT', '/servers/%s' % sid, {'bogus': {}}, 400),
            ('PUT', '/servers/%s' % missing, {'server': {'name': 'y'}}, 404),
            ('DELETE', '/servers/zzz', None, 404),
            ('POST', '/servers/%s/action' % sid, None, 400),
            ('POST', '/servers/%s/action' % sid, {'a': 1, 'b': 2}, 400),
            ('POST', '/servers/%s/action' % sid, {'os-stop': {'x': 1}},
             400),
            ('POST', '/servers/%s/action' % missing, {'os-stop': None},
             404),
            ('POST', '/servers/%s/action' % sid, {'lock': {
                'locked_reason': 'r'}}, 400),
            ('PATCH', '/servers/%s' % sid, {}, 404),
        ]
        for method, path, body, expected in cases:
            if body is None and method in ('POST', 'PUT'):
                response = self.cloud.api.request(
                    method, path, headers={'Content-Type':
                                           'application/json'})
            else:
                response = self.cloud.api.request(method, path, body=body,
                                                  version='2.72')
            self.assertEqual(expected, response.status,
                             (method, path, body, response))
