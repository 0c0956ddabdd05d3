"""100,000 servers in two cells, in process: what each read costs.

``tox -e bench -- server_scale`` (``--quick``: 5,000 servers;
``NOVA_LITE_BENCH_SERVERS`` and ``NOVA_LITE_BENCH_NODES``, the nodes of
each of the two computes, override). The whole cloud runs in this
process (:mod:`nova_lite.testing.integrated`) with its API and cell
databases on the local MariaDB when it answers (placement on SQLite).
A few servers are booted for real, one per cell at least; then every
row a boot left for them (instance, mapping, request spec, action,
placement consumer and allocations) is copied in bulk, with new uuids,
names and times, until the cells hold the servers asked for, spread
evenly over the computes' nodes and half in each cell, all in the member
project (the worst case for project-scoped reads).

Measured, each with its wall and CPU milliseconds, SQL statements and
instance rows loaded (ORM loads of the cell ``instances`` table):

* ``GET /servers/detail?limit=1000`` as the member, the next pages
  after it, the same with ``all_tenants`` as the admin, and a page
  sorted by ``display_name`` (a sort that is not the default's);
* every page of ``GET /servers?all_tenants=1`` (what a paged
  ``openstack server list --all-projects`` reads);
* the quota count a boot makes, and a real boot (POST to ACTIVE);
* placement's ``GET /usages?project_id=``;
* ``os-hypervisors/detail`` and ``os-simple-tenant-usage`` pages;
* one compute's resource tracker periodic (its instances by host);
* the dashboard's capacity snapshot.

Load average is recorded before and after: wall times move with it.
"""

import datetime
import os
import time
import uuid
from urllib import parse

import fixtures
import sqlalchemy as sa

from nova_lite import context as nl_context
from nova_lite.db.api import models as api_models
from nova_lite.db.cell import models as cell_models
from nova_lite.placement.db import models as placement_models
from nova_lite.testing import integrated
from tests import db_fixtures

PAGE = 1000
MEMBER_PROJECT = integrated.MEMBER_TOKEN.split(':')[1]
SEED = 4
CHUNK = 5000


class _Counter:
    """SQL statements (every engine) and cell instance rows loaded."""

    def __init__(self):
        self.statements = 0
        self.rows = 0
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._statement)
        sa.event.listen(cell_models.Instance, 'load', self._row)

    def _statement(self, *args):
        self.statements += 1

    def _row(self, *args):
        self.rows += 1

    def close(self):
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute',
                        self._statement)
        sa.event.remove(cell_models.Instance, 'load', self._row)

    def measure(self, what, func):
        self.statements = self.rows = 0
        cpu0, t0 = time.process_time(), time.perf_counter()
        result = func()
        row = {'what': what,
               'ms': round((time.perf_counter() - t0) * 1000, 1),
               'cpu_ms': round((time.process_time() - cpu0) * 1000, 1),
               'statements': self.statements, 'instance_rows': self.rows}
        return row, result


def _mysql_urls(self, name):
    url = db_fixtures.random_mysql_url('nl_bench_srv_%s' % name)
    self.addCleanup(db_fixtures.drop_mysql_database, url)
    return url


def _now():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def _rows(url, table, column, values):
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(
                sa.select(table).where(column.in_(values)))]
    finally:
        engine.dispose()


