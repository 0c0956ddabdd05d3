"""python-openstackclient's ``openstack`` command, forked from a process
that has already imported it.

python-openstackclient's functional tests run ``openstack ...`` as a new
process for every step, and each one spends about 1.5 CPU seconds
importing the client (openstacksdk, cliff and cmd2, keystoneauth) before
it sends a request: most of the ecosystem suite's CPU on a 2-core
machine. Here a server imports ``openstackclient.shell`` once; an
``openstack`` first on the tests' PATH hands it its arguments,
environment, working directory and standard streams (the file
descriptors themselves, over a Unix socket), and the server forks a child
that runs the client's own ``main`` on them, as the console script does,
and answers with its exit code. The client's code runs unmodified; only
its imports are shared. ``python -m tests.ecosystem --plain-cli`` runs
the installed console script instead.

The server runs in the tests' working directory: openstacksdk fixes its
clouds.yaml search path (the working directory first) when imported.
"""

import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

# The ``openstack`` the tests run: the standard library only (no site
# packages: -S), so that it starts in milliseconds.
CLIENT = '''#!%(python)s -S
"""Written by tests/ecosystem/cli_server.py: runs this command in a
child of the server at SOCKET, which has python-openstackclient
imported."""
import json
import os
import socket
import struct
import sys

SOCKET = %(socket)r

request = json.dumps({'argv': sys.argv, 'env': dict(os.environ),
                      'cwd': os.getcwd()}).encode()
conn = socket.socket(socket.AF_UNIX)
conn.connect(SOCKET)
socket.send_fds(conn, [struct.pack('!I', len(request))], [0, 1, 2])
conn.sendall(request)
answer = b''
while True:
    chunk = conn.recv(64)
    if not chunk:
        break
    answer += chunk
# No answer: the child died before it could give its exit code.
sys.exit(int(answer) if answer else 1)
'''


def _read_exactly(conn, size):
    data = b''
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError('the client went away')
        data += chunk
    return data


def _run_client(conn, fds, request):
    """In the child: become the command's process, run the client, send
    its exit code."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request['cwd'])
    os.environ.clear()
    os.environ.update(request['env'])
    sys.argv = request['argv']
    # Streams on the command's descriptors, made as Python makes them at
    # start-up (the server's were made for its log file).
    sys.stdin = sys.__stdin__ = open(0, closefd=False)
    sys.stdout = sys.__stdout__ = open(1, 'w', closefd=False,
                                       buffering=1 if os.isatty(1) else -1)
    sys.stderr = sys.__stderr__ = open(2, 'w', closefd=False, buffering=1,
                                       errors='backslashreplace')
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    code = 1
    try:
        from openstackclient import shell
        code = shell.main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (
            0 if exc.code is None else 1)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        with contextlib.suppress(OSError):
            conn.sendall(str(code or 0).encode())
        os._exit(0)


def serve(path):
    """Import the client, then fork a child per connection, forever."""
    # cliff names the program after sys.argv[0] when imported.
    sys.argv = ['openstack']
    from openstackclient import shell  # noqa: F401 (the shared imports)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reap alone
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path + '.new')
    listener.listen(128)
    os.rename(path + '.new', path)  # ready: clients may connect
    while True:
        conn, _ = listener.accept()
        fds = []
        try:
            header, fds, _, _ = socket.recv_fds(conn, 4, 3)
            size, = struct.unpack('!I', header)
            request = json.loads(_read_exactly(conn, size))
        except (OSError, EOFError, ValueError, struct.error):
            for fd in fds:
                os.close(fd)
            conn.close()
            continue
        if os.fork() == 0:
            listener.close()
            _run_client(conn, fds, request)
        for fd in fds:
            os.close(fd)
        conn.close()


@contextlib.contextmanager
def forked_cli(workspace, timeout=60):
    """A directory to put first on the tests' PATH, whose ``openstack``
    runs in a child of a server started here (and stopped on exit)."""
    bindir = os.path.join(workspace, 'cli-bin')
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(workspace, 'openstack-cli.sock')
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    log = open(os.path.join(workspace, 'openstack-cli-server.log'), 'ab')
    server = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), path], cwd=workspace,
        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + timeout
        while not os.path.exists(path):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError('the openstack CLI server did not start: '
                                   'see %s' % log.name)
            time.sleep(0.1)
        client = os.path.join(bindir, 'openstack')
        with open(client, 'w') as f:
            f.write(CLIENT % {'python': sys.executable, 'socket': path})
        os.chmod(client, 0o755)
        yield bindir
    finally:
        server.terminate()
        server.wait()
        log.close()


if __name__ == '__main__':
    serve(sys.argv[1])
