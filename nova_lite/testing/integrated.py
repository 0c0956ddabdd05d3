"""All of nova_lite in one process, for RPC-driven functional tests.

:class:`IntegratedFixture` starts, in the test's process:

* placement on its own SQLite database, reached without sockets (every
  ``PlacementClient()`` built while the fixture is active talks to it);
* the API database and one SQLite database per cell (plus cell0), each
  cell with its own ``fake://`` bus (its own exchange), the API bus apart;
* the scheduler and the super conductor on the API bus, one conductor per
  cell on that cell's bus, and computes started on demand
  (:meth:`IntegratedFixture.start_compute`), each mapped to its cell as
  host discovery would;
* the compute API WSGI application, driven through :attr:`api`
  (``api.post('/servers', body)``...) with a token choosing who asks.

Casts are turned into calls (:class:`nova_lite.testing.CastAsCallFixture`)
so a request returns once the chain of RPCs it started has run; work a
service does in its own threads is waited for with
:meth:`IntegratedFixture.wait_for_server`. Example::

    from nova_lite.testing import integrated

    class MyFilterTest(testtools.TestCase):
        def test_boot(self):
            cloud = self.useFixture(integrated.IntegratedFixture())
            cloud.start_compute('host1')
            cloud.start_compute('host2')
            server = cloud.create_server(flavor_id='1')
            server = cloud.wait_for_server(server['id'], 'ACTIVE')
            self.assertIn(server['OS-EXT-SRV-ATTR:host'], ('host1', 'host2'))
"""

import atexit
import os
import shutil
import sqlite3
import tempfile
import threading
import time

import fixtures
from oslo_serialization import jsonutils
import requests
import webob

from nova_lite.api import default_flavors
from nova_lite.api import deploy
from nova_lite.api import policy
from nova_lite.clients import image as image_client
from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db import migration
from nova_lite.db.cell import instance_api
from nova_lite.db import session as db_session
from nova_lite.placement.db import migration as placement_migration
from nova_lite.testing import chaos
from nova_lite.testing import placement_fixture
from nova_lite.testing import fixtures as nl_fixtures

CONF = nl_conf.CONF

API_BUS = 'fake:///'
ADMIN_TOKEN = 'admin'
# noauth2 tokens: user:project[:role] (member when no role is given).
MEMBER_TOKEN = 'demo:demo-project'
LATEST = '2.100'


class APIResponse:
    """Status, headers and parsed JSON body of one API answer."""

    def __init__(self, response):
        self.status = response.status_int
        self.headers = response.headers
        self.text = response.text if response.body else ''
        try:
            self.body = jsonutils.loads(self.text) if self.text else None
        except ValueError:
            self.body = None

    def __repr__(self):
        return '<APIResponse %d %s>' % (self.status, self.text[:500])


class APIClient:
    """Requests to the in-process compute API (no sockets)."""

    def __init__(self, app, token=MEMBER_TOKEN, version=LATEST):
        self.app = app
        self.token = token
        self.version = version

    def request(self, method, path, body=None, token=None, version=None,
                headers=None):
        if not path.startswith('/'):
            path = '/' + path
        if not path.startswith(('/v2.1', '/image', '/network')):
            path = '/v2.1' + path
        req = webob.Request.blank(path, method=method)
        req.host = 'nova-lite.test:8774'
        req.headers['X-Auth-Token'] = token or self.token
        version = version or self.version
        if version:
            req.headers['OpenStack-API-Version'] = 'compute %s' % version
        if body is not None:
            req.body = jsonutils.dump_as_bytes(body)
            req.content_type = 'application/json'
        for key, value in (headers or {}).items():
            req.headers[key] = value
        return APIResponse(req.get_response(self.app))

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, body=None, **kw):
        return self.request('POST', path, body=body, **kw)

    def put(self, path, body=None, **kw):
        return self.request('PUT', path, body=body, **kw)

    def delete(self, path, **kw):
        return self.request('DELETE', path, **kw)


