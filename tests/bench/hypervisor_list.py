"""``os-hypervisors`` at 10,000 nodes: the API's pages and the real
``openstack hypervisor list``.

``tox -e bench -- hypervisor_list`` (``--quick``: 2,000 nodes;
``NOVA_LITE_BENCH_NODES`` overrides). 10,000 ``compute_nodes`` rows (500
compute services of 20 nodes) are inserted straight into two cell
databases, half in each, on the local MariaDB when it answers (SQLite
otherwise, or as ``NOVA_LITE_BENCH_DATABASE`` says); no compute runs.

Measured:

* in process (the WSGI application, no sockets): every page of
  ``GET /os-hypervisors/detail`` at 2.88 (what the client sends),
  following ``hypervisors_links`` until there is none: pages, rows,
  wall and CPU milliseconds, SQL statements (all databases);
* over HTTP (the application under a threaded ``wsgiref`` server in this
  process): ``openstack hypervisor list`` as a user types it (default
  table output; python-openstackclient, with ``admin_token``) from start
  to exit, the rows it printed, the CPU-seconds of the client process,
  its start-up apart from its per-row cost, and the requests the server
  saw from it (see :mod:`tests.bench.openstack_cli`).

To measure a checkout without this module (e.g. before a change), run
this file with that checkout first on ``PYTHONPATH``::

    PYTHONPATH=/path/to/checkout python tests/bench/hypervisor_list.py

Load average is recorded before and after: wall times move with it.
"""

import argparse
import datetime
import json
import os
import socketserver
import threading
import time
import uuid
from urllib import parse
from wsgiref import simple_server

import fixtures
import sqlalchemy as sa
import webob

from nova_lite.api import deploy
from nova_lite import conf as nl_conf
from nova_lite.db.cell import models as cell_models
from nova_lite.db import session as db_session
from nova_lite import testing
from nova_lite.testing import placement_fixture
from tests.bench import openstack_cli
from tests import db_fixtures

CONF = nl_conf.CONF
NODES_PER_HOST = 20
VERSION = '2.88'


class _Cells(testing.DatabaseFixture):
    """API DB and cells cell1, cell2 on MariaDB (``mysql``) or SQLite."""

    def __init__(self, database):
        super().__init__(cells=('cell1', 'cell2'))
        self.database = database

    def _url(self, name):
        if self.database != 'mysql':
            return super()._url(name)
        url = db_fixtures.random_mysql_url('nl_bench_hyp_%s' % name)
        self.addCleanup(db_fixtures.drop_mysql_database, url)
        return url


class _Lab(fixtures.Fixture):
    """``size`` nodes in two cells, their compute services up."""

    def __init__(self, size, database):
        super().__init__()
        self.size = size
        self.database = database

    def _setUp(self):
        # NOTE(bench): no heartbeats run; keep the services "up".
        self.useFixture(testing.ConfFixture(service_down_time=86400))
        placement_fixture.ensure_parsed(CONF)
        self.dbs = self.useFixture(_Cells(self.database))
        self.order = []
        per_cell = self.size // 2
        for number, cell in enumerate(('cell1', 'cell2')):
            first = number * per_cell
            self.order.extend(self._seed(self.dbs.cells[cell], first,
                                         first + per_cell))

    def _seed(self, cell, start, stop):
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        def host(i):
            # NOTE(bench): a host is in one cell even when a cell's share
            # is not a multiple of NODES_PER_HOST.
            return '%s-host%05d' % (cell.name, (i - start) // NODES_PER_HOST)
        hosts = sorted({host(i) for i in range(start, stop)})
        nodes = [{'uuid': str(uuid.uuid4()), 'host': host(i),
                  'hypervisor_hostname': 'node%05d' % i, 'vcpus': 64,
                  'memory_mb': 262144, 'local_gb': 4000, 'vcpus_used': 1,
                  'memory_mb_used': 512, 'local_gb_used': 1,
                  'free_ram_mb': 261632, 'free_disk_gb': 3999,
                  'hypervisor_type': 'fake', 'hypervisor_version': 1000,
                  'cpu_info': '{}', 'mapped': 1, 'running_vms': 1,
                  'stats': {'num_instances': '1', 'io_workload': '0'},
                  'created_at': now, 'updated_at': now}
                 for i in range(start, stop)]
        engine = sa.create_engine(cell.database_connection)
        with engine.begin() as conn:
            conn.execute(sa.insert(cell_models.Service), [
                {'uuid': str(uuid.uuid4()), 'host': host,
                 'binary': 'nova-lite-compute', 'topic': 'compute',
                 'last_seen_up': now, 'created_at': now}
                for host in hosts])
            conn.execute(sa.insert(cell_models.ComputeNode), nodes)
        engine.dispose()
        for host in hosts:
            self.dbs.map_host(host, cell.name)
        return [n['uuid'] for n in nodes]


class _StatementCounter:
    def __init__(self):
        self.count = 0
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._seen)

    def _seen(self, *args):
        self.count += 1

    def close(self):
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute',
                        self._seen)


