"""OpenStack Placement 16 itself, started for a comparison.

The ``compat`` env installs ``openstack-placement`` (tests/compat/
requirements.txt); any virtualenv holding it serves as well (such as
``/tmp/placement-venv``, what the shared tools' ``real_placement.sh
install`` makes). The reference is served by the standard library's WSGI
server from that environment's Python, noauth2, SQLite in a state
directory, the schema created at start (``sync_on_startup``), candidates
not randomised. Only the standard library and requests are imported here,
so that any test env can use it.
"""

import os
import subprocess
import sys
import time

import requests

SERVE = '''
import sys
from wsgiref import simple_server

class Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass

from placement.wsgi import api
host, port = sys.argv[1], int(sys.argv[2])
simple_server.make_server(host, port, api.application,
                          handler_class=Quiet).serve_forever()
'''


def importable(python=None):
    """Whether ``placement`` imports in ``python`` (default: this one)."""
    if python is None or python == sys.executable:
        try:
            import placement  # noqa: F401
        except ImportError:
            return False
        return True
    return subprocess.run([python, '-c', 'import placement'],
                          capture_output=True).returncode == 0


def placement_python(venv=None):
    """The Python with ``placement`` importable: ``venv``'s, this one, or
    /tmp/placement-venv's."""
    if venv:
        return os.path.join(venv, 'bin', 'python')
    if importable():
        return sys.executable
    return '/tmp/placement-venv/bin/python'


class ReferencePlacement:
    """Placement 16 on ``port``, its state under ``state``."""

    def __init__(self, port, state, python):
        self.endpoint = 'http://127.0.0.1:%d' % port
        self.port = port
        self.state = state
        self.python = python
        self.process = None

    def start(self):
        conf_dir = os.path.join(self.state, 'etc')
        os.makedirs(conf_dir, exist_ok=True)
        db = os.path.join(self.state, 'placement.db')
        if os.path.exists(db):
            os.remove(db)
        with open(os.path.join(conf_dir, 'placement.conf'), 'w') as f:
            f.write('[DEFAULT]\nlog_file = %s\n[api]\nauth_strategy = '
                    'noauth2\n[placement]\nrandomize_allocation_candidates'
                    ' = False\n[placement_database]\nconnection = '
                    'sqlite:///%s\nsync_on_startup = True\n'
                    '[oslo_policy]\nenforce_new_defaults = False\n'
                    % (os.path.join(self.state, 'placement.log'), db))
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=conf_dir)
        self.log = open(os.path.join(self.state, 'stdout.log'), 'w')
        self.process = subprocess.Popen(
            [self.python, '-c', SERVE, '127.0.0.1', str(self.port)],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                requests.get(self.endpoint + '/', timeout=5)
                return
            except requests.RequestException:
                # Not listening yet.
                time.sleep(0.2)
        raise RuntimeError('reference Placement did not start; see %s'
                           % self.state)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        if self.process:
            self.log.close()
