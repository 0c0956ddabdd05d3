"""Resize reschedules and cells (NOVA_FACTS §5.1; §8.3 12-14, 18).

A destination whose ``prep_resize`` fails gives its claim back and the
cell conductor claims the next alternate of the scheduler's host list,
never calling the scheduler again; a cold migrate only considers the
instance's cell. Hosts are weighed by name so the scheduler's choice and
the order of the alternates are known in advance.
"""

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import weights
from tests.functional.moves import test_resize

TINY = test_resize.TINY
SMALL = test_resize.SMALL
ZERO = test_resize.ZERO
ResizeTestBase = test_resize.ResizeTestBase


class HostNameWeigher(weights.BaseHostWeigher):
    """Weighs hosts by a fixed table of names, so the scheduler's choice
    and the order of its alternates are known in advance."""

    WEIGHTS = {'selection': 999, 'alt_host1': 888, 'alt_host2': 777,
               'alt_host3': 666, 'host1': 100, 'host2': 90, 'host3': 80,
               'host4': 70}

    def default_multiplier(self):
        return 1.0

    def _weigh_object(self, host_state, spec):
        return self.WEIGHTS.get(host_state.host, 0)


HOST_NAME_WEIGHER = {'filter_scheduler': {
    'weight_classes': [__name__ + '.HostNameWeigher'],
    'host_subset_size': 1}}


class ResizeRescheduleTest(ResizeTestBase):
    """12: a destination whose prep_resize fails drops its claim; the
    resize lands on the alternate."""

    FLAGS = HOST_NAME_WEIGHER
    OTHER_COMPUTES = ('host2', 'host3')

    def test_rescheduling_when_migrating_instance(self):
        seen = []

        def during_prep(host, node, migration):
            seen.append((self.allocation_by_node(self.server['id']),
                         self.allocation_by_node(migration.uuid)))

        failed = self.fail_prep_resize(1, on_failure=during_prep)
        self.resize('2')
        server = self.wait('VERIFY_RESIZE')
        self.assertEqual(['host2'], failed)
        host2, host3 = self.node_of('host2'), self.node_of('host3')
        self.assertEqual([({host2: SMALL}, {self.source: TINY})], seen)
        self.assertEqual('host3', server['OS-EXT-SRV-ATTR:host'])
        self.assert_moving(self.source, host3)
        self.assert_usage(host2, ZERO)
        self.assertEqual('Error,Success',
                         self.action_events('resize')['compute_prep_resize'])


class HostListBase(ResizeTestBase):
    """Hosts weighed by name: selection, alt_host1..3."""

    OTHER_COMPUTES = ('selection', 'alt_host1', 'alt_host2', 'alt_host3')

    def _resize_with_failures(self, fails):
        calls = self.count_scheduler_calls()
        failed = self.fail_prep_resize(fails)
        self.resize('2')
        self.assertEqual(1, len(calls))
        return failed

    def _targets(self):
        return [self.node_of(h) for h in self.OTHER_COMPUTES]

    def _assert_lands_on(self, index):
        server = self.wait('VERIFY_RESIZE')
        host = self.OTHER_COMPUTES[index]
        self.assertEqual(host, server['OS-EXT-SRV-ATTR:host'])
        self.assert_moving(self.source, self.node_of(host))
        for node in self._targets():
            if node != self.node_of(host):
                self.assert_usage(node, ZERO)


class ResizeHostListTest(HostListBase):
    """13: reschedules walk the scheduler's alternates (three with
    max_attempts 4), never calling it again."""

    FLAGS = {'filter_scheduler': HOST_NAME_WEIGHER['filter_scheduler'],
             'scheduler': {'max_attempts': 4}}

    def test_resize_reschedule_uses_host_lists_1_fail(self):
        failed = self._resize_with_failures(1)
        self.assertEqual(['selection'], failed)
        self._assert_lands_on(1)

    def test_resize_reschedule_uses_host_lists_3_fails(self):
        failed = self._resize_with_failures(3)
        self.assertEqual(['selection', 'alt_host1', 'alt_host2'], failed)
        self._assert_lands_on(3)


