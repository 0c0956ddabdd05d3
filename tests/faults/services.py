"""A private RabbitMQ node and a private MariaDB for the fault suite.

The suite stops, kills and restarts its broker and database, so it must
never touch the shared ones (127.0.0.1:5672 and :3306): each server here
runs as the current user from a temporary directory, on ports of the
suite's own range, with its own data, logs and (for Erlang) its own
cookie, epmd port and HOME. Restarts keep the data (vhosts, databases).

``rabbitmqctl`` on this machine is a wrapper that switches to the
``rabbitmq`` user and its cookie; :meth:`PrivateRabbit.write_ctl_shim`
writes a ``rabbitmqctl`` that calls the real one with this node's
environment, for devstack's scripts (put its directory first in PATH).
"""

import os
import shutil
import signal
import socket
import subprocess
import time

RABBIT_BIN = '/usr/lib/rabbitmq/bin'
MARIADB_DAEMONS = ('/usr/sbin/mariadbd', '/usr/sbin/mysqld')
# MariaDB's Galera provider (Debian: galera-4).
GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'


class ServiceError(Exception):
    pass


def port_open(port, host='127.0.0.1'):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise ServiceError('%s not within %ss' % (what, timeout))


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def missing_binaries(galera=False):
    """What this machine lacks for the private servers ('' when nothing);
    ``galera``: for the Galera cluster too (its provider, rsync)."""
    missing = []
    if not os.path.exists(os.path.join(RABBIT_BIN, 'rabbitmq-server')):
        missing.append('rabbitmq-server (%s)' % RABBIT_BIN)
    if not any(os.path.exists(d) for d in MARIADB_DAEMONS):
        missing.append('mariadbd')
    if not shutil.which('mariadb-install-db') and \
            not shutil.which('mysql_install_db'):
        missing.append('mariadb-install-db')
    if galera:
        if not os.path.exists(GALERA_PROVIDER):
            missing.append('galera-4 (%s)' % GALERA_PROVIDER)
        if not shutil.which('rsync'):
            missing.append('rsync')
    return ', '.join(missing)


def ensure_binaries(galera=False):
    """What this machine still lacks ('' when nothing), after installing
    the packages when it may (INSTALL_SERVICES, as root with apt-get:
    ``nl_install_service_packages`` of devstack/lib/services.sh, the code
    stack.sh and CI use). Nothing is started: the servers are private."""
    if not missing_binaries(galera):
        return ''
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    subprocess.run(
        ['bash', '-c', '. devstack/lib/services.sh && '
         'nl_install_service_packages%s' % (' galera' if galera else '')],
        cwd=root, timeout=1200)
    return missing_binaries(galera)


class PrivateRabbit:
    """One RabbitMQ node: AMQP on ``bind``:``port``, distribution on
    ``port + 1`` and its own epmd on ``port + 2`` (both on loopback)."""

    NODENAME = 'nl_faults@localhost'

    def __init__(self, root, port, bind='127.0.0.1', nodename=None):
        self.root = os.path.join(root, 'rabbit')
        self.port = port
        self.bind = bind
        self.pidfile = os.path.join(self.root, 'rabbit.pid')
        self.log = os.path.join(self.root, 'server.log')
        self.proc = None
        for sub in ('home', 'mnesia', 'log'):
            os.makedirs(os.path.join(self.root, sub), exist_ok=True)
        with open(os.path.join(self.root, 'rabbitmq.conf'), 'w') as f:
            f.write('listeners.tcp.default = %s:%d\n'
                    'loopback_users.guest = true\n'
                    # A quiet laptop disk must not block publishers.
                    'disk_free_limit.absolute = 50MB\n' % (bind, port))
        with open(os.path.join(self.root, 'enabled_plugins'), 'w') as f:
            f.write('[].\n')
        # An empty env file: /etc/rabbitmq/rabbitmq-env.conf names the
        # shared node.
        open(os.path.join(self.root, 'rabbitmq-env.conf'), 'w').close()
        self.env = {
            'HOME': os.path.join(self.root, 'home'),
            'RABBITMQ_NODENAME': nodename or self.NODENAME,
            'RABBITMQ_NODE_IP_ADDRESS': bind,
            'RABBITMQ_NODE_PORT': str(port),
            'RABBITMQ_DIST_PORT': str(port + 1),
            'ERL_EPMD_PORT': str(port + 2),
            'ERL_EPMD_ADDRESS': '127.0.0.1',
            'RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS':
                '-kernel inet_dist_use_interface {127,0,0,1}',
            'RABBITMQ_MNESIA_BASE': os.path.join(self.root, 'mnesia'),
            'RABBITMQ_LOG_BASE': os.path.join(self.root, 'log'),
            'RABBITMQ_CONFIG_FILE': os.path.join(self.root, 'rabbitmq.conf'),
            'RABBITMQ_ENABLED_PLUGINS_FILE':
                os.path.join(self.root, 'enabled_plugins'),
            'RABBITMQ_PLUGINS_EXPAND_DIR':
                os.path.join(self.root, 'plugins-expand'),
            'RABBITMQ_CONF_ENV_FILE':
                os.path.join(self.root, 'rabbitmq-env.conf'),
            'RABBITMQ_PID_FILE': self.pidfile,
        }

    @property
    def url(self):
        return 'rabbit://guest:guest@127.0.0.1:%d/' % self.port

    def _env(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('RABBITMQ_', 'ERL_'))}
        env.update(self.env)
        return env

    def ctl(self, *args, timeout=60):
        return subprocess.run(
            [os.path.join(RABBIT_BIN, 'rabbitmqctl'), *args],
            env=self._env(), capture_output=True, text=True,
            timeout=timeout)

    def write_ctl_shim(self, bindir):
        """A ``rabbitmqctl`` in ``bindir`` that drives this node."""
        os.makedirs(bindir, exist_ok=True)
        path = os.path.join(bindir, 'rabbitmqctl')
        exports = ''.join("export %s='%s'\n" % item
                          for item in sorted(self.env.items()))
        with open(path, 'w') as f:
            f.write('#!/bin/sh\n# The fault suite\'s private RabbitMQ node.\n'
                    '%sexec %s/rabbitmqctl "$@"\n' % (exports, RABBIT_BIN))
        os.chmod(path, 0o755)
        return bindir

    def pid(self):
        try:
            with open(self.pidfile) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def start(self, timeout=90):
        """Start the node; return when it accepts AMQP connections."""
        if self.pid() and _pid_alive(self.pid()):
            raise ServiceError('RabbitMQ node already running')
        if os.path.exists(self.pidfile):
            os.unlink(self.pidfile)
        with open(self.log, 'ab') as log:
            self.proc = subprocess.Popen(
                [os.path.join(RABBIT_BIN, 'rabbitmq-server')],
                env=self._env(), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        wait_until(lambda: self.proc.poll() is not None or
                   port_open(self.port, self.bind), timeout,
                   'RabbitMQ on %d' % self.port)
        if self.proc.poll() is not None:
            raise ServiceError('rabbitmq-server exited %s; see %s'
                               % (self.proc.returncode, self.log))
        result = self.ctl('-q', 'await_startup', timeout=timeout)
        if result.returncode:
            raise ServiceError('RabbitMQ did not start: %s' % result.stderr)

    def _reap(self):
        if self.proc is not None:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            self.proc = None

    def stop(self):
        """A clean stop (``rabbitmqctl stop``)."""
        result = self.ctl('stop', self.pidfile, timeout=90)
        if result.returncode:
            raise ServiceError('rabbitmqctl stop: %s' % result.stderr)
        self._reap()

    def kill9(self):
        """``kill -9`` the Erlang VM: no clean close for any client."""
        pid = self.pid()
        if not pid:
            raise ServiceError('no RabbitMQ pid')
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not _pid_alive(pid), 30, 'beam gone')
        self._reap()

    def destroy(self):
        pid = self.pid()
        if pid and _pid_alive(pid):
            try:
                self.stop()
            except (ServiceError, subprocess.TimeoutExpired):
                os.kill(pid, signal.SIGKILL)
        self._reap()
        # epmd outlives the node; it is ours (own port).
        subprocess.run(['epmd', '-kill'], env=self._env(),
                       capture_output=True, timeout=30)


