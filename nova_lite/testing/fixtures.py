"""Fixtures for tests that run nova_lite services in one process.

Typical use in a ``testtools.TestCase``::

    conf = self.useFixture(testing.ConfFixture())
    dbs = self.useFixture(testing.DatabaseFixture(cells=('cell1',)))
    conductor = self.useFixture(testing.ServiceFixture(
        'conductor', host='cond1', cell=dbs.cells['cell1'])).service
    compute = self.useFixture(testing.ServiceFixture(
        'compute', host='host1', cell=dbs.cells['cell1'])).service

Everything is undone on cleanup: options restored, services stopped,
transports closed, engines disposed, temporary files removed.
"""

import collections
import os
import uuid

import fixtures
from oslo_config import fixture as config_fixture
from oslo_messaging import conffixture as messaging_conffixture
from oslo_messaging.rpc import client as rpc_client

from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.api import api as api_db
from nova_lite.db import migration
from nova_lite.db import session as db_session
from nova_lite.notifications import listener
from nova_lite import objects
from nova_lite import rpc
from nova_lite import service as nl_service

CONF = nl_conf.CONF

# A cell as tests see it: what a cell mapping holds.
Cell = collections.namedtuple(
    'Cell', ['name', 'uuid', 'database_connection', 'transport_url'])

CELL0_UUID = '00000000-0000-0000-0000-000000000000'


class ConfFixture(fixtures.Fixture):
    """Test configuration on the global CONF, restored on cleanup.

    A short ``report_interval`` (1 s) with a ``service_down_time`` of
    30 s: a heartbeat thread starved for a few seconds on a loaded
    machine (two test workers beside other work) must not make a compute
    "down" and fail a boot with NoValidHost; tests that need a down
    service say so with ``last_seen_up``, ``forced_down`` or a time
    override. Periodic tasks off (run them by hand), state and SQLite
    files in a temporary directory (``self.tempdir``), ``fake://``
    transport.
    """

    def __init__(self, transport_url='fake:///', **overrides):
        super().__init__()
        self.transport_url = transport_url
        self.overrides = overrides

    def _setUp(self):
        self.tempdir = self.useFixture(fixtures.TempDir()).path
        self.conf = self.useFixture(config_fixture.Config(CONF))
        messaging_conf = self.useFixture(
            messaging_conffixture.ConfFixture(CONF))
        messaging_conf.transport_url = self.transport_url
        self.flags(host='test-host', state_path=self.tempdir,
                   report_interval=1, service_down_time=30,
                   periodic_enable=False, periodic_fuzzy_delay=0)
        self.flags(connection=self.sqlite_url('cell1'), group='database')
        self.flags(connection=self.sqlite_url('api'), group='api_database')
        # NOTE(nova_lite): tests without a placement fixture should not wait
        # on connection retries to a placement that is not there.
        self.flags(connect_retries=0, group='placement')
        self.flags(**self.overrides)
        self.addCleanup(rpc.cleanup)
        self.addCleanup(db_session.reset)
        objects.register_all()

    def sqlite_url(self, name):
        """URL of a SQLite file named after ``name`` in the temp dir."""
        return 'sqlite:///%s' % os.path.join(self.tempdir, '%s.db' % name)

    def flags(self, group=None, **kw):
        """Override options (of ``group``) until cleanup."""
        for name, value in kw.items():
            self.conf.config(group=group, **{name: value})


class NotificationFixture(fixtures.Fixture):
    """Notifications on, received by real oslo.messaging listeners.

    Sets ``[oslo_messaging_notifications] driver`` to ``messagingv2`` and
    ``[notifications] notification_format`` to ``notification_format``
    (plus ``flags`` in ``[notifications]``), on the process's transport
    (``fake://`` in tests, whose exchanges every transport of the process
    shares). :attr:`versioned` records what arrives on the versioned
    topics, :attr:`legacy` what arrives on ``notifications`` (the
    unversioned format's topic): both are
    :class:`~nova_lite.notifications.listener.Recorder`.

    ``NotificationFixture.observer``, when set (a callable), also gets
    every versioned notification of every test: the compat suite compares
    them all with Nova's samples.
    """

    observer = None

    def __init__(self, notification_format='versioned', **flags):
        super().__init__()
        self.notification_format = notification_format
        self.flags = flags

    def _setUp(self):
        self._override('driver', ['messagingv2'],
                       'oslo_messaging_notifications')
        self._override('notification_format', self.notification_format,
                       'notifications')
        for name, value in self.flags.items():
            self._override(name, value, 'notifications')
        rpc.reset_notifiers()
        self.addCleanup(rpc.reset_notifiers)
        transport = rpc.get_notification_transport()
        self.versioned = listener.Recorder()
        self.legacy = listener.Recorder()
        self._listen(transport,
                     CONF.notifications.versioned_notifications_topics,
                     self._observed(self.versioned))
        self._listen(transport,
                     CONF.oslo_messaging_notifications.topics, self.legacy)

    def _observed(self, recorder):
        observer = type(self).observer
        if observer is None:
            return recorder

        def both(notification):
            recorder(notification)
            observer(notification)
        return both

    def _override(self, name, value, group):
        CONF.set_override(name, value, group=group)
        self.addCleanup(CONF.clear_override, name, group=group)

    def _listen(self, transport, topics, recorder):
        started = listener.start(transport, topics, recorder)

        def stop():
            started.stop()
            started.wait()
        self.addCleanup(stop)

    def event_types(self, predicate=None):
        """The versioned event types received so far, in order."""
        return [n['event_type'] for n in self.versioned.matching(predicate)]


