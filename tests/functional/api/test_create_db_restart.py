"""A create whose transaction loses its database connection midway.

A MariaDB restart can break ``create._store_all``'s transaction after
some of its inserts (the fault suite's ``mariadb_restart`` caught it, two
POSTs answering 500): the transaction rolls back, ``retry_on_transient``
runs it again on the same build request objects, and those still held
the ``id`` of the row that was rolled back (a read-only field:
``ReadOnlyFieldError``). The retry must store them as if the first
attempt had never been.
"""

import fixtures
import sqlalchemy as sa
from sqlalchemy.engine import url as sa_url
import testtools

from nova_lite.api.compute import create
from nova_lite import objects
from nova_lite.objects import instance_mapping
from nova_lite.testing import fixtures as nl_fixtures
from nova_lite.testing import integrated
from tests import db_fixtures

FLAVOR = {'flavorid': '1', 'name': 'f', 'vcpus': 1, 'memory_mb': 512,
          'root_gb': 1, 'extra_specs': {}}


def _fail_first_mapping(test, fail):
    """Run ``fail()`` before the first InstanceMapping.create_all only
    (after the build requests' inserts, in the same transaction); the
    instance uuids of each call."""
    real = instance_mapping.InstanceMapping.create_all
    calls = []

    def create_mappings(context, mappings):
        calls.append([m.instance_uuid for m in mappings])
        if len(calls) == 1:
            fail()
        return real(context, mappings)
    test.useFixture(fixtures.MockPatchObject(
        instance_mapping.InstanceMapping, 'create_all', create_mappings))
    return calls


def post_two_and_see_them_built(test, cloud, calls):
    """POST two servers through a store that failed once (``calls``
    records its attempts): 202, a second attempt, both listed and
    ACTIVE."""
    body = {'server': {'name': 'vm', 'flavorRef': '1',
                       'imageRef': integrated.CONF.image_catalog
                       .default_image_uuid,
                       'networks': 'none', 'min_count': 2}}
    response = cloud.api.post('/servers', body)
    test.assertEqual(202, response.status, response)
    test.assertEqual(2, len(calls))
    listed = cloud.api.get('/servers').body['servers']
    test.assertEqual(2, len(listed))
    for server in listed:
        cloud.wait_for_server(server['id'], 'ACTIVE')


class _KillsAPIConnections:
    """Kill every connection to the API database (MariaDB) server-side:
    what a restart does to them."""

    def _killer(self, url):
        self.database = sa_url.make_url(url).database
        self.killer = sa.create_engine(url, poolclass=sa.pool.NullPool)
        self.addCleanup(self.killer.dispose)

    def _kill_api_connections(self):
        with self.killer.begin() as conn:
            ids = conn.execute(sa.text(
                'SELECT ID FROM information_schema.PROCESSLIST '
                'WHERE DB = :db AND ID != CONNECTION_ID()'),
                {'db': self.database}).scalars().all()
            for pid in ids:
                conn.exec_driver_sql('KILL %d' % pid)
        self.assertNotEqual([], ids)


class StoreAllOnMariaDBTestCase(_KillsAPIConnections, testtools.TestCase):
    """The API database on MariaDB, its connections killed in the middle
    of ``_store_all``'s transaction."""

    def setUp(self):
        super().setUp()
        url = self.useFixture(db_fixtures.MySQLDatabase(
            self, prefix='db20_test')).url
        self.ctx = self.useFixture(db_fixtures.APIDatabase(url)).context
        self.ctx.project_id, self.ctx.user_id = 'p', 'u'
        self._killer(url)

    def test_retry_after_a_killed_connection_stores_all(self):
        uuids = [
            '%08d-0000-4000-8000-000000000000' % n for n in (1, 2)]
        build_requests = [create._build_request(
            self.ctx, uuid, {'uuid': uuid, 'display_name': 'vm'})
            for uuid in uuids]
        specs = [create.build_request_spec(
            self.ctx, uuid, FLAVOR, None, 2, None, {}, None)
            for uuid in uuids]
        calls = _fail_first_mapping(self, self._kill_api_connections)

        create._store_all(self.ctx, build_requests, specs, None)

        # the first attempt broke at its mappings, the second went
        # through
        self.assertEqual([uuids, uuids], calls)
        for build_request in build_requests:
            stored = objects.BuildRequest.get_by_instance_uuid(
                self.ctx, build_request.instance_uuid)
            self.assertEqual(stored.id, build_request.id)
            self.assertIsNone(objects.InstanceMapping.get_by_instance_uuid(
                self.ctx, build_request.instance_uuid).cell_mapping)
        self.assertEqual(2, len(objects.BuildRequestList.get_all(self.ctx)))


class CreateOnMariaDBTestCase(_KillsAPIConnections, testtools.TestCase):
    """POST /servers, the cloud's API database on MariaDB, whose
    transaction loses its connection once: 202, the servers built."""

    def test_post_servers_answers_202(self):
        url = self.useFixture(db_fixtures.MySQLDatabase(
            self, prefix='db20_test')).url
        real_url = nl_fixtures.DatabaseFixture._url

        def db_url(fixture, name):
            return url if name == 'api' else real_url(fixture, name)
        self.useFixture(fixtures.MockPatchObject(
            nl_fixtures.DatabaseFixture, '_url', db_url))
        cloud = self.useFixture(integrated.IntegratedFixture())
        cloud.start_compute('host1')
        self._killer(url)
        calls = _fail_first_mapping(self, self._kill_api_connections)
        post_two_and_see_them_built(self, cloud, calls)
