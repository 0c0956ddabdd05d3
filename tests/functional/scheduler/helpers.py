"""Test helpers: compute nodes, services and instances in cell DBs, and
their resource providers in placement, without a compute service.

``add_compute`` does what a compute's first periodic update and host
discovery would: a ``services`` row (the heartbeat is "now"), the
``compute_nodes`` rows, the host mapping, and - given a placement client -
one root provider per node (uuid = node uuid) with VCPU/MEMORY_MB/DISK_GB
inventory, traits, aggregates and optional nested children.
"""

import uuid

from oslo_utils import timeutils

from nova_lite import context as nl_context
from nova_lite.db.api import aggregate_api
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from nova_lite.db import session as db_session

COMPUTE_BINARY = 'nova-lite-compute'


def cell_context(cell):
    """An admin context on ``cell``'s database (a testing.Cell)."""
    ctxt = nl_context.get_admin_context()
    ctxt.cell_uuid = cell.uuid
    ctxt.db_connection = db_session.get_cell_context_manager(
        cell.database_connection)
    return ctxt


def _inventory(total, ratio=1.0, reserved=0):
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': ratio}


def add_provider(client, rp_uuid, name, resources, traits=(),
                 parent=None, aggregates=()):
    """A provider with inventory ``{rc: total}``, traits and aggregates."""
    rp = client.create_provider(name, uuid=rp_uuid,
                                parent_provider_uuid=parent)
    generation = rp['generation'] if rp else client.get_provider(
        rp_uuid)['generation']
    for rc in resources:
        if rc.startswith('CUSTOM_'):
            client.ensure_resource_class(rc)
    answer = client.set_inventories(
        rp_uuid, generation,
        {rc: _inventory(total) for rc, total in resources.items()})
    generation = answer['resource_provider_generation']
    if traits:
        for trait in traits:
            if trait.startswith('CUSTOM_'):
                client.ensure_trait(trait)
        answer = client.set_traits(rp_uuid, generation, traits)
        generation = answer['resource_provider_generation']
    if aggregates:
        client.set_aggregates(rp_uuid, generation, aggregates)
    return rp_uuid


def add_compute(dbs, cell_name, host, nodes=1, vcpus=8, memory_mb=16384,
                disk_gb=200, placement=None, traits=(), aggregates=(),
                vgpus=0, disabled=False, last_seen_up='now', stats=None):
    """A compute host with ``nodes`` nodes in cell ``cell_name``.

    :param dbs: the testing.DatabaseFixture.
    :param placement: a PlacementClient: also create the providers.
    :param vgpus: a nested child provider with this many VGPU per node.
    :returns: the node uuids.
    """
    cell = dbs.cells[cell_name]
    ctxt = cell_context(cell)
    seen = timeutils.utcnow().replace(tzinfo=None) \
        if last_seen_up == 'now' else last_seen_up
    service = cell_db.service_create(ctxt, {
        'host': host, 'binary': COMPUTE_BINARY, 'topic': 'compute',
        'disabled': disabled, 'last_seen_up': seen})
    dbs.map_host(host, cell_name)
    uuids = []
    for index in range(nodes):
        node_uuid = str(uuid.uuid4())
        nodename = host if nodes == 1 else '%s-node-%d' % (host, index)
        cell_db.compute_node_create(ctxt, {
            'uuid': node_uuid, 'host': host, 'service_id': service.id,
            'hypervisor_hostname': nodename, 'vcpus': vcpus,
            'memory_mb': memory_mb, 'local_gb': disk_gb,
            'free_ram_mb': memory_mb, 'free_disk_gb': disk_gb,
            'hypervisor_type': 'fake', 'hypervisor_version': 1000,
            'cpu_info': '{}', 'mapped': 1, 'stats': stats or {}})
        if placement is not None:
            add_provider(placement, node_uuid, nodename,
                         {'VCPU': vcpus, 'MEMORY_MB': memory_mb,
                          'DISK_GB': disk_gb}, traits=traits,
                         aggregates=aggregates)
            if vgpus:
                add_provider(placement, str(uuid.uuid4()),
                             '%s-pgpu-0' % nodename, {'VGPU': vgpus},
                             parent=node_uuid)
        uuids.append(node_uuid)
    return uuids


def add_instance(dbs, cell_name, host, node=None, project_id='p1',
                 instance_uuid=None):
    """A running instance on ``host`` (its uuid)."""
    instance = instance_api.instance_create(
        cell_context(dbs.cells[cell_name]),
        {'uuid': instance_uuid or str(uuid.uuid4()), 'host': host,
         'node': node or host, 'project_id': project_id,
         'vm_state': 'active'})
    return instance.uuid


def add_aggregate(name, hosts, metadata=None, agg_uuid=None):
    """A host aggregate in the API DB (its uuid = placement aggregate)."""
    ctxt = nl_context.get_admin_context()
    agg = aggregate_api.aggregate_create(ctxt, name, metadata=metadata,
                                         uuid=agg_uuid)
    for host in hosts:
        aggregate_api.aggregate_host_add(ctxt, agg.id, host)
    return agg.uuid
