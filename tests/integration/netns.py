"""Network namespaces as the "hosts" of a multi-node lab on one machine.

:class:`Network` makes one hub namespace holding a bridge and one
namespace per host, each joined to the bridge by a veth pair and given
its own address in a private subnet used only here (10.218.47.0/24 by
default). Nothing is added to the machine's own namespace: traffic
between the hosts stays inside the namespaces, and :meth:`Network.destroy`
kills whatever still runs in them and deletes them (their interfaces go
with them).

A command runs on a host through ``ip netns exec``; the test process
itself enters a namespace for a moment with :meth:`Network.entered`
(``setns(2)`` of the calling thread: its children start there, and its
sockets connect from there).

The private RabbitMQ and MariaDB of the fault suite are reused, listening
on every address of the controller's namespace (:class:`NsRabbit`,
:class:`NsMariaDB`).
"""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import threading
import time
import uuid

from tests.faults import services

CLONE_NEWNET = 0x40000000
SUBNET = '10.218.47'


def _ip(*args, check=True):
    result = subprocess.run(['ip', *args], capture_output=True, text=True,
                            timeout=30)
    if check and result.returncode:
        raise OSError('ip %s: %s' % (' '.join(args), result.stderr.strip()))
    return result


def skip_reason():
    """Why namespaces cannot be used here ('' when they can)."""
    if os.geteuid() != 0:
        return 'network namespaces need root (ip netns add)'
    if not shutil.which('ip'):
        return 'no ip command (iproute2)'
    name = 'nlprobe-%s' % uuid.uuid4().hex[:6]
    result = _ip('netns', 'add', name, check=False)
    if result.returncode:
        return 'the kernel refuses network namespaces: %s' % (
            result.stderr.strip() or result.returncode)
    try:
        probe = _ip('-n', name, 'link', 'add', 'v0', 'type', 'veth', 'peer',
                    'name', 'v1', check=False)
        if probe.returncode:
            return 'veth pairs are refused in a namespace: %s' % (
                probe.stderr.strip())
    finally:
        _ip('netns', 'del', name, check=False)
    return ''


def _setns(path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, 'setns(%s): %s' % (path, os.strerror(err)))
    finally:
        os.close(fd)


class Network:
    """A hub with a bridge and one namespace per host."""

    def __init__(self, hosts, subnet=SUBNET, prefix='nl'):
        tag = uuid.uuid4().hex[:6]
        self.hub = '%shub-%s' % (prefix, tag)
        self.hosts = {}   # host name -> (namespace, address)
        for i, host in enumerate(hosts, start=1):
            self.hosts[host] = ('%s%s-%s' % (prefix, tag, host),
                                '%s.%d' % (subnet, i))
        self.created = []

    def ns(self, host):
        return self.hosts[host][0]

    def address(self, host):
        return self.hosts[host][1]

    def create(self):
        _ip('netns', 'add', self.hub)
        self.created.append(self.hub)
        _ip('-n', self.hub, 'link', 'set', 'lo', 'up')
        _ip('-n', self.hub, 'link', 'add', 'br0', 'type', 'bridge')
        _ip('-n', self.hub, 'link', 'set', 'br0', 'up')
        for i, (ns, address) in enumerate(self.hosts.values(), start=1):
            _ip('netns', 'add', ns)
            self.created.append(ns)
            _ip('-n', ns, 'link', 'set', 'lo', 'up')
            _ip('-n', ns, 'link', 'add', 'eth0', 'type', 'veth', 'peer',
                'name', 'p%d' % i, 'netns', self.hub)
            _ip('-n', ns, 'addr', 'add', address + '/24', 'dev', 'eth0')
            _ip('-n', ns, 'link', 'set', 'eth0', 'up')
            _ip('-n', self.hub, 'link', 'set', 'p%d' % i, 'master', 'br0')
            _ip('-n', self.hub, 'link', 'set', 'p%d' % i, 'up')

    def command(self, host, *argv):
        return ['ip', 'netns', 'exec', self.ns(host), *argv]

    def run(self, host, argv, env=None, timeout=300):
        return subprocess.run(self.command(host, *argv), env=env,
                              capture_output=True, text=True,
                              timeout=timeout)

    @contextlib.contextmanager
    def entered(self, host):
        """Run the body (this thread) inside ``host``'s namespace."""
        own = '/proc/self/task/%d/ns/net' % threading.get_native_id()
        back = os.open(own, os.O_RDONLY)
        try:
            _setns('/var/run/netns/' + self.ns(host))
            yield
        finally:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.setns(back, CLONE_NEWNET)
            os.close(back)

    def pids(self, host):
        out = _ip('netns', 'pids', self.ns(host), check=False).stdout
        return [int(p) for p in out.split()]

    def kill_all(self, host, sig=signal.SIGKILL, wait=30):
        """Signal every process of ``host``; wait until none is left."""
        deadline = time.monotonic() + wait
        while True:
            pids = self.pids(host)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                raise OSError('processes left in %s: %s' % (host, pids))
            time.sleep(0.2)

    def destroy(self):
        for host in list(self.hosts):
            if self.ns(host) in self.created:
                try:
                    self.kill_all(host)
                except OSError:
                    pass
        for ns in reversed(self.created):
            _ip('netns', 'del', ns, check=False)
        self.created = []


class NsRabbit(services.PrivateRabbit):
    """The fault suite's RabbitMQ node, listening on every address of the
    namespace it is started in (AMQP only; Erlang stays on loopback)."""

    def __init__(self, root, port=5672):
        super().__init__(root, port)
        with open(os.path.join(self.root, 'rabbitmq.conf'), 'w') as f:
            f.write('listeners.tcp.default = 0.0.0.0:%d\n'
                    'loopback_users.guest = true\n'
                    'disk_free_limit.absolute = 50MB\n' % port)
        self.env['RABBITMQ_NODE_IP_ADDRESS'] = '0.0.0.0'


class NsMariaDB(services.PrivateMariaDB):
    """The fault suite's MariaDB, listening on every address of the
    namespace it is started in."""

    def start(self, timeout=90):
        if not os.path.isdir(os.path.join(self.datadir, 'mysql')):
            self.install()
        with open(os.path.join(self.root, 'stdout.log'), 'ab') as out:
            self.proc = subprocess.Popen(
                [self.daemon, '--no-defaults', '--datadir=' + self.datadir,
                 '--port=%d' % self.port, '--bind-address=0.0.0.0',
                 '--socket=' + self.socket, '--pid-file=' + self.pidfile,
                 '--log-error=' + self.log, '--user=%s' % services._user(),
                 '--skip-log-bin',
                 '--max-connections=500', '--innodb-buffer-pool-size=64M',
                 '--innodb-flush-log-at-trx-commit=2'],
                stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        services.wait_until(
            lambda: self.proc.poll() is not None or
            services.port_open(self.port), timeout,
            'MariaDB on %d' % self.port)
        if self.proc.poll() is not None:
            raise services.ServiceError('mariadbd exited %s; see %s'
                                        % (self.proc.returncode, self.log))
