"""The simulated cloud: real placement in this process, the snapshot's
hosts in the scheduler's host manager.

Placement is nova_lite's own WSGI application on a SQLite file, reached
without sockets (as :mod:`nova_lite.testing.placement_fixture` runs it for
the functional tests), seeded from the snapshot through its public API:
providers parents first, inventories, traits, aggregates, and the
snapshot's usages as one allocation per provider tree (project
``sim-existing``: the servers that were there before the trace).
Seeding is paid once per snapshot: each configuration's run starts from a
copy of the seeded database file.

The scheduler reads compute nodes, services and instances from cell
databases; here :class:`SimHostManager` serves them from memory instead,
as one cell whose cached host states were built from the snapshot
(sizes, usage and allocation ratios from the inventories, the host name
and status from the hypervisors). The scheduler's own caching code keeps
them current between requests (a pick is consumed in the cache, as in a
real cloud until the compute reports); the replay adds each placed
server to its host and gives a deleted server's resources back.
"""

import os
import shutil
import types
import uuid

from oslo_utils import timeutils

from nova_lite.clients import placement as placement_client
from nova_lite.placement.db import api as placement_db
from nova_lite.placement.db import migration
from nova_lite.placement import deploy
from nova_lite.placement import policy
from nova_lite.scheduler import host_manager as hm
from nova_lite.scheduler import host_state as hs
from nova_lite.sim import snapshot

CELL_UUID = '5e4f0000-0000-4000-8000-000000000001'
EXISTING_PROJECT = 'sim-existing'
_INVENTORY_KEYS = ('total', 'reserved', 'min_unit', 'max_unit',
                   'step_size', 'allocation_ratio')
_NS = uuid.UUID('5e4f0000-0000-4000-8000-000000000000')


def server_uuid(trace_id):
    """The instance uuid of the trace's server ``trace_id`` (stable)."""
    return str(uuid.uuid5(_NS, 'server:' + trace_id))


def start_placement(conf, db_path):
    """A client of placement serving the SQLite file ``db_path``
    (created and migrated when missing). ``conf`` gets the overrides."""
    url = 'sqlite:///' + db_path
    conf.set_override('connection', url, group='placement_database')
    conf.set_override('auth_strategy', 'noauth2', group='placement_api')
    placement_db.reset()
    policy.reset()
    migration.db_sync(url)
    client = placement_client.in_process_client(deploy.deploy(conf),
                                                conf=conf)
    client.session.headers['X-Auth-Token'] = 'admin'
    return client


def stop_placement(conf):
    placement_db.reset()
    policy.reset()
    conf.clear_override('connection', group='placement_database')
    conf.clear_override('auth_strategy', group='placement_api')


def copy_database(src, dst):
    shutil.copyfile(src, dst)
    return dst


def seed_placement(client, doc):
    """Write the snapshot's providers and usages; returns the number of
    provider trees whose usages placement refused (over capacity)."""
    custom_rcs = {rc for p in doc['providers'] for rc in p['inventories']
                  if rc.startswith('CUSTOM_')}
    for rc in sorted(custom_rcs):
        client.ensure_resource_class(rc)
    custom_traits = {t for p in doc['providers'] for t in p['traits']
                     if t.startswith('CUSTOM_')}
    for trait in sorted(custom_traits):
        client.ensure_trait(trait)
    for prov in snapshot.ordered_providers(doc):
        _seed_provider(client, prov)
    return _seed_usages(client, doc)


def _seed_provider(client, prov):
    gen = client.create_provider(prov['name'], uuid=prov['uuid'],
                                 parent_provider_uuid=prov[
                                     'parent_provider_uuid'])['generation']
    if prov['inventories']:
        gen = client.set_inventories(prov['uuid'], gen, {
            rc: {k: inv[k] for k in _INVENTORY_KEYS if k in inv}
            for rc, inv in prov['inventories'].items()})[
                'resource_provider_generation']
    if prov['traits']:
        gen = client.set_traits(prov['uuid'], gen, prov['traits'])[
            'resource_provider_generation']
    if prov['aggregates']:
        client.set_aggregates(prov['uuid'], gen, prov['aggregates'])


def _seed_usages(client, doc):
    trees = {}
    for prov in doc['providers']:
        if prov['usages']:
            trees.setdefault(prov['root_provider_uuid'], {})[
                prov['uuid']] = {'resources': prov['usages']}
    refused = 0
    for root, allocations in sorted(trees.items()):
        try:
            client.put_allocations(str(uuid.uuid5(_NS, 'existing:' + root)),
                                   allocations, EXISTING_PROJECT,
                                   EXISTING_PROJECT)
        except placement_client.PlacementError:
            refused += 1
    return refused