class ResizeNotEnoughAlternatesTest(HostListBase):
    """13: with max_attempts 3 (two alternates) three failures exhaust
    the list: ERROR, source allocation back, nothing on the targets."""

    FLAGS = {'filter_scheduler': HOST_NAME_WEIGHER['filter_scheduler'],
             'scheduler': {'max_attempts': 3}}

    def test_resize_reschedule_uses_host_lists_not_enough_alts(self):
        failed = self._resize_with_failures(3)
        self.assertEqual(['selection', 'alt_host1', 'alt_host2'], failed)
        server = self.wait('ERROR')
        self.assertIn('Exceeded maximum number of retries',
                      server['fault']['message'])
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('error', self.migration().status)
        self.assert_only_on(self.source, TINY,
                            [self.source] + self._targets())
        self.assertIn('Error', self.action_events('resize')[
            'conductor_migrate_server'])
        self.delete_and_check_no_allocations(self.server['id'])
        self.assert_usage(self.source, ZERO)


class ResizeRescheduleFourHostsTest(ResizeTestBase):
    """14 (bug 1741125): with four hosts the retry uses the host list and
    the server ends in VERIFY_RESIZE."""

    FLAGS = HOST_NAME_WEIGHER
    OTHER_COMPUTES = ('host2', 'host3', 'host4')

    def test_resize_reschedule_uses_host_lists(self):
        calls = self.count_scheduler_calls()
        self.fail_prep_resize(1)
        self.resize('2')
        server = self.wait('VERIFY_RESIZE')
        self.assertEqual(1, len(calls))
        self.assertEqual('host3', server['OS-EXT-SRV-ATTR:host'])
        self.assert_moving(self.source, self.node_of('host3'))
        for host in ('host2', 'host4'):
            self.assert_usage(self.node_of(host), ZERO)


class MultiCellMigrateTest(ResizeTestBase):
    """18: a cold migrate only considers the instance's cell."""

    CELLS = ('cell1', 'cell2')
    OTHER_COMPUTES = ()

    def test_migrate_between_cells(self):
        self.cloud.start_compute('host2', cell='cell2')
        self.migrate()
        server = self.wait('ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertIsNone(server['OS-EXT-STS:task_state'])
        self.assertIn('No valid host', self.latest_fault().message)
        self.assertEqual('error', self.migration().status)
        self.assertEqual('Error', self.action_events('migrate')[
            'conductor_migrate_server'])
        self.assert_only_on(self.source, TINY,
                            [self.source, self.node_of('host2')])

    def test_migrate_to_a_host_of_another_cell(self):
        self.cloud.start_compute('host2', cell='cell2')
        self.migrate(host='host2')
        self.wait('ACTIVE')
        self.assertEqual('error', self.migration().status)
        self.assert_only_on(self.source, TINY,
                            [self.source, self.node_of('host2')])

    def test_migrate_within_cell(self):
        self.cloud.start_compute('host2', cell='cell2')
        self.cloud.start_compute('host3', cell='cell1')
        self.migrate()
        server = self.wait('VERIFY_RESIZE')
        self.assertEqual('host3', server['OS-EXT-SRV-ATTR:host'])
        self.assert_moving(self.source, self.node_of('host3'), new=TINY)
        self.assert_usage(self.node_of('host2'), ZERO)


class CellConductorRoleTest(ResizeTestBase):
    """A cell conductor only tries the alternates it is handed: asked to
    schedule a move (no host list) it refuses, with no scheduler call and
    no migration (it has no API database to take the request from)."""

    def test_cell_conductor_refuses_to_schedule(self):
        conductor = self.cloud.cell_conductors['cell1'].manager
        self.assertTrue(conductor.is_cell_conductor)
        self.assertFalse(self.cloud.super_conductor.manager.is_cell_conductor)
        endpoint = [e for e in conductor.additional_endpoints
                    if hasattr(e, 'migrate_server')][0]
        context = nl_context.get_admin_context()
        with cells.target_cell(context,
                               self.cloud.dbs.cells['cell1']) as cctxt:
            instance = objects.Instance.get_by_uuid(cctxt,
                                                    self.server['id'])
        calls = self.count_scheduler_calls()
        self.assertRaises(exception.Invalid, endpoint.migrate_server,
                          context, instance, dict(instance.flavor), None)
        self.assertEqual([], calls)
        self.assertEqual([], self.migrations(self.server['id']))
        self.assertEqual('ACTIVE', self.wait('ACTIVE')['status'])