class _SchemaTemplates(fixtures.Fixture):
    """Migrate each kind of SQLite database once per process, then copy.

    Running the alembic migrations costs about half a second per
    database; an integrated test creates five. The first database of each
    kind ('api', 'cell', 'placement') is migrated into a template file,
    later ones are copies of it (head revision, no rows).
    """

    _templates = {}
    _lock = threading.Lock()

    def _setUp(self):
        real_sync = migration.db_sync
        real_placement_sync = placement_migration.db_sync

        def db_sync(connection, database='api', revision='head'):
            if revision != 'head' or not _sqlite_path(connection):
                return real_sync(connection, database, revision)
            self._copy(database, connection,
                       lambda url: real_sync(url, database))

        def placement_sync(connection_url, revision='head'):
            if revision != 'head' or not _sqlite_path(connection_url):
                return real_placement_sync(connection_url, revision)
            self._copy('placement', connection_url, real_placement_sync)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.migration.db_sync', db_sync))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.placement.db.migration.db_sync', placement_sync))

    def _copy(self, kind, url, migrate):
        with self._lock:
            template = self._templates.get(kind)
            if template is None:
                template = self._make_template(kind, migrate)
                self._templates[kind] = template
        shutil.copyfile(template, _sqlite_path(url))

    @staticmethod
    def _make_template(kind, migrate):
        directory = tempfile.mkdtemp(prefix='nova-lite-schema-')
        atexit.register(shutil.rmtree, directory, True)
        path = os.path.join(directory, '%s.db' % kind)
        migrate('sqlite:///' + path)
        db_session.reset()
        connection = sqlite3.connect(path)
        try:
            connection.execute('PRAGMA wal_checkpoint(TRUNCATE)')
            connection.execute('PRAGMA journal_mode=DELETE')
        finally:
            connection.close()
        return path


def _sqlite_path(url):
    prefix = 'sqlite:///'
    if not url or not url.startswith(prefix) or url == prefix:
        return None
    return url[len(prefix):]


class _InProcessPlacement(fixtures.Fixture):
    """Placement in-process; every new PlacementClient reaches it."""

    def _setUp(self):
        placement_fixture.ensure_parsed(CONF)
        self.placement = self.useFixture(placement_fixture.PlacementFixture())
        app = self.placement.app
        real_client = placement_client.PlacementClient

        def client_factory(*args, **kwargs):
            session = requests.Session()
            adapter = placement_client.WSGIAdapter(app)
            session.mount('http://', adapter)
            session.mount('https://', adapter)
            client = real_client(endpoint='http://placement.invalid',
                                 session=session)
            client.session.headers['X-Auth-Token'] = ADMIN_TOKEN
            return client

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.clients.placement.PlacementClient', client_factory))


