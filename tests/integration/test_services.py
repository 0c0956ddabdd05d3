"""Real service processes over RabbitMQ: records, RPC, liveness, shutdown.

A cell conductor and a compute run as real processes
(``python -m nova_lite.cmd.<binary> --config-file ...``) on a throwaway
RabbitMQ virtual host, with the cell database on SQLite (and on MariaDB
when it answers). The test process is the third party: it calls, casts and
fans out to them, reads the services table, SIGKILLs the compute and sees
it reported down, and SIGTERMs the conductor and sees it exit 0.

RabbitMQ must answer (``NOVA_LITE_RABBIT_URL``, by default guest on
127.0.0.1:5672) and ``rabbitmqctl`` must be usable (to create the vhost);
MariaDB is ``NOVA_LITE_MYSQL_URL``. Otherwise the tests skip, or fail when
``NOVA_LITE_REQUIRE_SERVICES=1`` (as in CI).
"""

import functools
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import uuid

import fixtures
import testtools

from nova_lite import baserpc
from nova_lite import context as nl_context
from nova_lite.db import migration
from nova_lite.db import session as db_session
from nova_lite import objects
from nova_lite import servicegroup
from nova_lite import testing
from tests import db_fixtures

# The broker: NOVA_LITE_RABBIT_URL (as in devstack), its vhost ignored.
RABBIT = urllib.parse.urlsplit(os.environ.get(
    'NOVA_LITE_RABBIT_URL', 'rabbit://guest:guest@127.0.0.1:5672/'))
RABBIT_HOST = RABBIT.hostname or '127.0.0.1'
RABBIT_PORT = RABBIT.port or 5672
RABBIT_USER = RABBIT.username or 'guest'
RABBIT_PASSWORD = RABBIT.password or 'guest'
REPORT_INTERVAL = 1
SERVICE_DOWN_TIME = 3
WAIT_SECONDS = 30
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _services_required():
    return os.environ.get('NOVA_LITE_REQUIRE_SERVICES', '').lower() in (
        '1', 'true', 'yes')


def _port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def _rabbitmqctl(*args):
    return subprocess.run(['rabbitmqctl', '-q', *args], check=False,
                          capture_output=True, text=True, timeout=60)


def wait_for(predicate, timeout=WAIT_SECONDS, interval=0.2, what='condition'):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError('%s not met within %ss' % (what, timeout))


def require_service(test, available, reason):
    """Skip ``test`` unless ``available``; fail instead in CI mode.

    Called from setUp itself: a skip raised inside a fixture's setUp would
    be reported as an error.
    """
    if available:
        return
    message = 'service integration test not run: %s' % reason
    if _services_required():
        test.fail(message + ' (NOVA_LITE_REQUIRE_SERVICES=1)')
    test.skipTest(message)


def require_rabbit(test):
    require_service(test, _port_open(RABBIT_HOST, RABBIT_PORT),
                    'RabbitMQ does not answer on %s:%d'
                    % (RABBIT_HOST, RABBIT_PORT))
    try:
        usable = _rabbitmqctl('list_vhosts').returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        usable = False
    require_service(test, usable,
                    'rabbitmqctl cannot be run to create a throwaway vhost')


def require_mysql(test):
    reason = db_fixtures.mysql_unavailable_reason()
    require_service(test, reason is None, reason)


class RabbitVhostFixture(fixtures.Fixture):
    """A throwaway vhost the test user may use; deleted on cleanup."""

    def _setUp(self):
        self.vhost = 'nova_lite_it_%s' % uuid.uuid4().hex[:8]
        self._check(_rabbitmqctl('add_vhost', self.vhost), 'add_vhost')
        self.addCleanup(_rabbitmqctl, 'delete_vhost', self.vhost)
        self._check(_rabbitmqctl('set_permissions', '-p', self.vhost,
                                 RABBIT_USER, '.*', '.*', '.*'),
                    'set_permissions')
        self.url = 'rabbit://%s:%s@%s:%d/%s' % (
            urllib.parse.quote(RABBIT_USER, safe=''),
            urllib.parse.quote(RABBIT_PASSWORD, safe=''), RABBIT_HOST,
            RABBIT_PORT, self.vhost)

    @staticmethod
    def _check(result, what):
        if result.returncode != 0:
            raise RuntimeError('rabbitmqctl %s failed: %s'
                               % (what, result.stderr.strip()))


class MySQLDatabaseFixture(fixtures.Fixture):
    """A uniquely named MariaDB database (created by the schema sync),
    dropped on cleanup. The server is ``NOVA_LITE_MYSQL_URL``."""

    def _setUp(self):
        self.url = db_fixtures.random_mysql_url('nl_it')
        self.addCleanup(db_fixtures.drop_mysql_database, self.url)


class ProcessFixture(fixtures.Fixture):
    """A nova_lite binary as a real process in its own process group."""

    def __init__(self, module, config_file, log_file, args=()):
        super().__init__()
        self.module = module
        self.config_file = config_file
        self.log_file = log_file
        self.args = list(args)

    def _setUp(self):
        env = dict(os.environ, PYTHONPATH=REPO_ROOT)
        with open(self.log_file, 'ab') as log:
            self.process = subprocess.Popen(
                [sys.executable, '-m', self.module, '--config-file',
                 self.config_file] + self.args,
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO_ROOT,
                start_new_session=True)
        self.addCleanup(self._kill)

    def _kill(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def kill_group(self):
        """SIGKILL the launcher and its worker: a crash, no goodbye."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def terminate(self, timeout=60):
        """SIGTERM the launcher and return its exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)

    def log(self):
        with open(self.log_file, errors='replace') as f:
            return f.read()


