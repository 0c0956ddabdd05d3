"""Evacuate (NOVA_FACTS 5.3, §8.3 number 16): the instance consumer holds
its source and destination allocations together until the source compute
comes back and cleans up its side."""

import fixtures
import oslo_messaging as messaging

from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from nova_lite.testing import integrated
from tests.functional.moves import base


class EvacuateTestBase(base.MovesTestBase):

    def boot_on(self, host):
        server = self.boot('ACTIVE', api=self.admin_api, host=host)
        self.assertEqual(host, server['OS-EXT-SRV-ATTR:host'])
        return server

    def service_id(self, host):
        response = self.admin_api.get(
            '/os-services?host=%s&binary=nova-lite-compute' % host)
        self.assertEqual(200, response.status, response)
        return response.body['services'][0]['id']

    def force_down(self, host, down=True):
        response = self.admin_api.put(
            '/os-services/%s' % self.service_id(host),
            {'forced_down': down})
        self.assertEqual(200, response.status, response)

    def stop_compute(self, host):
        """The compute process of ``host`` dies; an operator marks its
        service forced down (so evacuate is allowed at once)."""
        self.cloud.computes.pop(host).stop()
        self.force_down(host)

    def restart_compute(self, host):
        """The compute of ``host`` starts again (its guests outlived it)."""
        service = integrated.nl_fixtures.make_service(
            'compute', host=host, cell=self.cloud.dbs.cells['cell1'])
        self.addCleanup(service.stop)
        service.start()
        self.cloud.computes[host] = service
        self.force_down(host, down=False)
        return service

    def evacuate(self, server_id, body=None, status=200, api=None):
        response = (api or self.admin_api).post(
            '/servers/%s/action' % server_id, {'evacuate': body or {}})
        self.assertEqual(status, response.status, response)
        self.cloud.wait_for_builds()
        return response

    def guests_on(self, host):
        return self.cloud.computes[host].manager.driver.list_instance_uuids()