class DatabaseFixture(fixtures.Fixture):
    """An API database and cell databases with their schema, on SQLite.

    Needs a :class:`ConfFixture` first. ``self.cells`` maps each cell name
    to a :class:`Cell`; every cell has its own SQLite file and its own
    ``fake://`` virtual host (so its own exchange, see ``nova_lite.rpc``).
    cell0 has a database and no bus. The first named cell is the process
    default (``[database] connection`` and ``[DEFAULT] transport_url``).
    With ``api`` (the default) every cell also gets its cell mapping in the
    API database, and :meth:`map_host` maps a compute host to a cell as
    host discovery would.
    """

    def __init__(self, cells=('cell1',), with_cell0=True, api=True):
        super().__init__()
        self.cell_names = tuple(cells)
        self.with_cell0 = with_cell0
        self.api = api

    def _setUp(self):
        self.tempdir = self.useFixture(fixtures.TempDir()).path
        self.cells = {}
        if self.api:
            self.api_connection = self._url('api')
            migration.db_sync(self.api_connection, database='api')
            CONF.set_override('connection', self.api_connection,
                              group='api_database')
            self.addCleanup(CONF.clear_override, 'connection',
                            group='api_database')
        if self.with_cell0:
            self._add_cell('cell0', 'none:///', CELL0_UUID)
        for name in self.cell_names:
            self._add_cell(name, 'fake:///%s' % name)
        if self.api:
            db_session.reset()
            self._map_cells()
        if self.cell_names:
            default = self.cells[self.cell_names[0]]
            CONF.set_override('connection', default.database_connection,
                              group='database')
            self.addCleanup(CONF.clear_override, 'connection',
                            group='database')
            CONF.set_override('transport_url', default.transport_url)
            self.addCleanup(CONF.clear_override, 'transport_url')
        self.addCleanup(db_session.reset)

    def _url(self, name):
        return 'sqlite:///%s' % os.path.join(self.tempdir, '%s.db' % name)

    def _add_cell(self, name, transport_url, cell_uuid=None):
        connection = self._url(name)
        migration.db_sync(connection, database='cell')
        self.cells[name] = Cell(name, cell_uuid or str(uuid.uuid4()),
                                connection, transport_url)

    def _map_cells(self):
        ctxt = nl_context.get_admin_context()
        self.cell_ids = {}
        for cell in self.cells.values():
            row = api_db.cell_mapping_create(ctxt, cell._asdict())
            self.cell_ids[cell.name] = row.id

    def map_host(self, host, cell_name):
        """Map compute ``host`` to the cell named ``cell_name``."""
        api_db.host_mapping_create(nl_context.get_admin_context(), host,
                                   self.cell_ids[cell_name])


SERVICES = {
    # name: (binary, topic module, manager class path)
    'conductor': ('nova-lite-conductor', 'nova_lite.conductor.rpcapi',
                  'nova_lite.conductor.manager.ConductorManager'),
    'scheduler': ('nova-lite-scheduler', 'nova_lite.scheduler.rpcapi',
                  'nova_lite.scheduler.manager.SchedulerManager'),
    'compute': ('nova-lite-compute', 'nova_lite.compute.rpcapi',
                'nova_lite.compute.manager.ComputeManager'),
}


def _import_class(path):
    module_name, _, class_name = path.rpartition('.')
    module = __import__(module_name, fromlist=[class_name])
    return getattr(module, class_name)


def make_service(name, host=None, cell=None, **kwargs):
    """Build (not start) the service ``name`` ('conductor', 'scheduler',
    'compute') on ``host``, in ``cell`` (a :class:`Cell`) when given."""
    binary, rpcapi_module, manager_path = SERVICES[name]
    topic = __import__(rpcapi_module, fromlist=['RPC_TOPIC']).RPC_TOPIC
    if cell is not None:
        kwargs.setdefault('transport_url', cell.transport_url)
        if name != 'compute':
            kwargs.setdefault('db_connection', cell.database_connection)
    return nl_service.Service.create(binary, topic,
                                     _import_class(manager_path),
                                     host=host or name, **kwargs)


class ServiceFixture(fixtures.Fixture):
    """Start a service in-process; stop it (gracefully) on cleanup.

    ``name`` is 'conductor', 'scheduler' or 'compute'; the started
    :class:`nova_lite.service.Service` is ``self.service``.
    """

    def __init__(self, name, host=None, cell=None, **kwargs):
        super().__init__()
        self.name = name
        self.host = host
        self.cell = cell
        self.kwargs = kwargs

    def _setUp(self):
        self.service = make_service(self.name, host=self.host,
                                    cell=self.cell, **self.kwargs)
        self.service.start()
        self.addCleanup(self.service.stop)


def start_service(test, name, host=None, cell=None, **kwargs):
    """Start service ``name`` for the duration of ``test``; return it."""
    return test.useFixture(ServiceFixture(name, host=host, cell=cell,
                                          **kwargs)).service


class CastAsCallFixture(fixtures.Fixture):
    """Make RPC casts wait for the server to finish (like calls).

    Tests that drive a chain of casts (API -> conductor -> compute) can then
    assert right after the first cast returns. Fanout casts stay casts (a
    call cannot fan out). Errors raised by the cast-to method propagate to
    the caster, which a real cast would never see.
    """

    def _setUp(self):
        base = rpc_client._BaseCallContext
        original_cast = base.cast

        def cast_as_call(self, ctxt, method, **kwargs):
            if self.target.fanout:
                return original_cast(self, ctxt, method, **kwargs)
            base.call(self, ctxt, method, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'oslo_messaging.rpc.client._BaseCallContext.cast', cast_as_call))
