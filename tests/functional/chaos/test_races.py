"""Classic Nova races, reproduced message by message.

Each test holds, drops, duplicates or fails one RPC message with the
harness's rules (doc/chaos.md), lets the rest of the cloud run, then
checks what a user and an operator would see: the server's state, the
allocations in placement, the quota usage, the guests on the hypervisor.
No test sleeps: every wait is the harness's own polling.
"""

import testtools

from nova_lite.testing import integrated

BUILD = 'build_and_run_instance'


class RaceTestCase(testtools.TestCase):

    flags = {}
    cast_as_call = True

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture(
            cast_as_call=self.cast_as_call, flags=self.flags))
        self.cloud.start_compute('host1')

    def guests(self, host='host1'):
        return self.cloud.computes[host].manager.driver.list_instance_uuids()

    def quota_used(self):
        limits = self.cloud.api.get('/limits').body['limits']['absolute']
        return (limits['totalInstancesUsed'], limits['totalCoresUsed'],
                limits['totalRAMUsed'])

    def node_usage(self):
        return self.cloud.usages('host1-node-0')

    def assert_nothing_left(self, server_id):
        """No server, no guest, no allocation, no usage, no quota."""
        self.assertEqual(404, self.cloud.admin_api.get(
            '/servers/%s' % server_id).status)
        self.assertEqual([], self.cloud.api.get('/servers').body['servers'])
        self.assertEqual([], self.guests())
        self.assertEqual({}, self.cloud.allocations(server_id))
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         self.node_usage())
        self.assertEqual((0, 0, 0), self.quota_used())


class DeleteDuringBuildTestCase(RaceTestCase):
    """The delete overtakes the build cast on its way to the compute."""

    def test_delete_while_build_held_leaves_no_ghost(self):
        self.cloud.add_rule('hold', method=BUILD, server='host1',
                            bus='cell1', count=1)
        server = self.cloud.create_server()
        held = self.cloud.wait_held(method=BUILD, instance=server['id'])
        self.assertEqual(('cell1', 'compute', 'cast'),
                         (held['bus'], held['topic'], held['kind']))
        response = self.cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        self.cloud.wait_until_deleted(server['id'])
        self.assertEqual(1, self.cloud.release(method=BUILD))
        self.cloud.wait_for_builds()
        self.assert_nothing_left(server['id'])

    def test_held_build_released_builds(self):
        # The same hold without the delete: the message was kept, not lost.
        self.cloud.add_rule('hold', method=BUILD, count=1)
        server = self.cloud.create_server()
        self.cloud.wait_held(method=BUILD, instance=server['id'])
        self.assertEqual('BUILD', self.cloud.get_server(server['id'])[
            'status'])
        self.assertEqual([], self.guests())
        self.cloud.release(instance=server['id'])
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual([server['id']], self.guests())
        self.assertEqual((1, 1, 512), self.quota_used())


class DeleteDuringSpawnTestCase(RaceTestCase):
    """The delete arrives while the compute is spawning: the guest exists,
    the build has not recorded its end yet.

    As in Nova, the compute runs one operation on an instance at a time,
    so the terminate waits for the build: with casts turned into calls
    the API's delete would wait with it, so this test keeps real casts.
    """

    cast_as_call = False

    def test_delete_while_spawning_leaves_no_guest(self):
        self.cloud.add_rule('hold', method='build_finish', bus='cell1',
                            count=1)
        server = self.cloud.create_server()
        self.cloud.wait_held(method='build_finish', instance=server['id'])
        self.assertEqual([server['id']], self.guests())
        response = self.cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        self.cloud.release(method='build_finish')
        self.cloud.wait_until_deleted(server['id'])
        self.cloud.wait_for_builds()
        self.assert_nothing_left(server['id'])


class DroppedBuildTestCase(RaceTestCase):
    """The build cast to the compute is lost.

    As in Nova, the instance has no host until its compute takes the
    build, so the compute's build timeout (which looks at the instances
    of its own host) never sees it: it stays BUILD (task ``scheduling``)
    with its allocation and its quota until the user deletes it, and the
    delete, local to the API, gives everything back.
    """

    flags = {'compute': {'instance_build_timeout': 60}}

    def test_dropped_build_stays_until_deleted(self):
        clock = self.cloud.use_fake_clock()
        self.cloud.add_rule('drop', method=BUILD, count=1)
        server = self.cloud.create_server()
        clock.advance(3600)
        self.cloud.run_periodic('host1', 'check_build_timeouts')
        shown = self.cloud.get_server(server['id'])
        self.assertEqual(('BUILD', 'scheduling', None),
                         (shown['status'], shown['OS-EXT-STS:task_state'],
                          shown['OS-EXT-SRV-ATTR:host']))
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
                         self.node_usage())
        self.assertEqual((1, 1, 512), self.quota_used())
        self.assertEqual([], self.guests())
        response = self.cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        self.cloud.wait_until_deleted(server['id'])
        self.assert_nothing_left(server['id'])