class EvacuateTestCase(EvacuateTestBase):

    def test_evacuate_kept_on_both_until_the_source_restarts(self):
        """16: doubled allocation while host1 is down; host1 cleans up
        when it comes back (guest gone, usage 0, migration completed)."""
        server = self.boot_on('host1')
        source, dest = self.node_of('host1'), self.node_of('host2')
        self.stop_compute('host1')
        self.evacuate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({source: base.FLAVOR_1, dest: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assert_usage(source, base.FLAVOR_1)
        self.assert_usage(dest, base.FLAVOR_1)
        migration = self.migrations(server['id'])[0]
        self.assertEqual(('evacuation', 'done', 'host1', 'host2'),
                         (migration.migration_type, migration.status,
                          migration.source_compute, migration.dest_compute))
        self.assertEqual({}, self.allocation_by_node(migration.uuid))
        self.assertIn(server['id'], self.guests_on('host2'))

        self.restart_compute('host1')
        self.assertNotIn(server['id'], self.guests_on('host1'))
        self.assertEqual({dest: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assert_usage(source, base.ZERO)
        self.assert_usage(dest, base.FLAVOR_1)
        self.assertEqual('completed',
                         self.migrations(server['id'])[0].status)
        self.cloud.run_periodics()
        self.assert_usage(source, base.ZERO)
        server = self.cloud.get_server(server['id'])
        self.assertEqual(('ACTIVE', 'host2'),
                         (server['status'], server['OS-EXT-SRV-ATTR:host']))
        actions = self.admin_api.get(
            '/servers/%s/os-instance-actions' % server['id']).body
        self.assertEqual('evacuate', actions['instanceActions'][0]['action'])
        self.assertEqual(
            204, self.admin_api.delete('/servers/%s' % server['id']).status)
        self.cloud.wait_for_builds()
        self.cloud.wait_until_deleted(server['id'])
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assert_usage(source, base.ZERO)
        self.assert_usage(dest, base.ZERO)

    def test_stopped_server_stays_stopped(self):
        server = self.boot_on('host1')
        self.post_action(server['id'], {'os-stop': None})
        self.cloud.wait_for_server(server['id'], 'SHUTOFF')
        self.stop_compute('host1')
        self.evacuate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'SHUTOFF')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])

    def test_evacuate_from_a_host_that_is_up_is_refused(self):
        """The source compute is alive: 400, as Nova (ComputeServiceInUse);
        nothing changes."""
        server = self.boot_on('host1')
        response = self.evacuate(server['id'], status=400)
        self.assertIn('still in use', response.text)
        server = self.cloud.get_server(server['id'])
        self.assertEqual(('ACTIVE', 'host1'),
                         (server['status'], server['OS-EXT-SRV-ATTR:host']))
        self.assertEqual([], self.migrations(server['id']))
        self.assertEqual({self.node_of('host1'): base.FLAVOR_1},
                         self.allocation_by_node(server['id']))

    def test_members_and_bad_targets_are_refused(self):
        server = self.boot('ACTIVE')
        self.evacuate(server['id'], status=403, api=self.api)
        source = server['OS-EXT-SRV-ATTR:host'] if \
            'OS-EXT-SRV-ATTR:host' in server else \
            self.cloud.get_server(server['id'])['OS-EXT-SRV-ATTR:host']
        self.stop_compute(source)
        self.evacuate(server['id'], {'host': 'nowhere'}, status=404)
        self.evacuate(server['id'], {'host': source}, status=400)
        self.assertEqual([], self.migrations(server['id']))

    def test_spawn_failure_on_the_destination(self):
        """The destination's driver fails: its part of the allocation is
        dropped, the migration failed, the instance ERROR on its source."""
        server = self.boot_on('host1')
        source, dest = self.node_of('host1'), self.node_of('host2')
        self.stop_compute('host1')
        self.fail_every_spawn()
        self.evacuate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertIn('spawn fails', server['fault']['message'])
        self.assertEqual({source: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assert_usage(dest, base.ZERO)
        self.assertEqual('failed', self.migrations(server['id'])[0].status)


class EvacuateNoHostTestCase(EvacuateTestBase):
    """One compute only: nowhere to go."""

    COMPUTES = ('host1',)

    def test_no_valid_host(self):
        """As Nova: the migration in error, the instance ERROR with the
        NoValidHost fault, its source allocation untouched."""
        server = self.boot_on('host1')
        self.stop_compute('host1')
        self.evacuate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual({self.node_of('host1'): base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assertEqual('error', self.migrations(server['id'])[0].status)


class EvacuateToHostTestCase(EvacuateTestBase):

    COMPUTES = ('host1', 'host2', 'host3')

    def test_requested_host(self):
        server = self.boot_on('host1')
        self.stop_compute('host1')
        self.evacuate(server['id'], {'host': 'host3'})
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host3', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({self.node_of('host1'): base.FLAVOR_1,
                          self.node_of('host3'): base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assert_usage(self.node_of('host2'), base.ZERO)

    def disable(self, host):
        response = self.admin_api.put(
            '/os-services/%s' % self.service_id(host),
            {'status': 'disabled'})
        self.assertEqual(200, response.status, response)

    def test_forced_host_skips_the_scheduler(self):
        """Before 2.68 ``force`` puts the server on the named host even
        when the scheduler would not (disabled): its node's share joins
        the source allocation; at 2.68 ``force`` is gone (400)."""
        server = self.boot_on('host1')
        source, forced = self.node_of('host1'), self.node_of('host3')
        self.stop_compute('host1')
        self.disable('host3')
        path = '/servers/%s/action' % server['id']
        body = {'evacuate': {'host': 'host3', 'force': True}}
        response = self.admin_api.post(path, body, version='2.68')
        self.assertEqual(400, response.status, response)
        self.assertEqual([], self.migrations(server['id']))
        response = self.admin_api.post(path, body, version='2.29')
        self.assertEqual(200, response.status, response)
        self.cloud.wait_for_builds()
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host3', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({source: base.FLAVOR_1, forced: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        self.assert_usage(self.node_of('host2'), base.ZERO)
        migration = self.migrations(server['id'])[0]
        self.assertEqual(('done', 'host3'),
                         (migration.status, migration.dest_compute))

    def test_scheduler_claims_then_times_out(self):
        """The scheduler claims a destination but its answer never comes:
        the claim is dropped again, the server ERROR on its source, which
        alone holds its allocation."""
        server = self.boot_on('host1')
        source = self.node_of('host1')
        self.stop_compute('host1')
        select = scheduler_rpcapi.SchedulerAPI.select_destinations

        def claim_then_time_out(api, *args, **kwargs):
            select(api, *args, **kwargs)
            raise messaging.MessagingTimeout('no answer from the scheduler')

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.rpcapi.SchedulerAPI.select_destinations',
            claim_then_time_out))
        self.evacuate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({source: base.FLAVOR_1},
                         self.allocation_by_node(server['id']))
        for host in ('host2', 'host3'):
            self.assert_usage(self.node_of(host), base.ZERO)
        self.assertEqual('error', self.migrations(server['id'])[0].status)
