"""A private 3-node MariaDB Galera cluster and the proxy in front of it.

The fault suite's Galera fault stacks a lab whose API, cell and placement
databases live on this cluster. Each node is a ``mariadbd`` of the
distribution with MariaDB's Galera provider (Debian package ``galera-4``,
``/usr/lib/galera/libgalera_smm.so``), run as the current user from the
suite's temporary directory: its own data directory, socket, option file
and four ports of the suite's range (SQL, group communication, IST, SST;
state transfers by ``rsync``). The first node bootstraps the cluster
(``--wsrep-new-cluster``); the others join it and receive its state.

The lab talks to one address, as it would to a VIP or HAProxy in
production: :class:`Proxy`, a TCP relay in this process that sends each
new connection to the first node (in node order) that is *synced*
(``wsrep_local_state`` 4 and ``wsrep_ready`` ON, checked every
:data:`CHECK_INTERVAL` seconds, as HAProxy's clustercheck would), and
closes the connections of a node that stops being synced. Writes thus go
to one node at a time (the usual active/backup arrangement); when the
stopped node is synced again new connections go back to it while older
ones still write through another node, so certification conflicts
(deadlock, 1213) may be met then.

The cluster offers the interface of :class:`services.PrivateMariaDB` that
the suite uses (``url``, ``port``, ``start``, ``stop``, ``destroy``).
"""

import os
import pwd
import selectors
import socket
import subprocess
import threading
import time

import pymysql

from tests.faults import services

PROVIDER = services.GALERA_PROVIDER
NODES = 3
CHECK_INTERVAL = 0.5
SYNCED = '4'
# Ports from the suite's base: the proxy, then per node SQL, group
# communication, IST and SST (base + 21 .. base + 37).
PROXY_OFFSET = 21
NODE_OFFSET = 22


def node_user():
    """The user the nodes run as: the current one, or ``mysql`` for
    root (the rsync daemon of a state transfer started by root would
    switch to ``nobody``, which may not write the joiner's data)."""
    user = services._user()
    if os.getuid() == 0:
        try:
            pwd.getpwnam('mysql')
            return 'mysql'
        except KeyError:
            pass
    return user


def _hand_over(path, user):
    """``path`` (made by this process) to ``user``."""
    if user == services._user():
        return
    entry = pwd.getpwnam(user)
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [dirpath] + [os.path.join(dirpath, n)
                                 for n in dirnames + filenames]:
            os.chown(name, entry.pw_uid, entry.pw_gid)


class GaleraNode(services.PrivateMariaDB):
    """Node ``index`` (1-based) of the cluster; ``ports``: SQL, gcomm,
    IST, SST."""

    def __init__(self, root, index, ports, cluster_ports):
        self.index = index
        self.gcomm_port, self.ist_port, self.sst_port = ports[1:]
        self.cluster_ports = cluster_ports
        super().__init__(os.path.join(root, 'galera%d' % index), ports[0])
        self.cnf = os.path.join(self.root, 'my.cnf')
        self.user = node_user()
        self.bootstrap = False

    def write_cnf(self):
        """The option file: the SST script reads the node's options from
        it (``--defaults-file``) too."""
        options = {
            'datadir': self.datadir, 'port': self.port,
            'bind-address': '127.0.0.1', 'socket': self.socket,
            'pid-file': self.pidfile, 'log-error': self.log,
            'user': self.user, 'max-connections': 1000,
            'innodb-buffer-pool-size': '64M',
            'innodb-flush-log-at-trx-commit': 2,
            'binlog-format': 'ROW', 'innodb-autoinc-lock-mode': 2,
            'default-storage-engine': 'InnoDB',
            'wsrep-on': 'ON', 'wsrep-provider': PROVIDER,
            'wsrep-cluster-name': 'nova_lite_faults',
            'wsrep-cluster-address': 'gcomm://' + ','.join(
                '127.0.0.1:%d' % p for p in self.cluster_ports),
            'wsrep-node-name': 'galera%d' % self.index,
            'wsrep-node-address': '127.0.0.1:%d' % self.gcomm_port,
            'wsrep-provider-options': (
                'gmcast.listen_addr=tcp://127.0.0.1:%d;'
                'ist.recv_addr=127.0.0.1:%d;gcache.size=64M;'
                'evs.inactive_timeout=PT5S;evs.suspect_timeout=PT3S'
                % (self.gcomm_port, self.ist_port)),
            'wsrep-sst-method': 'rsync',
            'wsrep-sst-receive-address': '127.0.0.1:%d' % self.sst_port,
            'wsrep-slave-threads': 2,
        }
        with open(self.cnf, 'w') as f:
            f.write('[mysqld]\n')
            for key, value in options.items():
                f.write('%s = %s\n' % (key, value))

    def start(self, timeout=120):
        """Start the node; return once it is synced with the cluster
        (the first, bootstrapping node: once it is primary)."""
        self.write_cnf()
        _hand_over(self.root, self.user)
        if not os.path.isdir(os.path.join(self.datadir, 'mysql')):
            self.install()
        args = [self.daemon, '--defaults-file=' + self.cnf]
        if self.bootstrap:
            args.append('--wsrep-new-cluster')
        with open(os.path.join(self.root, 'stdout.log'), 'ab') as out:
            self.proc = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
                env=dict(os.environ, PATH=os.environ.get('PATH', '') +
                         ':/usr/sbin:/usr/bin'))
        services.wait_until(
            lambda: self.proc.poll() is not None or self.synced(),
            timeout, 'Galera node %d synced' % self.index)
        if self.proc.poll() is not None:
            raise services.ServiceError('mariadbd exited %s; see %s'
                                        % (self.proc.returncode, self.log))

    def status(self):
        """``SHOW STATUS LIKE 'wsrep_%'`` as a dict ({} when the node
        does not answer)."""
        try:
            con = pymysql.connect(host='127.0.0.1', port=self.port,
                                  user='root', connect_timeout=1,
                                  read_timeout=2)
        except pymysql.Error:
            return {}
        try:
            with con.cursor() as cur:
                cur.execute("SHOW STATUS LIKE 'wsrep_%'")
                return {k: str(v) for k, v in cur.fetchall()}
        except pymysql.Error:
            return {}
        finally:
            con.close()

    def synced(self):
        status = self.status()
        return (status.get('wsrep_local_state') == SYNCED and
                status.get('wsrep_ready') == 'ON')


