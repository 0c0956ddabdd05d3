"""A real nova-lite-api process (gunicorn) for tests that need HTTP.

``APIServer`` prepares an API database with cell0 and one cell (cell1)
holding a compute service with nodes, writes a config file, starts
``python -m nova_lite.cmd.api`` on a free 127.0.0.1 port, waits for
``/healthcheck`` and stops the server with SIGTERM on cleanup. The
server log is attached to the test.
"""

import os
import signal
import socket
import subprocess
import sys
import time

import fixtures
from oslo_config import fixture as config_fixture
from oslo_utils import uuidutils
import requests
import testtools.content

from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite.db import migration
from nova_lite.db import session as db_session

START_TIMEOUT = 60
CELL0_UUID = '00000000-0000-0000-0000-000000000000'


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class APIServer(fixtures.Fixture):
    """nova-lite-api with noauth2 over SQLite, optional placement."""

    def __init__(self, placement_endpoint=None, workers=1,
                 compute_hosts=('host1',)):
        super().__init__()
        self.placement_endpoint = placement_endpoint
        self.workers = workers
        self.compute_hosts = compute_hosts

    def _url(self, name):
        return 'sqlite:///%s' % os.path.join(self.tmp, '%s.db' % name)

    def _prepare_databases(self):
        self.api_url = self._url('api')
        migration.db_sync(self.api_url, database='api')
        ctxt = nl_context.get_admin_context()
        self.useFixture(config_fixture.Config(nl_conf.CONF)).config(
            group='api_database', connection=self.api_url)
        db_session.reset()
        self.addCleanup(db_session.reset)
        for name, uuid in (('cell0', CELL0_UUID), ('cell1', None)):
            url = self._url(name)
            migration.db_sync(url, database='cell')
            cell = api_db.cell_mapping_create(ctxt, {
                'uuid': uuid or uuidutils.generate_uuid(), 'name': name,
                'database_connection': url,
                'transport_url': 'none:///' if name == 'cell0'
                else 'fake:///cell1'})
        self.cell1_url = url
        self._add_computes(ctxt, cell)

    def _add_computes(self, ctxt, cell):
        cctxt = nl_context.get_admin_context()
        cells.set_target_cell(cctxt, cell)
        self.node_uuids = []
        for host in self.compute_hosts:
            service = cell_db.service_create(cctxt, {
                'host': host, 'binary': 'nova-lite-compute',
                'topic': 'compute', 'report_count': 1})
            # A fresh heartbeat: the service shows as up for a minute.
            cell_db.service_update(cctxt, service.id, {'report_count': 2})
            node_uuid = uuidutils.generate_uuid()
            cell_db.compute_node_create(cctxt, {
                'uuid': node_uuid, 'service_id': service.id, 'host': host,
                'hypervisor_hostname': '%s-node-0' % host, 'vcpus': 16,
                'memory_mb': 32768, 'local_gb': 500,
                'hypervisor_type': 'fake', 'hypervisor_version': 1000,
                'cpu_info': '{}', 'mapped': 1})
            self.node_uuids.append(node_uuid)
            api_db.host_mapping_create(ctxt, host, cell.id)

    def _write_config(self, port):
        path = os.path.join(self.tmp, 'nova-lite.conf')
        placement = ''
        if self.placement_endpoint:
            placement = ('[placement]\nendpoint = %s\ntoken = admin\n'
                         % self.placement_endpoint)
        # NOTE(nova_lite): nothing listens on this process's fake:// bus,
        # so an RPC call (disabling a compute that reports up tells it)
        # can only time out: a short timeout, not the default 60 s that
        # held such a request (the API logs that it could not tell it).
        with open(path, 'w') as f:
            f.write('[DEFAULT]\nlog_file = %s\ntransport_url = fake:///\n'
                    'rpc_response_timeout = 1\n'
                    'service_down_time = 600\n'
                    '[api_database]\nconnection = %s\n'
                    '[database]\nconnection = %s\n'
                    '[api]\nbind_host = 127.0.0.1\nbind_port = %d\n'
                    'workers = %d\nauth_strategy = noauth2\n%s'
                    % (self.log_path, self.api_url, self.cell1_url, port,
                       self.workers, placement))
        return path

    def _setUp(self):
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self._prepare_databases()
        port = free_port()
        self.host_url = 'http://127.0.0.1:%d' % port
        self.endpoint = self.host_url + '/v2.1'
        self.log_path = os.path.join(self.tmp, 'api.log')
        config_file = self._write_config(port)
        env = dict(os.environ)
        env.pop('NOVA_LITE_EVENTLET', None)
        self.stdout = open(os.path.join(self.tmp, 'stdout.log'), 'w')
        self.addCleanup(self.stdout.close)
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'nova_lite.cmd.api',
             '--config-file', config_file],
            stdout=self.stdout, stderr=subprocess.STDOUT, env=env)
        self.addCleanup(self._stop)
        self._wait_until_healthy()

    def _wait_until_healthy(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('nova-lite-api exited with %s'
                                   % self.process.returncode)
            try:
                if requests.get(self.host_url + '/healthcheck',
                                timeout=2).status_code == 200:
                    return
            except (requests.ConnectionError, requests.Timeout):
                # Not listening yet, or its worker still starting (a
                # loaded machine): ask again until the deadline.
                pass
            time.sleep(0.2)
        raise RuntimeError('nova-lite-api did not start in %ds'
                           % START_TIMEOUT)

    def _stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for name in ('api.log', 'stdout.log'):
            path = os.path.join(self.tmp, name)
            if os.path.exists(path):
                self.addDetail(name, testtools.content.content_from_file(
                    path, buffer_now=True))
        if self.process.returncode not in (0, -signal.SIGTERM):
            raise RuntimeError('nova-lite-api exited with %s after SIGTERM'
                               % self.process.returncode)

    def clouds_yaml(self, path):
        """Write the clouds.yaml of DEPS_AND_CLIENTS §4 for this server."""
        image = self.host_url + '/image'
        with open(path, 'w') as f:
            f.write(
                'clouds:\n'
                '  nova-lite:\n'
                '    auth_type: none\n'
                '    auth: {endpoint: "%(ep)s"}\n'
                '    identity_api_version: "3"\n'
                '    image_endpoint_override: "%(image)s"\n'
                '  nova-lite-admin:\n'
                '    auth_type: admin_token\n'
                '    auth: {endpoint: "%(ep)s", token: admin}\n'
                '    identity_api_version: "3"\n'
                '    identity_endpoint_override: "%(ep)s"\n'
                '    image_endpoint_override: "%(image)s"\n'
                % {'ep': self.endpoint, 'image': image})
        return path