def _get(app, url):
    req = webob.Request.blank(url)
    req.host = '127.0.0.1:8774'
    req.headers['X-Auth-Token'] = 'admin'
    req.headers['OpenStack-API-Version'] = 'compute %s' % VERSION
    resp = req.get_response(app)
    assert resp.status_int == 200, (resp.status, resp.text[:300])
    return resp.json


def _walk(app, first_url):
    """Every page from ``first_url`` on; ``(ids, pages, per-page ms)``."""
    url, ids, page_ms = first_url, [], []
    while url:
        t0 = time.perf_counter()
        body = _get(app, url)
        page_ms.append((time.perf_counter() - t0) * 1000)
        ids.extend(h['id'] for h in body['hypervisors'])
        links = body.get('hypervisors_links') or []
        url = None
        for link in links:
            if link['rel'] == 'next':
                parts = parse.urlsplit(link['href'])
                url = '%s?%s' % (parts.path, parts.query)
    return ids, page_ms


def _in_process(app, lab):
    counter = _StatementCounter()
    try:
        _get(app, '/v2.1/os-hypervisors/detail?limit=1')  # warm up
        counter.count = 0
        cpu0, t0 = time.process_time(), time.perf_counter()
        ids, page_ms = _walk(app, '/v2.1/os-hypervisors/detail')
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        statements = counter.count
    finally:
        counter.close()
    return {'what': 'api_in_process', 'nodes': lab.size,
            'listed': len(ids), 'same_order': ids == lab.order,
            'pages': len(page_ms), 'seconds': round(wall, 3),
            'cpu_s': round(cpu, 3),
            'page_ms_max': round(max(page_ms), 1),
            'page_ms_first': round(page_ms[0], 1),
            'sql_statements': statements}


class _ThreadingServer(socketserver.ThreadingMixIn,
                       simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


class _RequestLog:
    """The WSGI application, remembering each request's path and query."""

    def __init__(self, app):
        self.app, self.requests = app, []

    def __call__(self, environ, start_response):
        query = environ.get('QUERY_STRING')
        self.requests.append(environ.get('PATH_INFO', '') +
                             ('?' + query if query else ''))
        return self.app(environ, start_response)


def _request_counts(paths):
    """How many of the client's requests were listing pages, and how many
    anything else (version discovery)."""
    pages = sum(1 for p in paths if p.startswith('/v2.1/os-hypervisors'))
    return {'http_requests': len(paths), 'pages': pages,
            'other_requests': sorted(set(p for p in paths
                                         if not p.startswith(
                                             '/v2.1/os-hypervisors')))}


def _cli(app, lab):
    """The real ``openstack hypervisor list`` (default table output)
    against the application served over HTTP."""
    log = _RequestLog(app)
    server = simple_server.make_server('127.0.0.1', 0, log,
                                       server_class=_ThreadingServer,
                                       handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        endpoint = 'http://127.0.0.1:%d/v2.1' % server.server_port
        auth = ['--os-auth-type', 'admin_token', '--os-token', 'admin',
                '--os-endpoint', endpoint]
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('OS_')}
        listing = {}

        def listed():
            listing.update(_request_counts(log.requests),
                           api_cpu_s=round(time.process_time() - cpu0, 2))
        cpu0 = time.process_time()
        row = openstack_cli.hypervisor_list(auth, env, lab.order,
                                            after_listing=listed)
    finally:
        server.shutdown()
        server.server_close()
    row.update(what='openstack_hypervisor_list', nodes=lab.size, **listing)
    return row


def run(args):
    size = int(os.environ.get('NOVA_LITE_BENCH_NODES',
                              2000 if args.quick else 10000))
    database = db_fixtures.bench_database()
    rows = []
    with _Lab(size, database) as lab:
        db_session.reset()
        app = deploy.deploy(CONF)
        for measure in (_in_process, _cli):
            load = os.getloadavg()[0]
            row = measure(app, lab)
            row.update(database=database, load_before=round(load, 2),
                       load_after=round(os.getloadavg()[0], 2))
            rows.append(row)
    return {'rows': rows}


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--quick', action='store_true')
    print(json.dumps(run(parser.parse_args()), indent=2))
