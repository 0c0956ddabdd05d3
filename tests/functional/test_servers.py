"""The build path end to end: API, conductors, scheduler, computes.

All services run in this process (:mod:`nova_lite.testing.integrated`):
placement in-process on SQLite, one SQLite database per cell, ``fake://``
buses, casts waited for. The scenarios are those of NOVA_FACTS §8.3
(numbers in the test docstrings).
"""

import threading

import fixtures
import testtools

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite.db.cell import api as cell_db
from nova_lite.testing import integrated
from nova_lite.virt import exception as virt_exc

TINY = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
ZERO = {'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0}


class ServersTestBase(testtools.TestCase):
    """A cloud with one cell; subclasses set CELLS and FLAGS."""

    CELLS = ('cell1',)
    FLAGS = {}
    COMPUTES = ('host1', 'host2')

    def setUp(self):
        super().setUp()
        # NOTE(nova_lite): the default image asks for x86_64, which
        # ImagePropertiesFilter matches against the supported_instances
        # computes report; these tests are not about that filter.
        flags = {'image_catalog': {'default_image_properties': {}}}
        flags.update(self.FLAGS)
        self.cloud = self.useFixture(integrated.IntegratedFixture(
            cells=self.CELLS, flags=flags))
        for host in self.COMPUTES:
            self.cloud.start_compute(host)
        self.api = self.cloud.api
        self.admin_api = self.cloud.admin_api

    def boot(self, status, **kwargs):
        server = self.cloud.create_server(**kwargs)
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(server['id'], status)

    def usage(self, node):
        usages = self.cloud.usages(node)
        return {rc: usages.get(rc, 0) for rc in TINY}

    def failed_builds(self):
        """{node: failed_builds} of the compute nodes of cell1."""
        cell = self.cloud.dbs.cells['cell1']
        context = nl_context.get_admin_context()
        with cells.target_cell(context, cell) as cctxt:
            nodes = cell_db.compute_node_get_all(cctxt)
        return {n.hypervisor_hostname: n.failed_builds for n in nodes}

    def delete_and_check_no_allocations(self, server_id):
        response = self.api.delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status, response)
        self.cloud.wait_for_builds()
        self.cloud.wait_until_deleted(server_id)
        self.assertEqual({}, self.cloud.allocations(server_id))

    def inject_spawn_failures(self, fails):
        """Make the fake driver's spawn raise what ``fails(instance,
        attempt)`` returns (None: spawn normally); returns the nodes
        where a spawn failed, in order. (``[fake_driver]`` fault options
        apply to every compute of the process and must name its own
        nodes, so per-test injection goes here.)"""
        from nova_lite.virt import fake
        real_spawn = fake.FakeDriver.spawn
        attempts, failed = {}, []
        lock = threading.Lock()

        def spawn(driver, context, instance, *args, **kwargs):
            with lock:
                attempt = attempts.get(instance.uuid, 0) + 1
                attempts[instance.uuid] = attempt
            error = fails(instance, attempt)
            if error is not None:
                failed.append(instance.node)
                raise error
            return real_spawn(driver, context, instance, *args, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.virt.fake.FakeDriver.spawn', spawn))
        return failed

    def fail_first_spawn(self):
        """The first spawn of each instance fails (reschedulable), like
        Nova's FakeRescheduleDriver."""
        return self.inject_spawn_failures(
            lambda instance, attempt: _failed(instance, 'first spawn fails')
            if attempt == 1 else None)

    def fail_every_spawn(self, abort=False):
        return self.inject_spawn_failures(
            lambda instance, attempt: _failed(instance, 'spawn fails',
                                              abort=abort))


def fill_provider(placement, rp_uuid, resource_class='MEMORY_MB'):
    """Allocate what is left of ``resource_class`` on the provider to
    filler consumers (in max_unit chunks); returns their uuids."""
    from oslo_utils import uuidutils
    inventory = placement.get_inventories(rp_uuid)['inventories'][
        resource_class]
    used = placement.get_usages(rp_uuid)['usages'].get(resource_class, 0)
    free = int((inventory['total'] - inventory['reserved']) *
               inventory['allocation_ratio']) - used
    consumers = []
    while free > 0:
        amount = min(free, inventory['max_unit'])
        consumer = uuidutils.generate_uuid()
        placement.put_allocations(
            consumer, {rp_uuid: {'resources': {resource_class: amount}}},
            'filler', 'filler')
        consumers.append(consumer)
        free -= amount
    return consumers


def _failed(instance, reason, abort=False):
    error = virt_exc.BuildAbort if abort else virt_exc.BuildFailed
    return error(instance_uuid=instance.uuid, node=instance.node,
                 reason=reason)


class BootTestCase(ServersTestBase):

    def test_boot_to_active_usage_on_exactly_one_provider(self):
        """1: usage equal to the flavor on the chosen node only."""
        server = self.boot('ACTIVE')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.assertIn(node, ('host1-node-0', 'host2-node-0'))
        other = ({'host1-node-0', 'host2-node-0'} - {node}).pop()
        self.assertEqual(TINY, self.usage(node))
        self.assertEqual(ZERO, self.usage(other))
        allocations = self.cloud.allocations(server['id'])
        self.assertEqual([self.cloud.provider_uuid(node)], list(allocations))
        self.delete_and_check_no_allocations(server['id'])
        self.assertEqual(ZERO, self.usage(node))


    def test_requested_host_goes_through_the_scheduler(self):
        """2.74: an admin asks for a host; members may not; an unknown
        host is a 400."""
        for host in ('host2', 'host1'):
            server = self.boot('ACTIVE', api=self.admin_api, host=host)
            self.assertEqual(host, server['OS-EXT-SRV-ATTR:host'])
        body = {'server': {'name': 'x', 'flavorRef': '1',
                           'networks': 'none', 'host': 'host1',
                           'imageRef': 'cirros-0.6.3-x86_64-disk'}}
        self.assertEqual(403, self.api.post('/servers', body).status)
        body['server']['host'] = 'nowhere'
        response = self.admin_api.post('/servers', body)
        self.assertEqual(400, response.status, response)
        self.assertIn('nowhere', response.text)


class RescheduleTestCase(ServersTestBase):

    def test_first_host_fails_active_on_alternate(self):
        """4: ACTIVE on the alternate, nothing left on the failed host."""
        failed = self.fail_first_spawn()
        server = self.boot('ACTIVE')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.assertEqual(1, len(failed))
        self.assertNotEqual(failed[0], node)
        self.assertEqual(ZERO, self.usage(failed[0]))
        self.assertEqual(TINY, self.usage(node))
        self.assertEqual({failed[0]: 1, node: 0}, self.failed_builds())

class RetriesTestCase(ServersTestBase):
    """1: every spawn fails, max_attempts 2: one attempt per host."""

    FLAGS = {'scheduler': {'max_attempts': 2}}

    def test_create_server_with_error_with_retries(self):
        failed = self.fail_every_spawn()
        server = self.boot('ERROR')
        self.assertEqual(['host1-node-0', 'host2-node-0'], sorted(failed))
        self.assertEqual({'host1-node-0': 1, 'host2-node-0': 1},
                         self.failed_builds())
        self.assertIn('no alternate host is left',
                      server['fault']['message'])
        self.delete_and_check_no_allocations(server['id'])


class NoRetriesTestCase(ServersTestBase):
    """2: max_attempts 1: a single attempt."""

    FLAGS = {'scheduler': {'max_attempts': 1}}

    def test_create_server_with_error_with_no_retries(self):
        failed = self.fail_every_spawn()
        server = self.boot('ERROR')
        self.assertEqual(1, len(failed))
        self.assertEqual([0, 1], sorted(self.failed_builds().values()))
        self.assertEqual('', server['hostId'])
        self.delete_and_check_no_allocations(server['id'])


class BuildAbortTestCase(ServersTestBase):
    """3: an aborted build is not rescheduled."""

    def test_create_server_with_error(self):
        failed = self.fail_every_spawn(abort=True)
        server = self.boot('ERROR')
        self.assertEqual(1, len(failed))
        self.assertEqual([0, 1], sorted(self.failed_builds().values()))
        self.assertIn('aborted', server['fault']['message'])
        self.delete_and_check_no_allocations(server['id'])


class DownCellTestCase(ServersTestBase):
    """19: a cell that does not answer: minimal records at 2.69+."""

    CELLS = ('cell1', 'cell2')
    COMPUTES = ('host1',)

    def test_get_servers_with_down_cells(self):
        server = self.boot('ACTIVE')
        self.cloud.cell_down('cell1')
        listed = self.api.get('/servers', version='2.69').body['servers']
        self.assertEqual([{'id': server['id'], 'status': 'UNKNOWN',
                           'links': server['links']}], listed)
        (detail,) = self.api.get('/servers/detail',
                                 version='2.69').body['servers']
        self.assertEqual('UNKNOWN', detail['status'])
        self.assertEqual('demo-project', detail['tenant_id'])
        self.assertIn('created', detail)
        shown = self.api.get('/servers/%s' % server['id'],
                             version='2.69').body['server']
        self.assertEqual(('UNKNOWN', 'm1.tiny', 512),
                         (shown['status'], shown['flavor']['original_name'],
                          shown['flavor']['ram']))
        self.assertEqual([], self.api.get(
            '/servers', version='2.68').body['servers'])


class NestedResourcesRescheduleTestCase(ServersTestBase):
    """6: as 4, with ``resources:CUSTOM_MAGIC=1`` served by a child
    provider of each compute node."""

    def setUp(self):
        super().setUp()
        client = self.cloud.placement.client
        client.ensure_resource_class('CUSTOM_MAGIC')
        self.children = {}
        for node in ('host1-node-0', 'host2-node-0'):
            child = client.create_provider(
                node + '-magic', parent_provider_uuid=self.cloud
                .provider_uuid(node))
            if child is None:
                child = client.list_providers(name=node + '-magic')[0]
            client.set_inventories(child['uuid'], child['generation'],
                                   {'CUSTOM_MAGIC': {'total': 1}})
            self.children[node] = child['uuid']
        response = self.admin_api.post('/flavors', {'flavor': {
            'name': 'magic', 'id': 'magic', 'ram': 512, 'vcpus': 1,
            'disk': 1}})
        self.assertEqual(200, response.status, response)
        response = self.admin_api.post('/flavors/magic/os-extra_specs', {
            'extra_specs': {'resources:CUSTOM_MAGIC': '1'}})
        self.assertEqual(200, response.status, response)

    def magic_used(self, node):
        usages = self.cloud.placement.client.get_usages(
            self.children[node])['usages']
        return usages.get('CUSTOM_MAGIC', 0)

    def test_rescheduling_when_booting_instance(self):
        failed = self.fail_first_spawn()
        server = self.boot('ACTIVE', flavor_id='magic')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.assertNotEqual(failed[0], node)
        self.assertEqual((0, 1), (self.magic_used(failed[0]),
                                  self.magic_used(node)))
        self.assertEqual(ZERO, self.usage(failed[0]))
        self.assertEqual(TINY, self.usage(node))
        self.delete_and_check_no_allocations(server['id'])
        self.assertEqual(0, self.magic_used(node))
