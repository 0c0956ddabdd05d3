"""Shelve, shelve offload and unshelve (NOVA_FACTS §5.5, §8.3 no. 17).

What a user sees: the server's status and host, its instance actions, and
in placement the usage of every node: a shelved server still holds its
flavor on its host, an offloaded one holds nothing anywhere, an unshelved
one holds its flavor on the node it came back on, and nothing else.
"""

import datetime

import fixtures
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.api.compute import shelve as compute_shelve
from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from nova_lite.virt import exception as virt_exc
from tests.functional.moves import base

FLAVOR_1 = base.FLAVOR_1
ZERO = base.ZERO
HOSTS = ('host1', 'host2')


class ShelveTestBase(base.MovesTestBase):

    def setUp(self):
        super().setUp()
        self.nodes = {host: self.node_of(host) for host in HOSTS}

    def host_of(self, server_id):
        return self.cloud.get_server(server_id)['OS-EXT-SRV-ATTR:host']

    def other_host(self, host):
        return [h for h in HOSTS if h != host][0]

    def assert_usage_only_on(self, host):
        """Usage = the flavor on ``host``'s node, zero elsewhere (host
        None: zero everywhere)."""
        for each in HOSTS:
            self.assert_usage(self.nodes[each],
                              FLAVOR_1 if each == host else ZERO)

    def shelve(self, server_id, status, api=None):
        self.post_action(server_id, {'shelve': None}, api=api or self.api)
        return self.cloud.wait_for_server(server_id, status)

    def unshelve(self, server_id, body=None, api=None, version=None):
        response = (api or self.api).post(
            '/servers/%s/action' % server_id, {'unshelve': body},
            version=version)
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        return response

    def set_service_status(self, host, status):
        services = self.admin_api.get(
            '/os-services?binary=nova-lite-compute&host=%s' % host)
        (service,) = services.body['services']
        response = self.admin_api.put('/os-services/%s' % service['id'],
                                      {'status': status})
        self.assertEqual(200, response.status, response)

    def actions(self, server_id):
        """{action name: (message, {event: result})}, oldest first."""
        response = self.admin_api.get('/servers/%s/os-instance-actions'
                                      % server_id)
        self.assertEqual(200, response.status, response)
        result = {}
        for action in response.body['instanceActions']:
            detail = self.admin_api.get(
                '/servers/%s/os-instance-actions/%s'
                % (server_id, action['request_id'])).body['instanceAction']
            result[action['action']] = (
                action['message'],
                {e['event']: e['result'] for e in detail['events']})
        return result


