"""Light reads of a cell for the capacity dashboard: a few columns of
every compute node and live instance, as tuples (building full objects
for 10,000 rows costs seconds)."""

import sqlalchemy as sa

from nova_lite.db.cell import api as cell_api
from nova_lite.db.cell import models
from nova_lite.db import session

_reader = cell_api._reader


@session.retry_on_transient
def node_rows(context):
    """``[(uuid, host, hypervisor_hostname)]`` of the live nodes."""
    node = models.ComputeNode
    with _reader(context) as s:
        return [tuple(r) for r in s.execute(sa.select(
            node.uuid, node.host, node.hypervisor_hostname).where(
            node.deleted == 0))]


@session.retry_on_transient
def instance_rows(context):
    """``[(uuid, display_name, project_id, vm_state, node)]`` of the live
    instances that are on a node."""
    inst = models.Instance
    with _reader(context) as s:
        return [tuple(r) for r in s.execute(sa.select(
            inst.uuid, inst.display_name, inst.project_id, inst.vm_state,
            inst.node).where(inst.deleted == 0, inst.node.is_not(None)))]


@session.retry_on_transient
def cell_rows(context, binary):
    """``(services, nodes, instances)`` of the cell in one session: the
    ``binary`` services as dicts (host, disabled, disabled_reason,
    forced_down, last_seen_up, created_at: what liveness needs), and the
    tuples of :func:`node_rows` and :func:`instance_rows`."""
    svc = models.Service
    node = models.ComputeNode
    inst = models.Instance
    with _reader(context) as s:
        services = [
            {'host': host, 'disabled': disabled,
             'disabled_reason': reason, 'forced_down': forced,
             'last_seen_up': seen, 'created_at': created}
            for host, disabled, reason, forced, seen, created
            in s.execute(sa.select(
                svc.host, svc.disabled, svc.disabled_reason,
                svc.forced_down, svc.last_seen_up, svc.created_at)
                .where(svc.binary == binary)).all()]
        nodes = [tuple(r) for r in s.execute(sa.select(
            node.uuid, node.host, node.hypervisor_hostname).where(
            node.deleted == 0)).all()]
        instances = [tuple(r) for r in s.execute(sa.select(
            inst.uuid, inst.display_name, inst.project_id, inst.vm_state,
            inst.node).where(inst.deleted == 0,
                             inst.node.is_not(None))).all()]
    return services, nodes, instances