def _node_row(prov, host, hyp):
    invs, used = prov['inventories'], prov['usages']

    def total(rc):
        return invs.get(rc, {}).get('total', 0)

    def ratio(rc):
        return invs.get(rc, {}).get('allocation_ratio')

    memory_used = used.get('MEMORY_MB', 0) + invs.get(
        'MEMORY_MB', {}).get('reserved', 0)
    disk_used = used.get('DISK_GB', 0) + invs.get('DISK_GB', {}).get(
        'reserved', 0)
    return {
        'uuid': prov['uuid'], 'host': host,
        'hypervisor_hostname': prov['name'],
        'vcpus': total('VCPU'), 'vcpus_used': used.get('VCPU', 0),
        'memory_mb': total('MEMORY_MB'), 'memory_mb_used': memory_used,
        'free_ram_mb': total('MEMORY_MB') - memory_used,
        'local_gb': total('DISK_GB'), 'local_gb_used': disk_used,
        'free_disk_gb': total('DISK_GB') - disk_used,
        'disk_available_least': None,
        'hypervisor_type': (hyp or {}).get('hypervisor_type', 'fake'),
        'hypervisor_version': (hyp or {}).get('hypervisor_version', 1000),
        'cpu_info': '{}', 'cpu_allocation_ratio': ratio('VCPU'),
        'ram_allocation_ratio': ratio('MEMORY_MB'),
        'disk_allocation_ratio': ratio('DISK_GB'), 'failed_builds': 0,
        'stats': {'supported_instances': (hyp or {}).get(
            'supported_instances') or []},
        'updated_at': None, 'created_at': None}


class SimHostManager(hm.HostManager):
    """The host manager of one in-memory cell built from a snapshot.

    :meth:`refresh` reads nothing (the cache is the state); everything
    else - fresh host states per request, picks consumed in the cache,
    aggregates per host - is :class:`~nova_lite.scheduler.host_manager.
    HostManager`'s own.
    """

    def __init__(self, doc):
        super().__init__(max_workers=1)
        mapping = types.SimpleNamespace(uuid=CELL_UUID, name='sim',
                                        database_connection=None)
        self.cell = hm.CellHosts(mapping)
        self._cells = {CELL_UUID: self.cell}
        hyps = {h['hypervisor_hostname']: h for h in doc['hypervisors']}
        now = timeutils.utcnow(with_timezone=True)
        self.hosts = {}  # provider uuid -> host name
        for prov, host in snapshot.hosts(doc):
            hyp = hyps.get(prov['name'])
            template = hs.HostState.from_compute_node(
                _node_row(prov, host, hyp), cell_uuid=CELL_UUID)
            self.cell.templates[prov['uuid']] = template
            self.hosts[prov['uuid']] = host
            self.cell.services.setdefault(host, {
                'id': len(self.cell.services) + 1, 'host': host,
                'binary': 'nova-lite-compute',
                'disabled': bool(hyp and hyp['status'] == 'disabled'),
                'disabled_reason': None,
                'forced_down': bool(hyp and hyp['state'] == 'down'),
                'last_seen_up': now, 'created_at': now, 'updated_at': now})
        self._set_aggregates(doc['aggregates'])

    def _set_aggregates(self, aggregates):
        self.aggregates = [
            hs.Aggregate(id=index + 1, uuid=agg['uuid'], name=agg['name'],
                         hosts=agg['hosts'], metadata=agg['metadata'])
            for index, agg in enumerate(aggregates)]
        self._host_aggregates = {}
        for agg in self.aggregates:
            for host in agg.hosts:
                self._host_aggregates.setdefault(host, []).append(agg)

    def refresh(self, context, cell_uuids=None):
        return [self.cell]

    def refresh_aggregates(self, context):
        """Nothing to read: the snapshot's aggregates are set once."""

    def placed(self, node_uuid, instance_uuid, project_id):
        """The server is on its host (filters see it; its build, done
        at once in simulated time, no longer counts as an I/O op)."""
        template = self.cell.templates[node_uuid]
        template.num_io_ops = max(0, template.num_io_ops - 1)
        self.cell.instance_hosts[instance_uuid] = template.host
        self.cell.by_host.setdefault(template.host, {})[instance_uuid] = \
            hs.InstanceInfo(instance_uuid, project_id)

    def removed(self, node_uuid, instance_uuid, flavor):
        """A deleted server's resources go back to its node."""
        template = self.cell.templates[node_uuid]
        disk_mb = (flavor.root_gb + flavor.ephemeral_gb) * 1024 + \
            flavor.swap
        template.free_ram_mb += flavor.memory_mb
        template.free_disk_mb += disk_mb
        template.disk_mb_used -= disk_mb
        template.vcpus_used -= flavor.vcpus
        template.num_instances = max(0, template.num_instances - 1)
        self.cell.instance_hosts.pop(instance_uuid, None)
        self.cell.by_host.get(template.host, {}).pop(instance_uuid, None)


def database_path(workdir, name):
    return os.path.join(workdir, '%s.sqlite' % name)