def _write_config(path, transport_url, host, database=None):
    lines = ['[DEFAULT]',
             'transport_url = %s' % transport_url,
             'host = %s' % host,
             'report_interval = %d' % REPORT_INTERVAL,
             'service_down_time = %d' % SERVICE_DOWN_TIME,
             'periodic_fuzzy_delay = 0',
             'graceful_shutdown_timeout = 30']
    if database:
        lines += ['[database]', 'connection = %s' % database]
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return path


class _ServicesScenario:
    """The scenario, run against a cell database chosen by subclasses."""

    def cell_database(self):
        raise NotImplementedError

    def setUp(self):
        super().setUp()
        require_rabbit(self)
        self.vhost = self.useFixture(RabbitVhostFixture())
        # This process judges the services' heartbeats as they are
        # configured (the fixture's own default is a tolerant 30 s).
        self.conf = self.useFixture(
            testing.ConfFixture(transport_url=self.vhost.url,
                                report_interval=REPORT_INTERVAL,
                                service_down_time=SERVICE_DOWN_TIME))
        self.tempdir = self.conf.tempdir
        self.database = self.cell_database()
        migration.db_sync(self.database, database='cell')
        suffix = uuid.uuid4().hex[:6]
        self.conductor_host = 'it-cond-' + suffix
        self.compute_host = 'it-cmp-' + suffix

    def _start(self, name, host, database=None, args=()):
        config = _write_config(os.path.join(self.tempdir, name + '.conf'),
                               self.vhost.url, host, database)
        return self.useFixture(ProcessFixture(
            'nova_lite.cmd.' + name, config,
            os.path.join(self.tempdir, name + '.log'), args=args))

    def _services(self):
        ctxt = nl_context.get_admin_context()
        ctxt.db_connection = db_session.get_cell_context_manager(
            self.database)
        return {s.binary: s for s in objects.ServiceList.get_all(ctxt)}

    @staticmethod
    def _logged(proc, text):
        return any(text in x and 'requested over RPC' in x
                   for x in proc.log().splitlines())

    def _details(self, *procs):
        return '\n'.join('--- %s log:\n%s' % (p.module, p.log()[-4000:])
                         for p in procs)

    def test_services_lifecycle(self):
        conductor = self._start('conductor', self.conductor_host,
                                database=self.database,
                                args=['--cell', 'cell1'])
        wait_for(lambda: 'nova-lite-conductor' in self._services(),
                 what='conductor recorded')
        compute = self._start('compute', self.compute_host)
        try:
            wait_for(lambda: 'nova-lite-compute' in self._services(),
                     what='compute recorded through the conductor')
            # NOTE(nova_lite): the record comes before the compute's queue
            # exists; a message sent in between is dropped by the broker.
            wait_for(lambda: 'consuming topic' in compute.log(),
                     what='compute consuming its queue')
        except AssertionError:
            self.fail(self._details(conductor, compute))
        ctxt = nl_context.RequestContext(
            user_id='alice', project_id='project-a', roles=['member'])

        # call: the context arrives intact.
        reply = baserpc.BaseAPI('compute').ping(
            ctxt, 'hello', server=self.compute_host, timeout=30)
        self.assertEqual(('hello', self.compute_host, 'nova-lite-compute'),
                         (reply['arg'], reply['host'], reply['binary']))
        self.assertEqual((ctxt.request_id, 'alice', 'project-a', ['member'],
                          False),
                         (reply['context']['request_id'],
                          reply['context']['user'],
                          reply['context']['project_id'],
                          reply['context']['roles'],
                          reply['context']['is_admin']))
        reply = baserpc.BaseAPI('conductor').ping(ctxt, 'c', timeout=30)
        self.assertEqual(self.conductor_host, reply['host'])

        # cast and fanout: the heartbeat logs under the caller's identity.
        cast_ctxt = nl_context.RequestContext(user_id='bob',
                                              project_id='project-b')
        baserpc.BaseAPI('compute').report_state(cast_ctxt,
                                                server=self.compute_host)
        fan_ctxt = nl_context.RequestContext(user_id='carol',
                                             project_id='project-c')
        baserpc.BaseAPI('conductor').report_state(fan_ctxt, fanout=True)
        expect = [(compute, cast_ctxt, 'bob project-b'),
                  (conductor, fan_ctxt, 'carol project-c')]
        for proc, sent, identity in expect:
            line = '%s %s' % (sent.request_id, identity)
            wait_for(functools.partial(self._logged, proc, line),
                     what='heartbeat logged with %s' % line)

        # both up; a crashed compute goes down after service_down_time.
        services = self._services()
        self.assertTrue(servicegroup.is_up(services['nova-lite-conductor']))
        self.assertTrue(servicegroup.is_up(services['nova-lite-compute']))
        compute.kill_group()
        wait_for(lambda: not servicegroup.is_up(
            self._services()['nova-lite-compute']),
            timeout=SERVICE_DOWN_TIME * 5, what='compute reported down')
        self.assertTrue(servicegroup.is_up(
            self._services()['nova-lite-conductor']))

        # SIGTERM: graceful stop, exit status 0.
        self.assertEqual(0, conductor.terminate(), self._details(conductor))
        self.assertIn('nova-lite-conductor on %s stopped' %
                      self.conductor_host, conductor.log())


class SQLiteServicesTestCase(_ServicesScenario, testtools.TestCase):

    def cell_database(self):
        return 'sqlite:///%s' % os.path.join(self.tempdir, 'cell1.db')


class MySQLServicesTestCase(_ServicesScenario, testtools.TestCase):

    def cell_database(self):
        require_mysql(self)
        return self.useFixture(MySQLDatabaseFixture()).url