class Proxy:
    """One listening port relaying each connection to the first synced
    node (see the module's text); :attr:`log` lists the switches."""

    def __init__(self, nodes, port, interval=CHECK_INTERVAL):
        self.nodes, self.port, self.interval = nodes, port, interval
        self.healthy = []
        self.log = []
        self._conns = {}          # node index -> set of socket pairs
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = []
        self._listener = None

    def switches(self):
        """(time.monotonic(), synced node indexes) at each change."""
        with self._lock:
            return list(self.log)

    def start(self):
        self.check()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(('127.0.0.1', self.port))
        self._listener.listen(256)
        for target in (self._accept, self._watch):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)

    def check(self):
        """Which nodes are synced now; cut the connections of the others."""
        healthy = [n.index for n in self.nodes if n.synced()]
        with self._lock:
            if healthy != self.healthy:
                self.log.append((time.monotonic(), healthy))
            self.healthy = healthy
            gone = [i for i in self._conns if i not in healthy]
            doomed = [pair for i in gone for pair in self._conns.pop(i)]
        for pair in doomed:
            for sock in pair:
                _close(sock)

    def _watch(self):
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # noqa: BLE001 - keep watching
                pass

    def _accept(self):
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,),
                             daemon=True).start()

    def _relay(self, client):
        with self._lock:
            target = next((n for n in self.nodes
                           if n.index in self.healthy), None)
        if target is None:
            _close(client)
            return
        try:
            upstream = socket.create_connection(('127.0.0.1', target.port),
                                                timeout=5)
            upstream.settimeout(None)
        except OSError:
            _close(client)
            return
        pair = (client, upstream)
        with self._lock:
            self._conns.setdefault(target.index, set()).add(pair)
        sel = selectors.DefaultSelector()
        sel.register(client, selectors.EVENT_READ, upstream)
        sel.register(upstream, selectors.EVENT_READ, client)
        try:
            while not self._stop.is_set():
                for key, _ in sel.select(timeout=1):
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    key.data.sendall(data)
        except (OSError, ValueError):
            return
        finally:
            sel.close()
            with self._lock:
                self._conns.get(target.index, set()).discard(pair)
            _close(client)
            _close(upstream)

    def stop(self):
        self._stop.set()
        if self._listener is not None:
            _close(self._listener)
        with self._lock:
            pairs = [p for ps in self._conns.values() for p in ps]
            self._conns.clear()
        for pair in pairs:
            for sock in pair:
                _close(sock)


def _close(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class GaleraCluster:
    """Three nodes and the proxy; the suite's database interface."""

    @staticmethod
    def ports(port_base):
        """Every port of the cluster and its proxy."""
        return list(range(port_base + PROXY_OFFSET,
                          port_base + NODE_OFFSET + 4 * NODES))

    def __init__(self, root, port_base):
        base = port_base + NODE_OFFSET
        ports = [(base + i, base + 3 + i, base + 6 + i, base + 9 + i)
                 for i in range(NODES)]
        gcomm = [p[1] for p in ports]
        self.nodes = [GaleraNode(root, i + 1, ports[i], gcomm)
                      for i in range(NODES)]
        self.nodes[0].bootstrap = True
        self.port = port_base + PROXY_OFFSET
        if node_user() != services._user():
            # The nodes' user reaches its directories through ``root``.
            os.chmod(root, 0o711)
        self.proxy = Proxy(self.nodes, self.port)
        self._started = False

    @property
    def url(self):
        return 'mysql+pymysql://root@127.0.0.1:%d' % self.port

    def start(self, timeout=120):
        """Bootstrap (first time) or start what is down; the proxy."""
        for node in self.nodes:
            if node.proc is None or node.proc.poll() is not None:
                node.start(timeout)
            # Only a new cluster is bootstrapped: a node started again
            # joins the running ones.
            node.bootstrap = False
        if not self._started:
            self.proxy.start()
            self._started = True
        size = self.nodes[0].status().get('wsrep_cluster_size')
        if size != str(NODES):
            raise services.ServiceError('Galera cluster size %s' % size)

    def destroy(self):
        self.proxy.stop()
        for node in reversed(self.nodes):
            try:
                node.stop()
            except Exception:  # noqa: BLE001 - tear down the others
                pass

    def size(self):
        for node in self.nodes:
            status = node.status()
            if status:
                return int(status.get('wsrep_cluster_size', 0))
        return 0
