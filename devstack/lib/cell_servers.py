"""A cell node's own RabbitMQ and MariaDB (doc/multinode.md, "Cell nodes").

    python3 cell_servers.py start rabbit|mysql ROOT BIND PORT PIDFILE NAME
    python3 cell_servers.py stop rabbit|mysql ROOT BIND PORT PIDFILE NAME
    python3 cell_servers.py rabbitmqctl ROOT BIND PORT PIDFILE NAME -- ARGS

Run by devstack/stack.sh and unstack.sh on a node that runs the services
``rabbit`` and ``mysql`` without the API. Each server is a private
instance started from this machine's binaries, never the machine's
shared one: its data, logs, Erlang cookie and HOME under ROOT (the lab's
state directory), listening on BIND:PORT only; RabbitMQ's distribution
and its own epmd on loopback ports PORT+1 and PORT+2, MariaDB's
administrator socket ROOT/mysql/mysqld.sock. They are the private servers
of the fault suite (tests/faults/services.py); a restart keeps the data.

``start`` returns when the server answers and writes PIDFILE (the pid of
the server's process group, which devstack/lib/processes.sh stops). A
server already answering on BIND:PORT that is not this one is an error:
it is someone else's.
"""

import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

from tests.faults import services  # noqa: E402


def _server(kind, root, bind, port, name):
    if kind == 'rabbit':
        return services.PrivateRabbit(root, port, bind=bind,
                                      nodename='%s@localhost' % name)
    return services.PrivateMariaDB(root, port, bind=bind)


def _alive(pidfile):
    try:
        with open(pidfile) as f:
            return services._pid_alive(int(f.read().strip()))
    except (OSError, ValueError):
        return False


def start(server, pidfile):
    if _alive(pidfile):
        print('[nova-lite] %s already running (pid file %s)' % (
            type(server).__name__, pidfile))
        return 0
    if services.port_open(server.port, server.bind):
        print('[nova-lite] ERROR: %s:%d already answers and is not this '
              "node's own server (%s); give this node other ports "
              '(NOVA_LITE_CELL_RABBIT_PORT, NOVA_LITE_CELL_MYSQL_PORT)' % (
                  server.bind, server.port, pidfile))
        return 1
    try:
        server.start()
    except services.ServiceError as err:
        print('[nova-lite] ERROR: %s' % err)
        return 1
    with open(pidfile, 'w') as f:
        f.write('%d\n' % server.proc.pid)
    print('[nova-lite] started %s on %s:%d (pid %d, data under %s)' % (
        'RabbitMQ' if isinstance(server, services.PrivateRabbit)
        else 'MariaDB', server.bind, server.port, server.proc.pid,
        server.root))
    return 0


def stop(server, pidfile):
    """TERM the server's process group and wait (KILL after 60 s); the
    node's epmd goes with RabbitMQ."""
    try:
        with open(pidfile) as f:
            pid = int(f.read().strip())
    except (OSError, ValueError):
        pid = None
    if pid and services._pid_alive(pid):
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 60
        while services._pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        print('[nova-lite] stopped %s (pid %d)' % (
            os.path.basename(pidfile)[:-4], pid))
    if os.path.exists(pidfile):
        os.unlink(pidfile)
    if isinstance(server, services.PrivateRabbit):
        subprocess.run(['epmd', '-kill'], env=server._env(),
                       capture_output=True, timeout=30)
    return 0


def main(argv):
    action, kind, root, bind, port, pidfile, name = argv[:7]
    server = _server(kind, root, bind, int(port), name)
    if action == 'start':
        return start(server, pidfile)
    if action == 'stop':
        return stop(server, pidfile)
    if action == 'rabbitmqctl':
        result = server.ctl(*argv[8:], timeout=120)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return result.returncode
    print('usage: %s' % __doc__.split('\n\n')[1])
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