class PrivateMariaDB:
    """One mariadbd on ``bind``:``port``, datadir and socket under
    ``root``."""

    def __init__(self, root, port, bind='127.0.0.1'):
        self.root = os.path.join(root, 'mysql')
        self.port = port
        self.bind = bind
        self.datadir = os.path.join(self.root, 'data')
        # Its own temporary files: two installs at once in one /tmp clash.
        self.tmpdir = os.path.join(self.root, 'tmp')
        self.socket = os.path.join(self.root, 'mysqld.sock')
        self.pidfile = os.path.join(self.root, 'mysqld.pid')
        self.log = os.path.join(self.root, 'error.log')
        self.daemon = next(d for d in MARIADB_DAEMONS if os.path.exists(d))
        self.user = _user()
        self.proc = None
        os.makedirs(self.tmpdir, exist_ok=True)

    @property
    def url(self):
        return 'mysql+pymysql://root@127.0.0.1:%d' % self.port

    def install(self):
        tool = (shutil.which('mariadb-install-db') or
                shutil.which('mysql_install_db'))
        result = subprocess.run(
            [tool, '--no-defaults', '--datadir=' + self.datadir,
             '--tmpdir=' + self.tmpdir,
             '--user=%s' % self.user,
             '--auth-root-authentication-method=normal',
             '--skip-test-db'], capture_output=True, text=True, timeout=300)
        if result.returncode:
            raise ServiceError('mariadb-install-db: %s%s' % (
                result.stdout[-2000:], result.stderr[-2000:]))

    def start(self, timeout=90):
        if not os.path.isdir(os.path.join(self.datadir, 'mysql')):
            self.install()
        with open(os.path.join(self.root, 'stdout.log'), 'ab') as out:
            self.proc = subprocess.Popen(
                [self.daemon, '--no-defaults', '--datadir=' + self.datadir,
                 '--tmpdir=' + self.tmpdir,
                 '--port=%d' % self.port, '--bind-address=' + self.bind,
                 '--socket=' + self.socket, '--pid-file=' + self.pidfile,
                 '--log-error=' + self.log, '--user=%s' % _user(),
                 '--skip-log-bin', '--max-connections=1000',
                 '--innodb-buffer-pool-size=64M',
                 '--innodb-flush-log-at-trx-commit=2'],
                stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        wait_until(lambda: self.proc.poll() is not None or
                   port_open(self.port, self.bind), timeout,
                   'MariaDB on %d' % self.port)
        if self.proc.poll() is not None:
            raise ServiceError('mariadbd exited %s; see %s'
                               % (self.proc.returncode, self.log))

    def stop(self, sig=signal.SIGTERM, timeout=120):
        """SIGTERM: a clean shutdown (SIGKILL: a crash)."""
        if self.proc is None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def destroy(self):
        self.stop()


def _user():
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name