class IntegratedFixture(fixtures.Fixture):
    """Placement, API, scheduler, conductors and computes in-process.

    :param cells: names of the cells (each gets a conductor).
    :param cast_as_call: casts wait for their handler (default True).
    :param flags: ``{group: {option: value}}`` set before anything starts
        (``'DEFAULT'`` for the default group), e.g.
        ``{'scheduler': {'max_attempts': 2}}``.
    """

    def __init__(self, cells=('cell1',), cast_as_call=True, flags=None):
        super().__init__()
        self.cell_names = tuple(cells)
        self.cast_as_call = cast_as_call
        self.flags = flags or {}
        self.computes = {}
        self._compute_cells = {}
        self.clock = None

    def _setUp(self):
        self.conf = self.useFixture(nl_fixtures.ConfFixture())
        if self.cast_as_call:
            # A cast that waits for its handler lasts as long as the
            # build's scheduling, not a send: the API's bound on a send
            # ([api] build_cast_timeout) would turn a slow machine into 503s.
            self.conf.flags(build_cast_timeout=120, group='api')
        for group, values in self.flags.items():
            self.conf.flags(group=None if group == 'DEFAULT' else group,
                            **values)
        self.useFixture(_SchemaTemplates())
        self.dbs = self.useFixture(nl_fixtures.DatabaseFixture(
            cells=self.cell_names))
        self._use_api_bus()
        self.placement = self.useFixture(_InProcessPlacement()).placement
        if self.cast_as_call:
            self.useFixture(nl_fixtures.CastAsCallFixture())
        self._services = []
        self.addCleanup(self._stop_services)
        self.scheduler = self._start('scheduler', 'scheduler')
        self.super_conductor = self._start('conductor', 'super-conductor')
        self.cell_conductors = {
            name: self._start('conductor', 'conductor-%s' % name,
                              cell=self.dbs.cells[name])
            for name in self.cell_names}
        self._make_api()
        # NOTE(nova_lite): after the services' cleanup, so it runs before
        # it: a held message must not keep a service from stopping.
        self.chaos = self.useFixture(chaos.Rules())

    def _use_api_bus(self):
        CONF.set_override('transport_url', API_BUS)
        self.addCleanup(CONF.clear_override, 'transport_url')

    def _start(self, name, host, cell=None):
        kwargs = {}
        if cell is None and name != 'compute':
            kwargs['transport_url'] = API_BUS
        service = nl_fixtures.make_service(name, host=host, cell=cell,
                                           **kwargs)
        self._services.append(service)
        service.start()
        return service

    def _stop_services(self):
        """Stop the computes, then the rest, each group in parallel (a
        stop waits for its in-flight messages: about a second)."""
        computes = [s for s in self._services
                    if s.binary == 'nova-lite-compute']
        others = [s for s in self._services if s not in computes]
        for group in (computes, others):
            threads = [threading.Thread(target=s.stop) for s in group]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

    def _make_api(self):
        default_flavors.ensure_default_flavors(
            nl_context.get_admin_context())
        policy.reset()
        self.addCleanup(policy.reset)
        self.app = deploy.deploy(CONF,
                                 placement_client=self.placement.client)
        self._route_image_clients()
        self.api = APIClient(self.app)
        self.admin_api = APIClient(self.app, token=ADMIN_TOKEN)

    def _route_image_clients(self):
        """Every ImageClient built from now on (the computes' snapshots)
        reaches this API's /image in-process, as the admin."""
        real_client = image_client.ImageClient
        app = self.app

        def client_factory(*args, **kwargs):
            session = requests.Session()
            adapter = placement_client.WSGIAdapter(app)
            session.mount('http://', adapter)
            client = real_client(endpoint='http://nova-lite.test/image',
                                 session=session)
            client.session.headers['X-Auth-Token'] = ADMIN_TOKEN
            return client

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.clients.image.ImageClient', client_factory))

    # -- computes ----------------------------------------------------------

    def start_compute(self, host, cell='cell1'):
        """Start a compute on ``host`` in ``cell``, mapped to it."""
        self.dbs.map_host(host, cell)
        service = self._start('compute', host, cell=self.dbs.cells[cell])
        self.computes[host] = service
        self._compute_cells[host] = cell
        return service

    def restart_compute(self, host):
        """Stop the compute of ``host`` (gracefully, as a SIGTERM does)
        and start a new one on the same host; the new service."""
        old = self.computes.pop(host)
        old.stop()
        self._services.remove(old)
        cell = self._compute_cells[host]
        service = self._start('compute', host, cell=self.dbs.cells[cell])
        self.computes[host] = service
        return service

    def wait_for_builds(self, timeout=30.0):
        """Wait until no compute has a build queued or running (a build
        may hand over to another compute: loop until all are idle)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            busy = False
            for service in list(self.computes.values()):
                manager = service.manager
                if manager.builds_in_flight:
                    busy = True
                    manager.wait_for_builds(timeout=timeout)
            if not busy:
                return
        raise AssertionError('builds still running after %s s' % timeout)

    def cell_down(self, cell_name):
        """Make the cell database of ``cell_name`` fail for the API's
        instance reads (a cell that does not answer), until cleanup."""
        cell_uuid = self.dbs.cells[cell_name].uuid

        def failing(real):
            def read(context, *args, **kwargs):
                if getattr(context, 'cell_uuid', None) == cell_uuid:
                    raise ConnectionError('cell %s is down' % cell_name)
                return real(context, *args, **kwargs)
            return read

        for name in ('instance_get_all_by_filters', 'instance_get_by_uuid'):
            self.useFixture(fixtures.MonkeyPatch(
                'nova_lite.db.cell.instance_api.' + name,
                failing(getattr(instance_api, name))))

    def run_periodics(self):
        """Run every compute's resource update now, as its periodic would.

        The periodic task itself is gated by ``update_resources_interval``
        (and has just run at start), so tests call the update directly.
        """
        context = nl_context.get_admin_context()
        for service in self.computes.values():
            service.manager.update_available_resource(context)

    # -- message rules and the clock (doc/chaos.md) ---------------------------

    def add_rule(self, action, **kwargs):
        """Add an RPC rule (:class:`nova_lite.rpc_rules.Rule`; ``bus`` is
        ``'api'`` or a cell's name); its id. All rules go at cleanup."""
        return self.chaos.add(action, **kwargs)

    def wait_held(self, timeout=10.0, **match):
        """Wait for a held message matching ``match`` (``method``,
        ``server``, ``bus``, ``instance``, ``kind``, ``at``, ``rule``...)
        and return it described."""
        return self.chaos.wait_held(timeout=timeout, **match)

    def wait_spent(self, rule_id, timeout=10.0):
        """Wait until rule ``rule_id`` has acted its ``count`` times (a
        dropped or failed message has met its rule)."""
        self.chaos.wait_spent(rule_id, timeout=timeout)

    def release(self, discard=False, **match):
        """Let the held messages matching ``match`` go (a held cast leaves
        from this thread: with cast-as-call, once it was handled)."""
        return self.chaos.release(discard=discard, **match)

    def clear_rules(self, discard=False):
        """Remove every rule; release (or discard) what they hold."""
        return self.chaos.clear(discard=discard)

    def use_fake_clock(self):
        """Freeze ``timeutils.utcnow`` from now on (:attr:`clock`)."""
        if self.clock is None:
            self.clock = self.useFixture(chaos.FakeClock())
        return self.clock

    def run_periodic(self, host, name):
        """Run periodic task ``name`` (``check_build_timeouts``,
        ``update_resources``...) of the compute on ``host`` now."""
        return self.computes[host].manager.run_periodic_now(
            nl_context.get_admin_context(), name)

    def stop_heartbeats(self, host):
        """The compute of ``host`` heartbeats no more (until restarted)."""
        self.computes[host].stop_heartbeats()

    def compute_down(self, host):
        """Make the compute of ``host`` look down at once: its heartbeats
        stop, the fake clock jumps past ``service_down_time`` and every
        other service heartbeats at the new time. Its RPC server still
        consumes (add a rule to silence it)."""
        clock = self.use_fake_clock()
        self.stop_heartbeats(host)
        clock.advance(CONF.service_down_time + 1)
        for service in self._services:
            if service is not self.computes[host]:
                service.report_state()

    # -- servers -------------------------------------------------------------

    def create_server(self, flavor_id='1', image_id=None, name='server',
                      api=None, **extra):
        """POST /servers; the server dict of the 202 (AssertionError
        otherwise)."""
        api = api or self.api
        body = {'name': name, 'flavorRef': flavor_id,
                'imageRef': image_id or CONF.image_catalog.default_image_uuid,
                'networks': 'none'}
        hints = extra.pop('scheduler_hints', None)
        body.update(extra)
        request = {'server': body}
        if hints:
            request['os:scheduler_hints'] = hints
        response = api.post('/servers', request)
        if response.status != 202:
            raise AssertionError('create failed: %r' % response)
        return response.body.get('server', response.body)

    def get_server(self, server_id, api=None):
        response = (api or self.admin_api).get('/servers/%s' % server_id)
        if response.status != 200:
            raise AssertionError('show failed: %r' % response)
        return response.body['server']

    def wait_for_server(self, server_id, status, timeout=30.0, api=None):
        """Poll until the server has ``status`` (and a fault for ERROR)."""
        deadline = time.monotonic() + timeout
        while True:
            server = self.get_server(server_id, api=api)
            if server['status'] == status and (
                    status != 'ERROR' or 'fault' in server):
                return server
            if server['status'] == 'ERROR' and status != 'ERROR':
                raise AssertionError('server %s went to ERROR waiting for '
                                     '%s: %s' % (server_id, status,
                                                 server.get('fault')))
            if time.monotonic() > deadline:
                raise AssertionError('server %s is %s, not %s after %s s'
                                     % (server_id, server['status'], status,
                                        timeout))
            time.sleep(0.05)

    def wait_until_deleted(self, server_id, timeout=30.0):
        deadline = time.monotonic() + timeout
        while True:
            response = self.admin_api.get('/servers/%s' % server_id)
            if response.status == 404:
                return
            if time.monotonic() > deadline:
                raise AssertionError('server %s still there: %r'
                                     % (server_id, response))
            time.sleep(0.05)

    # -- placement ------------------------------------------------------------

    def provider_uuid(self, nodename):
        providers = self.placement.client.list_providers(name=nodename)
        if not providers:
            raise AssertionError('no provider named %s' % nodename)
        return providers[0]['uuid']

    def usages(self, nodename):
        return self.placement.client.get_usages(
            self.provider_uuid(nodename))['usages']

    def allocations(self, consumer_uuid):
        return self.placement.client.get_allocations(
            consumer_uuid)['allocations']