class ShelveOffloadTestCase(ShelveTestBase):
    """``shelved_offload_time`` 0 (the default): shelve offloads."""

    def test_shelve_offload_unshelve_diff_host(self):
        """17: offload frees everything; unshelve with the old host
        disabled lands on the other one and claims only there."""
        server = self.boot('ACTIVE')
        source = self.host_of(server['id'])
        self.assert_usage_only_on(source)

        shelved = self.shelve(server['id'], 'SHELVED_OFFLOADED')
        self.assertIsNone(shelved['OS-EXT-SRV-ATTR:host'])
        self.assertIsNone(shelved['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assert_usage_only_on(None)

        self.set_service_status(source, 'disabled')
        self.unshelve(server['id'])
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        target = self.other_host(source)
        self.assertEqual(target, active['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({self.nodes[target]: FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assert_usage_only_on(target)
        self.cloud.run_periodics()
        self.assert_usage_only_on(target)

        actions = self.actions(server['id'])
        self.assertEqual(
            {'compute_shelve_instance': 'Success',
             'compute_shelve_offload_instance': 'Success'},
            actions['shelve'][1])
        self.assertEqual(
            {'conductor_unshelve_instance': 'Success',
             'compute_unshelve_instance': 'Success'},
            actions['unshelve'][1])
        self.delete_and_check_no_allocations(server['id'])
        self.assert_usage_only_on(None)

    def test_unshelve_to_a_host_at_2_91(self):
        """2.91: an admin names the host; a member may not; an unknown
        host is a 400, and the server stays offloaded."""
        server = self.boot('ACTIVE')
        source = self.host_of(server['id'])
        target = self.other_host(source)
        self.shelve(server['id'], 'SHELVED_OFFLOADED')

        body = {'unshelve': {'host': target}}
        url = '/servers/%s/action' % server['id']
        self.assertEqual(403, self.api.post(url, body).status)
        response = self.admin_api.post(url, {'unshelve': {'host': 'nope'}})
        self.assertEqual(400, response.status, response)
        self.assertIn('nope', response.text)
        response = self.admin_api.post(url, body, version='2.90')
        self.assertEqual(400, response.status, response)
        self.assertEqual('SHELVED_OFFLOADED',
                         self.cloud.get_server(server['id'])['status'])

        self.unshelve(server['id'], {'host': target}, api=self.admin_api)
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(target, active['OS-EXT-SRV-ATTR:host'])
        self.assert_usage_only_on(target)

    def test_unshelve_into_an_availability_zone_at_2_77(self):
        """2.77: the zone pins the server; an unknown zone is a 400."""
        server = self.boot('ACTIVE')
        self.shelve(server['id'], 'SHELVED_OFFLOADED')
        url = '/servers/%s/action' % server['id']
        response = self.api.post(
            url, {'unshelve': {'availability_zone': 'atlantis'}})
        self.assertEqual(400, response.status, response)
        self.unshelve(server['id'], {'availability_zone': 'nova'},
                      version='2.77')
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('nova', active['OS-EXT-AZ:availability_zone'])
        self.assert_usage_only_on(active['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('nova', self._stored_zone(server['id']))

        # 2.91: None unpins the server (what --no-availability-zone
        # sends); it still lands in a zone, the one of its new host.
        self.shelve(server['id'], 'SHELVED_OFFLOADED')
        self.unshelve(server['id'], {'availability_zone': None},
                      version='2.91')
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('nova', active['OS-EXT-AZ:availability_zone'])
        self.assertIsNone(self._stored_zone(server['id']))
        self.assert_usage_only_on(active['OS-EXT-SRV-ATTR:host'])

    def _stored_zone(self, server_id):
        """The zone the server is pinned to (its stored request spec)."""
        return objects.RequestSpec.get_by_instance_uuid(
            nl_context.get_admin_context(), server_id).availability_zone

    def test_no_valid_host_keeps_the_server_offloaded(self):
        """Every host disabled: 202, then still SHELVED_OFFLOADED with no
        task, the conductor event failed, nothing claimed."""
        server = self.boot('ACTIVE')
        self.shelve(server['id'], 'SHELVED_OFFLOADED')
        for host in HOSTS:
            self.set_service_status(host, 'disabled')
        self.unshelve(server['id'])
        after = self.cloud.get_server(server['id'])
        self.assertEqual('SHELVED_OFFLOADED', after['status'])
        self.assertIsNone(after['OS-EXT-STS:task_state'])
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assert_usage_only_on(None)
        message, events = self.actions(server['id'])['unshelve']
        self.assertEqual('Error', message)
        self.assertEqual({'conductor_unshelve_instance': 'Error'}, events)

        # The hosts back: the same server unshelves fine.
        self.set_service_status(HOSTS[0], 'enabled')
        self.unshelve(server['id'])
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assert_usage_only_on(HOSTS[0])
        self.assertEqual(HOSTS[0], active['OS-EXT-SRV-ATTR:host'])

    def test_scheduler_claims_then_times_out(self):
        """The scheduler claims a host but its answer never comes: the
        claim is dropped, the server SHELVED_OFFLOADED with no task."""
        server = self.boot('ACTIVE')
        self.shelve(server['id'], 'SHELVED_OFFLOADED')
        select = scheduler_rpcapi.SchedulerAPI.select_destinations
        answers_lost = [True]

        def claim_then_time_out(api, *args, **kwargs):
            answer = select(api, *args, **kwargs)
            if answers_lost:
                raise messaging.MessagingTimeout('no answer from the '
                                                 'scheduler')
            return answer

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.rpcapi.SchedulerAPI.select_destinations',
            claim_then_time_out))
        self.unshelve(server['id'])
        after = self.cloud.get_server(server['id'])
        self.assertEqual(('SHELVED_OFFLOADED', None),
                         (after['status'], after['OS-EXT-STS:task_state']))
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assert_usage_only_on(None)
        answers_lost.clear()
        self.unshelve(server['id'])
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assert_usage_only_on(active['OS-EXT-SRV-ATTR:host'])

    def test_refused_unshelve_does_not_pin(self):
        """An unshelve that loses the race for the server (409) leaves
        its availability zone pin as it was."""
        server = self.boot('ACTIVE')
        self.shelve(server['id'], 'SHELVED_OFFLOADED')
        prepare = compute_shelve.ShelveAPI._unshelve_spec

        def someone_else_first(api, context, instance, *args):
            specs = prepare(api, context, instance, *args)
            with cells.target_cell(
                    nl_context.get_admin_context(),
                    self.cloud.dbs.cells['cell1']) as cctxt:
                row = objects.Instance.get_by_uuid(cctxt, instance.uuid)
                row.task_state = 'unshelving'
                row.save()
            return specs

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.api.compute.shelve.ShelveAPI._unshelve_spec',
            someone_else_first))
        response = self.api.post('/servers/%s/action' % server['id'],
                                 {'unshelve': {'availability_zone': 'nova'}},
                                 version='2.77')
        self.assertEqual(409, response.status, response)
        self.assertIsNone(self._stored_zone(server['id']))

    def test_failed_spawn_goes_back_to_offloaded(self):
        """The compute's spawn fails: the new claim is dropped and the
        server is SHELVED_OFFLOADED again, with the error on the event."""
        server = self.boot('ACTIVE')
        self.shelve(server['id'], 'SHELVED_OFFLOADED')
        self.inject_spawn_failures(
            lambda instance, attempt: virt_exc.BuildFailed(
                instance_uuid=instance.uuid, node=instance.node,
                reason='disk on fire'))
        self.unshelve(server['id'])
        after = self.cloud.get_server(server['id'])
        self.assertEqual('SHELVED_OFFLOADED', after['status'])
        self.assertIsNone(after['OS-EXT-STS:task_state'])
        self.assertIsNone(after['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assert_usage_only_on(None)
        message, events = self.actions(server['id'])['unshelve']
        self.assertEqual('Error', events['compute_unshelve_instance'])
        self.delete_and_check_no_allocations(server['id'])

    def test_states_that_cannot_be_shelved_or_unshelved(self):
        """409 for unshelve of an active server, for shelve of a shelved
        one, for shelveOffload of an offloaded one; members may not
        shelveOffload."""
        server = self.boot('ACTIVE')
        url = '/servers/%s/action' % server['id']
        self.assertEqual(409, self.api.post(url, {'unshelve': None}).status)
        self.shelve(server['id'], 'SHELVED_OFFLOADED')
        self.assertEqual(409, self.api.post(url, {'shelve': None}).status)
        self.assertEqual(403, self.api.post(
            url, {'shelveOffload': None}).status)
        self.assertEqual(409, self.admin_api.post(
            url, {'shelveOffload': None}).status)
        response = self.api.post(url, {'unshelve': {'bogus': 1}},
                                 version='2.91')
        self.assertEqual(400, response.status, response)


class ShelveKeepTestCase(ShelveTestBase):
    """``shelved_offload_time`` -1: a shelved server keeps its host."""

    FLAGS = {'DEFAULT': {'shelved_offload_time': -1}}

    def test_shelve_keeps_usage_unshelve_on_same_host(self):
        server = self.boot('ACTIVE')
        host = self.host_of(server['id'])
        shelved = self.shelve(server['id'], 'SHELVED')
        self.assertEqual(host, shelved['OS-EXT-SRV-ATTR:host'])
        self.assert_usage_only_on(host)
        self.assertEqual({self.nodes[host]: FLAVOR_1},
                         self.allocation_by_node(server['id']))

        self.unshelve(server['id'])
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(host, active['OS-EXT-SRV-ATTR:host'])
        self.assert_usage_only_on(host)
        self.assertEqual({'compute_unshelve_instance': 'Success'},
                         self.actions(server['id'])['unshelve'][1])

    def test_admin_offloads_a_shelved_server(self):
        server = self.boot('ACTIVE')
        host = self.host_of(server['id'])
        self.shelve(server['id'], 'SHELVED')
        url = '/servers/%s/action' % server['id']
        self.assertEqual(403, self.api.post(
            url, {'shelveOffload': None}).status)
        # A zone or a host only make sense for an offloaded server.
        self.assertEqual(409, self.admin_api.post(
            url, {'unshelve': {'host': host}}).status)
        self.post_action(server['id'], {'shelveOffload': None})
        self.cloud.wait_for_server(server['id'], 'SHELVED_OFFLOADED')
        self.assert_usage_only_on(None)
        self.unshelve(server['id'])
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assert_usage_only_on(active['OS-EXT-SRV-ATTR:host'])


class ShelveTimedOffloadTestCase(ShelveTestBase):
    """``shelved_offload_time`` > 0: the compute offloads servers shelved
    for longer, from its periodic task."""

    FLAGS = {'DEFAULT': {'shelved_offload_time': 3600}}

    def _backdate_shelve(self, server_id, hours):
        """Pretend the server was shelved ``hours`` ago."""
        from nova_lite.db.cell import instance_api
        context = nl_context.get_admin_context()
        cell = self.cloud.dbs.cells['cell1']
        with cells.target_cell(context, cell) as cctxt:
            instance = instance_api.instance_get_by_uuid(cctxt, server_id)
            system_metadata = dict(instance.system_metadata)
            system_metadata['shelved_at'] = (
                timeutils.utcnow() - datetime.timedelta(hours=hours)
            ).isoformat()
            instance_api.instance_update(
                cctxt, server_id, {'system_metadata': system_metadata})

    def _offload_due(self, host):
        manager = self.cloud.computes[host].manager
        return manager.offload_expired_shelved_instances(
            nl_context.get_admin_context())

    def test_offloaded_once_shelved_long_enough(self):
        server = self.boot('ACTIVE')
        host = self.host_of(server['id'])
        self.shelve(server['id'], 'SHELVED')
        self.assertEqual(0, self._offload_due(host))
        self.assert_usage_only_on(host)

        self._backdate_shelve(server['id'], hours=2)
        self.assertEqual(1, self._offload_due(host))
        self.cloud.wait_for_server(server['id'], 'SHELVED_OFFLOADED')
        self.assert_usage_only_on(None)
        self.assertEqual({}, self.cloud.allocations(server['id']))