def _swap(value, old, new):
    """``value`` with the uuid ``old`` replaced by ``new`` (in strings
    and in JSON-decoded dicts and lists)."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {k: _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, old, new) for v in value]
    return value


class Seeder:
    """Copies the rows of real boots into ``servers`` servers."""

    def __init__(self, cloud, seeds, nodes):
        self.cloud = cloud
        self.seeds = seeds     # {instance uuid: cell name}
        self.nodes = nodes     # {cell name: [(host, node, compute id, rp id)]}

    def _insert(self, url, table, rows):
        engine = sa.create_engine(url)
        try:
            with engine.begin() as conn:
                for start in range(0, len(rows), CHUNK):
                    conn.execute(sa.insert(table), rows[start:start + CHUNK])
        finally:
            engine.dispose()

    def seed(self, servers):
        dbs = self.cloud.dbs
        placement_url = self.cloud.placement.url
        by_cell = {}
        for seed_uuid, cell in self.seeds.items():
            by_cell.setdefault(cell, seed_uuid)
        cell_names = sorted(by_cell)
        api = {'mappings': [], 'specs': []}
        placement = {'consumers': [], 'allocations': []}
        templates = {}
        for cell in cell_names:
            seed_uuid = by_cell[cell]
            url = dbs.cells[cell].database_connection
            templates[cell] = {
                'instance': _rows(url, cell_models.Instance,
                                  cell_models.Instance.uuid, [seed_uuid])[0],
                'actions': _rows(url, cell_models.InstanceAction,
                                 cell_models.InstanceAction.instance_uuid,
                                 [seed_uuid]),
                'mapping': _rows(
                    dbs.api_connection, api_models.InstanceMapping,
                    api_models.InstanceMapping.instance_uuid,
                    [seed_uuid])[0],
                'spec': _rows(dbs.api_connection, api_models.RequestSpec,
                              api_models.RequestSpec.instance_uuid,
                              [seed_uuid])[0],
                'consumer': _rows(placement_url, placement_models.Consumer,
                                  placement_models.Consumer.uuid,
                                  [seed_uuid])[0],
                'allocations': _rows(
                    placement_url, placement_models.Allocation,
                    placement_models.Allocation.consumer_id, [seed_uuid])}
        existing = len(self.seeds)
        start = _now() - datetime.timedelta(days=1)
        cells_rows = {cell: {'instances': [], 'actions': []}
                      for cell in cell_names}
        for i in range(servers - existing):
            cell = cell_names[i % len(cell_names)]
            nodes = self.nodes[cell]
            host, node, compute_id, rp_id = nodes[
                (i // len(cell_names)) % len(nodes)]
            t = templates[cell]
            old = t['instance']['uuid']
            new = str(uuid.uuid4())
            # NOTE(bench): a multi-create's servers share a second; one
            # created_at per 10 servers keeps ties in the order as well.
            created = start + datetime.timedelta(seconds=i // 10)
            inst = {k: _swap(v, old, new) for k, v in
                    t['instance'].items() if k != 'id'}
            name = 'scale-%06d' % i
            inst.update(uuid=new, display_name=name, hostname=name,
                        host=host, node=node, launched_on=host,
                        compute_id=compute_id, created_at=created,
                        updated_at=created, launched_at=created,
                        reservation_id='r-%08d' % (i // 10),
                        launch_index=i % 10)
            cells_rows[cell]['instances'].append(inst)
            for action in t['actions']:
                row = {k: _swap(v, old, new) for k, v in action.items()
                       if k != 'id'}
                row.update(created_at=created, start_time=created)
                cells_rows[cell]['actions'].append(row)
            mapping = {k: v for k, v in t['mapping'].items() if k != 'id'}
            mapping.update(instance_uuid=new, created_at=created)
            api['mappings'].append(mapping)
            spec = {k: _swap(v, old, new) for k, v in t['spec'].items()
                    if k != 'id'}
            spec.update(created_at=created)
            api['specs'].append(spec)
            consumer = {k: v for k, v in t['consumer'].items() if k != 'id'}
            consumer.update(uuid=new, created_at=created,
                            updated_at=created)
            placement['consumers'].append(consumer)
            for alloc in t['allocations']:
                row = {k: v for k, v in alloc.items() if k != 'id'}
                row.update(consumer_id=new, resource_provider_id=rp_id,
                           created_at=created, updated_at=created)
                placement['allocations'].append(row)
        for cell in cell_names:
            url = dbs.cells[cell].database_connection
            self._insert(url, cell_models.Instance,
                         cells_rows[cell]['instances'])
            self._insert(url, cell_models.InstanceAction,
                         cells_rows[cell]['actions'])
        self._insert(dbs.api_connection, api_models.InstanceMapping,
                     api['mappings'])
        self._insert(dbs.api_connection, api_models.RequestSpec,
                     api['specs'])
        self._insert(placement_url, placement_models.Consumer,
                     placement['consumers'])
        self._insert(placement_url, placement_models.Allocation,
                     placement['allocations'])


def _nodes(cloud, cell, host):
    """[(host, node, compute id, provider id)] of the compute ``host``."""
    url = cloud.dbs.cells[cell].database_connection
    nodes = _rows(url, cell_models.ComputeNode, cell_models.ComputeNode.host,
                  [host])
    by_uuid = {n['uuid']: n for n in nodes}
    providers = _rows(cloud.placement.url, placement_models.ResourceProvider,
                      placement_models.ResourceProvider.uuid, list(by_uuid))
    return sorted((host, by_uuid[p['uuid']]['hypervisor_hostname'],
                   by_uuid[p['uuid']]['id'], p['id']) for p in providers)


def _walk(api, url, key):
    """Every page from ``url`` on: (pages, items)."""
    pages, items = 0, 0
    while url:
        response = api.get(url)
        assert response.status == 200, response
        pages += 1
        items += len(response.body[key])
        url = None
        for link in response.body.get('%s_links' % key) or []:
            if link['rel'] == 'next':
                parts = parse.urlsplit(link['href'])
                path = parts.path
                if path.startswith('/v2.1'):
                    path = path[len('/v2.1'):]
                url = '%s?%s' % (path, parts.query)
    return pages, items


def _ok(response):
    assert response.status == 200, response
    return response.body


def _load():
    with open('/proc/loadavg') as f:
        return float(f.read().split()[0])


def measure(servers, nodes):
    rows = []
    with fixtures.MonkeyPatch(
            'nova_lite.testing.fixtures.DatabaseFixture._url', _mysql_urls) \
            if db_fixtures.bench_database() == 'mysql' \
            else fixtures.MonkeyPatch('os.environ', os.environ):
        cloud = integrated.IntegratedFixture(
            cells=('cell1', 'cell2'),
            flags={'image_catalog': {'default_image_properties': {}},
                   'fake_driver': {'nodes': str(nodes), 'vcpus': 1024,
                                   'memory_mb': 1024 * 1024 * 4,
                                   'disk_gb': 100000},
                   'DEFAULT': {'service_down_time': 86400},
                   'quota': {'instances': -1, 'cores': -1, 'ram': -1}})
        cloud.setUp()
        try:
            rows = _measure(cloud, servers, nodes)
        finally:
            cloud.cleanUp()
    return rows


def _boot(cloud, name):
    server = cloud.create_server(name=name)
    cloud.wait_for_builds()
    return cloud.wait_for_server(server['id'], 'ACTIVE')


def _set_status(cloud, hosts, status):
    admin = cloud.admin_api
    for service in _ok(admin.get('/os-services?binary=nova-lite-compute'))[
            'services']:
        if service['host'] in hosts:
            response = admin.put('/os-services/%s' % service['id'],
                                 {'status': status})
            assert response.status == 200, response


def _measure(cloud, servers, nodes):
    t0 = time.perf_counter()
    hosts = {'cell1': 'scale-c1', 'cell2': 'scale-c2'}
    for cell, host in hosts.items():
        cloud.start_compute(host, cell=cell)
    started_s = time.perf_counter() - t0
    seeds = {}
    for cell, host in hosts.items():
        # NOTE(bench): the other computes disabled, so each cell gets
        # its seeds (the weighers would stack them on one host).
        others = [h for h in hosts.values() if h != host]
        _set_status(cloud, others, 'disabled')
        for i in range(SEED // len(hosts)):
            server = _boot(cloud, 'seed-%s-%d' % (cell, i))
            seeds[server['id']] = cell
        _set_status(cloud, others, 'enabled')
    t1 = time.perf_counter()
    seeder = Seeder(cloud, seeds, {
        cell: _nodes(cloud, cell, host) for cell, host in hosts.items()})
    seeder.seed(servers)
    seed_s = time.perf_counter() - t1
    counter = _Counter()
    out = [{'what': 'setup', 'servers': servers,
            'nodes': nodes * len(hosts), 'computes_start_s':
            round(started_s, 1), 'bulk_insert_s': round(seed_s, 1),
            'load_before': _load()}]
    try:
        out.extend(_reads(cloud, counter, hosts))
    finally:
        counter.close()
    out.append({'what': 'end', 'load_after': _load()})
    return out


def _reads(cloud, counter, hosts):
    api, admin = cloud.api, cloud.admin_api
    out = []

    def one(what, func, check=None):
        row, result = counter.measure(what, func)
        if check is not None:
            row.update(check(result))
        out.append(row)
        return result

    def page(api_, url):
        return lambda: _ok(api_.get(url))['servers']

    first = one('servers/detail?limit=1000 (member)',
                page(api, '/servers/detail?limit=%d' % PAGE),
                lambda r: {'listed': len(r)})
    marker = first[-1]['id']
    one('servers/detail?limit=1000&marker= (member, page 2)',
        page(api, '/servers/detail?limit=%d&marker=%s' % (PAGE, marker)),
        lambda r: {'listed': len(r)})
    one('servers/detail?all_tenants=1&limit=1000 (admin)',
        page(admin, '/servers/detail?all_tenants=1&limit=%d' % PAGE),
        lambda r: {'listed': len(r)})
    one('servers/detail?sort_key=display_name&limit=1000',
        page(api, '/servers/detail?sort_key=display_name&sort_dir=asc'
                  '&limit=%d' % PAGE),
        lambda r: {'listed': len(r)})
    one('servers?all_tenants=1, every page',
        lambda: _walk(admin, '/servers?all_tenants=1&limit=%d' % PAGE,
                      'servers'),
        lambda r: {'pages': r[0], 'listed': r[1]})
    from nova_lite.api import quota
    ctx = nl_context.RequestContext(user_id='demo',
                                    project_id=MEMBER_PROJECT)
    one('quota server_usage (a boot\'s count)',
        lambda: quota.server_usage(ctx, MEMBER_PROJECT),
        lambda r: {'instances': r['instances']})
    one('boot one server, POST to ACTIVE',
        lambda: _boot(cloud, 'one-more'))
    one('placement GET /usages?project_id',
        lambda: cloud.placement.client.request(
            'GET', '/usages?project_id=%s' % MEMBER_PROJECT),
        lambda r: {'usages': r.get('usages')})
    one('os-hypervisors/detail, every page',
        lambda: _walk(admin, '/os-hypervisors/detail', 'hypervisors'),
        lambda r: {'pages': r[0], 'listed': r[1]})
    start = (_now() - datetime.timedelta(days=2)).isoformat()
    end = (_now() + datetime.timedelta(days=1)).isoformat()
    one('os-simple-tenant-usage?detailed=1 (first page)',
        lambda: _ok(admin.get('/os-simple-tenant-usage?detailed=1&start=%s'
                              '&end=%s' % (start, end))),
        lambda r: {'listed': sum(len(u.get('server_usages', ()))
                                 for u in r['tenant_usages'])})
    one('os-simple-tenant-usage/{project} (first page)',
        lambda: _ok(admin.get('/os-simple-tenant-usage/%s?start=%s&end=%s'
                              % (MEMBER_PROJECT, start, end))),
        lambda r: {'listed': len(r['tenant_usage'].get(
            'server_usages', ()))})
    host = hosts['cell1']
    one('resource tracker periodic of %s' % host,
        lambda: cloud.computes[host].manager.update_available_resource(
            nl_context.get_admin_context()))
    one('dashboard capacity snapshot',
        lambda: _dashboard(cloud))
    return out


def _dashboard(cloud):
    from nova_lite.dashboard import data
    return data.build(nl_context.get_admin_context(),
                      cloud.placement.client)


def run(args):
    env = os.environ.get
    if args.quick:
        servers, nodes = 5000, 50
    else:
        servers = int(env('NOVA_LITE_BENCH_SERVERS', '100000'))
        nodes = int(env('NOVA_LITE_BENCH_NODES', '250'))
    return {'rows': measure(servers, nodes)}


if __name__ == '__main__':
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument('--quick', action='store_true')
    import json
    print(json.dumps(run(parser.parse_args()), indent=1, default=str))
