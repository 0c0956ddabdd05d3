"""HostManager against two real (SQLite) cell databases and an API DB.

Covers: host states from compute_nodes + services + aggregates +
instances, incremental refresh (changed rows only), full refresh, group
member hosts, down cells skipped with a warning.
"""

import datetime

import fixtures
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite import context as nl_context
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from nova_lite.scheduler import host_db
from nova_lite.scheduler import host_manager as hm
from nova_lite import testing
from tests.functional.scheduler import helpers
from tests.unit.scheduler import fakes


class HostManagerTestCase(fakes.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.dbs = self.useFixture(testing.DatabaseFixture(
            cells=('cell1', 'cell2')))
        self.ctxt = nl_context.get_admin_context()
        self.n1 = helpers.add_compute(self.dbs, 'cell1', 'h1')[0]
        self.n2 = helpers.add_compute(self.dbs, 'cell2', 'h2', nodes=2)
        self.hm = hm.HostManager()
        self.addCleanup(self.hm.close)

    def _states(self, uuids=None):
        cells = self.hm.refresh(self.ctxt)
        if uuids is None:
            return {s.nodename: s for s in self.hm.get_all_host_states(cells)}
        return self.hm.get_host_states_by_uuids(cells, uuids)

    def test_states_from_both_cells(self):
        states = self._states()
        self.assertEqual({'h1', 'h2-node-0', 'h2-node-1'}, set(states))
        h1 = states['h1']
        self.assertEqual((self.n1, self.dbs.cells['cell1'].uuid, 16384, 8),
                         (h1.uuid, h1.cell_uuid, h1.free_ram_mb,
                          h1.vcpus_total))
        self.assertTrue(h1.service_up)
        self.assertEqual(self.dbs.cells['cell2'].uuid,
                         states['h2-node-1'].cell_uuid)

    def test_by_uuids_keeps_order_and_skips_unknown(self):
        states = self._states([self.n2[1], 'unknown', self.n1])
        self.assertEqual([self.n2[1], self.n1], [s.uuid for s in states])

    def test_by_uuids_builds_each_state_in_its_own_cell_only(self):
        cells = self.hm.refresh(self.ctxt)
        calls = []
        for cell in cells:
            real = cell.host_state

            def counted(uuid, *args, _real=real, _cell=cell.name):
                calls.append((_cell, uuid))
                return _real(uuid, *args)
            self.patch(cell, 'host_state', counted)
        uuids = [self.n1, 'unknown'] + list(self.n2)
        states = self.hm.get_host_states_by_uuids(cells, uuids)
        self.assertEqual([self.n1] + list(self.n2), [s.uuid for s in states])
        self.assertEqual(sorted([('cell1', self.n1)] +
                                [('cell2', u) for u in self.n2]),
                         sorted(calls))

    def test_states_are_fresh_copies(self):
        cells = self.hm.refresh(self.ctxt)
        first = self.hm.get_host_states_by_uuids(cells, [self.n1])[0]
        first.consume_from_request(fakes.fake_spec(memory_mb=1000), 'x')
        again = self.hm.get_host_states_by_uuids(cells, [self.n1])[0]
        self.assertEqual(16384, again.free_ram_mb)
        self.assertEqual({}, again.instances)

    def test_aggregates_and_instances(self):
        helpers.add_aggregate('az1', ['h1'], {'availability_zone': 'az1'})
        inst = helpers.add_instance(self.dbs, 'cell1', 'h1', project_id='pX')
        h1 = self._states()['h1']
        self.assertEqual('az1', h1.availability_zone)
        self.assertEqual('pX', h1.instances[inst].project_id)
        self.assertEqual(['h1'], self.hm.group_hosts(self.hm.cells,
                                                     [inst, 'other']))

    def test_incremental_refresh_sees_changes(self):
        self._states()
        cctxt = helpers.cell_context(self.dbs.cells['cell1'])
        node = cell_db.compute_node_get_by_uuid(cctxt, self.n1)
        cell_db.compute_node_update(cctxt, node.id, {'free_ram_mb': 100})
        inst = helpers.add_instance(self.dbs, 'cell1', 'h1')
        reads = []
        real = host_db.compute_nodes

        def spy(context, since=None):
            reads.append(since)
            return real(context, since)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.host_db.compute_nodes', spy))
        h1 = self._states()['h1']
        self.assertEqual(100, h1.free_ram_mb)
        self.assertIn(inst, h1.instances)
        self.assertTrue(all(since is not None for since in reads))
        instance_api.instance_destroy(cctxt, inst)
        cell_db.compute_node_delete(cctxt, node.id)
        states = self._states()
        self.assertNotIn('h1', states)
        self.assertEqual({}, self.hm.cells[0].by_host.get('h1', {}))

    def test_full_refresh_when_interval_is_zero(self):
        self.flags(host_state_full_refresh_interval=0, group='scheduler')
        self._states()
        reads = []
        real = host_db.compute_nodes

        def spy(context, since=None):
            reads.append(since)
            return real(context, since)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.host_db.compute_nodes', spy))
        self._states()
        self.assertEqual([None, None], reads)

    def test_down_service_and_disabled_service(self):
        old = timeutils.utcnow().replace(tzinfo=None) - datetime.timedelta(
            hours=1)
        helpers.add_compute(self.dbs, 'cell1', 'hdown', last_seen_up=old)
        helpers.add_compute(self.dbs, 'cell1', 'hoff', disabled=True)
        states = self._states()
        self.assertFalse(states['hdown'].service_up)
        self.assertTrue(states['hoff'].service['disabled'])

    def test_service_change_seen_incrementally(self):
        self.assertFalse(self._states()['h1'].service['disabled'])
        cctxt = helpers.cell_context(self.dbs.cells['cell1'])
        service = cell_db.service_get_by_host_and_binary(
            cctxt, 'h1', host_db.COMPUTE_BINARY)
        cell_db.service_update(cctxt, service.id, {'disabled': True})
        self.assertTrue(self._states()['h1'].service['disabled'])

    def test_node_without_service_is_skipped(self):
        cctxt = helpers.cell_context(self.dbs.cells['cell1'])
        cell_db.compute_node_create(cctxt, {
            'host': 'orphan', 'hypervisor_hostname': 'orphan', 'vcpus': 1,
            'memory_mb': 1, 'local_gb': 1})
        self.assertNotIn('orphan', self._states())

    def test_failing_cell_is_skipped_with_warning(self):
        logger = self.useFixture(fixtures.FakeLogger())
        real = host_db.compute_nodes
        broken = self.dbs.cells['cell2'].uuid

        def flaky(context, since=None):
            if context.cell_uuid == broken:
                raise RuntimeError('database is gone')
            return real(context, since)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.host_db.compute_nodes', flaky))
        self.assertEqual({'h1'}, set(self._states()))
        self.assertIn('unavailable', logger.output)
        self.assertIn('database is gone', logger.output)

    def test_slow_cell_times_out(self):
        import threading
        self.flags(cell_timeout=0.2, group='scheduler')
        logger = self.useFixture(fixtures.FakeLogger())
        release = threading.Event()
        self.addCleanup(release.set)
        real = host_db.compute_nodes
        slow = self.dbs.cells['cell2'].uuid

        def hang(context, since=None):
            if context.cell_uuid == slow:
                release.wait(5)
            return real(context, since)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.host_db.compute_nodes', hang))
        self.assertEqual({'h1'}, set(self._states()))
        self.assertIn('did not answer', logger.output)

    def test_nodes_of_and_cell_restriction(self):
        cells = self.hm.refresh(self.ctxt,
                                cell_uuids=[self.dbs.cells['cell2'].uuid])
        self.assertEqual(1, len(cells))
        self.assertEqual(sorted(self.n2),
                         sorted(self.hm.nodes_of(cells, 'h2')))
        self.assertEqual([self.n2[1]],
                         self.hm.nodes_of(cells, 'h2', 'h2-node-1'))
        self.assertEqual([], self.hm.nodes_of(cells, 'h1'))


class CheapRefreshTestCase(HostManagerTestCase):
    """What keeps a request's refresh and host states from growing with
    the number of nodes."""

    def test_changed_rows_are_read_through_the_indexes(self):
        # One OR over three timestamps made SQLite scan the whole table.
        eng = sa.create_engine(self.dbs.cells['cell1'].database_connection)
        self.addCleanup(eng.dispose)
        since = timeutils.utcnow() - datetime.timedelta(seconds=5)
        for query in (host_db._CHANGED_NODES, host_db._CHANGED_SERVICES,
                      host_db._CHANGED_INSTANCES):
            sql = str(query.compile(eng))
            with eng.connect() as conn:
                plan = conn.exec_driver_sql(
                    'EXPLAIN QUERY PLAN ' + sql, (since,) * sql.count('?')
                ).fetchall()
            details = ' '.join(row[-1] for row in plan)
            self.assertNotIn('SCAN', details, sql)

    def test_changed_rows_come_once(self):
        self._states()
        since = timeutils.utcnow() - datetime.timedelta(seconds=60)
        cctxt = helpers.cell_context(self.dbs.cells['cell1'])
        node = cell_db.compute_node_get_by_uuid(cctxt, self.n1)
        # Created and updated within the window: matched twice in SQL.
        cell_db.compute_node_update(cctxt, node.id, {'free_ram_mb': 100})
        rows = host_db.compute_nodes(cctxt, since)
        self.assertEqual([self.n1], [r['uuid'] for r in rows])
        self.assertEqual(1, len(host_db.compute_services(cctxt, since)))

    def test_full_refresh_keeps_unchanged_parses_but_not_picks(self):
        self.flags(host_state_full_refresh_interval=0, group='scheduler')
        self._states()
        cell2 = self.hm.cells[1]
        templates = dict(cell2.templates)
        states = self._states([self.n2[0]])
        self.hm.consume_in_cache(states[0],
                                 fakes.fake_spec(memory_mb=1000))
        self._states()
        # Unchanged row, no pick: the same parsed template.
        self.assertIs(templates[self.n2[1]], cell2.templates[self.n2[1]])
        # The pick is dropped by the full read (the safety net).
        self.assertIsNot(templates[self.n2[0]], cell2.templates[self.n2[0]])
        self.assertEqual(16384, cell2.templates[self.n2[0]].free_ram_mb)

    def test_nodes_of_a_service_share_its_liveness(self):
        calls = []
        real = hm.servicegroup.is_up

        def spy(service, now=None):
            calls.append((service['host'], now))
            return real(service, now=now)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.host_manager.servicegroup.is_up', spy))
        states = self._states([self.n2[0], self.n2[1], self.n1])
        self.assertEqual(['h1', 'h2'], sorted(host for host, _n in calls))
        # The clock is read once per cell and request, not per service.
        self.assertTrue(all(now is not None for _h, now in calls))
        self.assertIs(states[0].service, states[1].service)
        self.assertTrue(all(s.service_up for s in states))

    def test_states_share_instances_until_a_pick(self):
        inst = helpers.add_instance(self.dbs, 'cell1', 'h1')
        first, second = (self._states([self.n1])[0] for _ in range(2))
        self.assertIs(first.instances, second.instances)
        first.consume_from_request(fakes.fake_spec(memory_mb=1), 'new')
        self.assertEqual({inst}, set(second.instances))
        self.assertEqual({inst, 'new'}, set(first.instances))