class DuplicateTestCase(RaceTestCase):
    """A cast delivered twice (a redelivery after a lost ack)."""

    def test_duplicate_build_builds_once(self):
        self.cloud.add_rule('duplicate', method=BUILD, count=1)
        server = self.cloud.create_server()
        self.cloud.wait_for_builds()
        shown = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertNotIn('fault', shown)
        self.assertEqual([server['id']], self.guests())
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
                         self.node_usage())
        self.assertEqual((1, 1, 512), self.quota_used())
        self.assertEqual([], self.cloud.chaos.rules())  # spent

    def test_duplicate_build_at_dispatch_builds_once(self):
        self.cloud.add_rule('duplicate', at='dispatch', method=BUILD,
                            count=1)
        server = self.cloud.create_server()
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual([server['id']], self.guests())
        self.assertEqual((1, 1, 512), self.quota_used())

    def test_duplicate_delete_is_harmless(self):
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.cloud.add_rule('duplicate', method='terminate_instance',
                            server='host1', count=1)
        response = self.cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        self.cloud.wait_until_deleted(server['id'])
        self.cloud.wait_for_builds()
        self.assert_nothing_left(server['id'])


class ComputeRestartTestCase(RaceTestCase):
    """The compute restarts between the build's cast and its delivery."""

    def test_restart_before_delivery_builds_once(self):
        self.cloud.add_rule('hold', method=BUILD, count=1)
        server = self.cloud.create_server()
        self.cloud.wait_held(method=BUILD, instance=server['id'])
        self.cloud.restart_compute('host1')
        # The new process's start-up recovery finds nothing of its own:
        # the instance has no host yet.
        self.assertEqual('BUILD', self.cloud.get_server(server['id'])[
            'status'])
        self.cloud.release(method=BUILD)
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual([server['id']], self.guests())
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
                         self.node_usage())


class BuildTimeoutTestCase(RaceTestCase):
    """A build hung on the compute outlives ``instance_build_timeout``."""

    flags = {'compute': {'instance_build_timeout': 60}}

    def test_timed_out_build_gives_everything_back(self):
        clock = self.cloud.use_fake_clock()
        # The compute's last step of the build, to its cell conductor.
        self.cloud.add_rule('hold', method='build_finish', bus='cell1',
                            count=1)
        server = self.cloud.create_server()
        self.cloud.wait_held(method='build_finish', instance=server['id'])
        self.assertEqual([server['id']], self.guests())
        clock.advance(59)
        self.cloud.run_periodic('host1', 'check_build_timeouts')
        self.assertEqual('BUILD', self.cloud.get_server(server['id'])[
            'status'])
        clock.advance(2)
        self.cloud.run_periodic('host1', 'check_build_timeouts')
        shown = self.cloud.get_server(server['id'])
        self.assertEqual('ERROR', shown['status'])
        self.assertIn('timed out after 60 seconds', shown['fault']['message'])
        # The late end of the build changes nothing.
        self.cloud.release(method='build_finish')
        self.cloud.wait_for_builds()
        shown = self.cloud.get_server(server['id'])
        self.assertEqual(('ERROR', None), (shown['status'],
                                           shown['OS-EXT-SRV-ATTR:host']))
        self.assertEqual([], self.guests())
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assertEqual((1, 1, 512), self.quota_used())
        self.cloud.api.delete('/servers/%s' % server['id'])
        self.cloud.wait_until_deleted(server['id'])
        self.assert_nothing_left(server['id'])


class SchedulingFailuresTestCase(RaceTestCase):
    """The super conductor's scheduling meets a dead scheduler or a
    compute that stopped heartbeating."""

    def test_scheduler_timeout_buries_the_server(self):
        self.cloud.add_rule('fail', method='select_destinations',
                            error='timeout', count=1)
        server = self.cloud.create_server()
        shown = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertIn('select_destinations', shown['fault']['message'])
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         self.node_usage())
        # An ERROR server counts against quota until deleted, as in Nova.
        self.assertEqual((1, 1, 512), self.quota_used())

    def test_compute_down_is_no_valid_host(self):
        self.cloud.compute_down('host1')
        server = self.cloud.create_server()
        shown = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertIn('ComputeFilter removed 1 of 1 host',
                      shown['fault']['message'])
        self.assertEqual({}, self.cloud.allocations(server['id']))


class RescheduleConductorFailsTestCase(RaceTestCase):
    """The spawn fails and the cell conductor fails the reschedule before
    handling it (as a conductor that dies with the message taken).

    As in Nova, the compute gave its allocation back and handed the
    instance to the conductor (task ``scheduling``, no host) before the
    cast, so the instance stays BUILD holding nothing in placement, and
    counting against quota until the user deletes it.
    """

    cast_as_call = False
    flags = {'fake_driver': {'fail_every_nth_spawn': 1}}

    def test_failed_reschedule_holds_nothing(self):
        self.cloud.start_compute('host2')
        rule = self.cloud.add_rule('fail', at='dispatch',
                                   method='build_instances', bus='cell1',
                                   count=1)
        server = self.cloud.create_server()
        self.cloud.wait_spent(rule)
        self.cloud.wait_for_builds()
        shown = self.cloud.get_server(server['id'])
        self.assertEqual(('BUILD', 'scheduling', None),
                         (shown['status'], shown['OS-EXT-STS:task_state'],
                          shown['OS-EXT-SRV-ATTR:host']))
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assertEqual([], self.guests('host1') + self.guests('host2'))
        self.assertEqual((1, 1, 512), self.quota_used())
        response = self.cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        self.cloud.wait_until_deleted(server['id'])
        self.assertEqual((0, 0, 0), self.quota_used())
