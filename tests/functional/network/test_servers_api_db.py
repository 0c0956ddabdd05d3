"""What the servers API asks of the API database: a GET's reads in one
transaction (a server's ports read by device), a create's request spec,
build request and mapping written in one, and a failed create leaving
the database as it was."""

import threading

import fixtures
import sqlalchemy as sa
from sqlalchemy import event
import testtools

from nova_lite import context as nl_context
from nova_lite.db import session
from nova_lite import exception
from nova_lite import objects
from nova_lite.testing import integrated

N = '/network/v2.0'
TABLES = ('request_specs', 'build_requests', 'instance_mappings',
          'instance_group_member', 'network_resources',
          'network_ip_allocations')


class APITransactions(fixtures.Fixture):
    """Counts the API database transactions this thread begins."""

    def _setUp(self):
        self.count = 0
        engine = session.get_api_context_manager().writer.get_engine()
        url, thread = str(engine.url), threading.get_ident()

        def begin(conn):
            if (str(conn.engine.url) == url and
                    threading.get_ident() == thread):
                self.count += 1
        event.listen(sa.engine.Engine, 'begin', begin)
        self.addCleanup(event.remove, sa.engine.Engine, 'begin', begin)

    def during(self, func, *args, **kwargs):
        """(func's result, the transactions it began)."""
        before = self.count
        result = func(*args, **kwargs)
        return result, self.count - before


class CellTransactions(fixtures.Fixture):
    """Counts the cell database transactions this thread begins (every
    engine but the API database's)."""

    def _setUp(self):
        self.count = 0
        engine = session.get_api_context_manager().writer.get_engine()
        url, thread = str(engine.url), threading.get_ident()

        def begin(conn):
            if (str(conn.engine.url) != url and
                    threading.get_ident() == thread):
                self.count += 1
        event.listen(sa.engine.Engine, 'begin', begin)
        self.addCleanup(event.remove, sa.engine.Engine, 'begin', begin)


class ServersAPIDatabaseTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.api = self.cloud.api
        net = self.api.post(N + '/networks', {'network': {'name': 'net1'}})
        self.net_id = net.body['network']['id']
        self.assertEqual(201, self.api.post(N + '/subnets', {'subnet': {
            'network_id': self.net_id, 'cidr': '10.1.0.0/24',
            'ip_version': 4}}).status)

    def body(self, **extra):
        server = {'name': 'vm', 'flavorRef': '1',
                  'imageRef': 'cirros-0.6.3-x86_64-disk',
                  'networks': [{'uuid': self.net_id}]}
        server.update(extra)
        return {'server': server}

    def boot(self):
        response = self.api.post('/servers', self.body())
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(response.body['server']['id'],
                                          'ACTIVE')

    def rows(self):
        engine = session.get_api_context_manager().writer.get_engine()
        with engine.connect() as conn:
            return {t: conn.execute(sa.text('SELECT COUNT(*) FROM %s' % t))
                    .scalar() for t in TABLES}

    def test_show_and_list_read_the_api_db_once(self):
        first, second = self.boot(), self.boot()
        counter = self.useFixture(APITransactions())
        shown, count = counter.during(self.api.get,
                                      '/servers/%s' % first['id'])
        self.assertEqual(1, count)
        self.assertEqual(['10.1.0.2'], [
            a['addr'] for a in shown.body['server']['addresses']['net1']])
        listed, count = counter.during(self.api.get, '/servers/detail')
        self.assertEqual(1, count)
        self.assertEqual(
            {first['id']: ['10.1.0.2'], second['id']: ['10.1.0.3']},
            {s['id']: [a['addr'] for a in s['addresses']['net1']]
             for s in listed.body['servers']})

    def test_create_writes_its_rows_in_one_transaction(self):
        counter = self.useFixture(APITransactions())
        body = self.body(networks='none', min_count=2)
        response, count = counter.during(self.api.post, '/servers', body)
        self.assertEqual(202, response.status, response)
        # The flavor; the other checks, the quota limits and usage; then
        # every row of both servers.
        self.assertEqual(3, count)

    def test_create_inserts_specs_and_mappings_in_one_statement_each(self):
        inserts = []
        engine = session.get_api_context_manager().writer.get_engine()

        def on_execute(conn, cursor, statement, *args):
            if statement.lstrip().upper().startswith('INSERT'):
                inserts.append(statement.split()[2].strip('`"'))
        event.listen(engine, 'before_cursor_execute', on_execute)
        self.addCleanup(event.remove, engine, 'before_cursor_execute',
                        on_execute)
        response = self.api.post('/servers', self.body(networks='none',
                                                        min_count=3))
        self.assertEqual(202, response.status, response)
        self.assertEqual({'request_specs': 1, 'build_requests': 3,
                          'instance_mappings': 1},
                         {t: inserts.count(t) for t in set(inserts)})
        for server in self.api.get('/servers/detail').body['servers']:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                nl_context.get_admin_context(), server['id'])
            self.assertFalse(mapping.queued_for_delete)
            self.assertIsNotNone(mapping.created_at)

    def test_failed_create_leaves_the_database_as_it_was(self):
        self.boot()
        before = self.rows()
        real = objects.InstanceMapping.create_all
        calls = []

        def fail_after(context, mappings):
            # Written, then the error: the whole create is rolled back.
            calls.append(len(mappings))
            real(context, mappings)
            raise exception.InstanceMappingExists(
                uuid=mappings[-1].instance_uuid)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.InstanceMapping.create_all', fail_after))
        response = self.api.post('/servers', self.body(min_count=2))
        self.assertEqual([2], calls)
        self.assertNotEqual(202, response.status, response)
        self.assertEqual(before, self.rows())

    def test_over_quota_is_403_and_writes_nothing(self):
        before = self.rows()
        admin = self.cloud.admin_api
        project = 'demo-project'
        self.assertEqual(200, admin.put(
            '/os-quota-sets/%s' % project,
            {'quota_set': {'instances': 0}}).status)
        response = self.api.post('/servers', self.body())
        self.assertEqual(403, response.status, response)
        self.assertEqual(before, self.rows())

    def mapping(self, uuid):
        engine = session.get_api_context_manager().writer.get_engine()
        with engine.connect() as conn:
            return conn.execute(sa.text(
                'SELECT queued_for_delete FROM instance_mappings '
                'WHERE instance_uuid = :u'), {'u': uuid}).scalar()

    def test_delete_reads_once_and_writes_once_per_database(self):
        server = self.boot()
        counter = self.useFixture(APITransactions())
        in_cells = self.useFixture(CellTransactions())
        response, count = counter.during(
            self.api.delete, '/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        # API: the mapping (the handler's read); the mapping queued for
        # delete, the group membership and the port. Cell: the instance
        # (the handler's read); the compute's liveness, the task state
        # and the action (the compute's own work runs in its threads).
        self.assertEqual(2, count)
        self.assertEqual(2, in_cells.count)
        self.cloud.wait_until_deleted(server['id'])
        self.assertTrue(self.mapping(server['id']))
        self.assertEqual(0, self.rows()['network_resources'] -
                         self.net_resources_without_ports())

    def net_resources_without_ports(self):
        engine = session.get_api_context_manager().writer.get_engine()
        with engine.connect() as conn:
            return conn.execute(sa.text(
                "SELECT COUNT(*) FROM network_resources "
                "WHERE kind != 'port'")).scalar()

    def test_delete_failing_on_the_ports_leaves_the_mapping_as_it_was(self):
        server = self.boot()
        before = self.rows()

        def fail(context, uuid):
            raise exception.NovaLiteException('ports unreachable')
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.network.interface.deallocate', fail))
        response = self.api.delete('/servers/%s' % server['id'])
        self.assertEqual(500, response.status, response)
        self.assertEqual(before, self.rows())
        self.assertFalse(self.mapping(server['id']))
