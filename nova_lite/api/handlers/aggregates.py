"""os-aggregates (admins): host aggregates and availability zones.

Aggregates live in the API DB; an ``availability_zone`` metadata key makes
one a zone. A host may be in several aggregates but in one zone only; as
in Nova, a zone of any name (``internal`` too) may be set or changed,
never emptied.
Membership is mirrored into placement: every compute node provider of a
host carries the uuids of the host's aggregates, so placement queries
with ``member_of`` (zones, tenant isolation) find them. A failure to
mirror is logged and does not fail the request, as in Nova.
"""

from oslo_log import log as logging
import webob.exc

from nova_lite import cells
from nova_lite.api import host_info
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api.schemas import aggregates as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.clients import placement as placement_client
from nova_lite import exception
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.objects import compute_node as compute_node_obj

LOG = logging.getLogger(__name__)
AZ_KEY = aggregate_obj.AZ_KEY
_MIRROR_ATTEMPTS = 4


def view(req, aggregate):
    metadata = aggregate.metadata
    item = {'id': aggregate.id, 'name': aggregate.name,
            'availability_zone': metadata.get(AZ_KEY),
            'hosts': aggregate.hosts, 'metadata': metadata,
            'created_at': util.isotime_micro(aggregate.created_at),
            'updated_at': util.isotime_micro(aggregate.updated_at),
            'deleted': False, 'deleted_at': None}
    if microversion.at_least(req, '2.41'):
        item['uuid'] = aggregate.uuid
    return item


def _respond(req, aggregate):
    return util.json_response({'aggregate': view(req, aggregate)})


def _get(context, aggregate_id):
    """The aggregate of an integer id: 400 if not an integer, 404 if no
    aggregate has it (a negative id included, as Nova)."""
    try:
        number = int(str(aggregate_id).strip())
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid input received: id must be an integer.')
    if not 0 < number <= util.DB_INT_MAX:
        raise webob.exc.HTTPNotFound(
            'Aggregate %s could not be found.' % aggregate_id)
    return aggregate_obj.Aggregate.get(context, number)


def list_aggregates(req):
    """GET /os-aggregates."""
    context = util.context(req)
    policy.authorize(context, 'os-aggregates:index')
    return util.json_response({'aggregates': [
        view(req, a) for a in aggregate_obj.Aggregate.get_all(context)]})


def create_aggregate(req):
    """POST /os-aggregates: 200 with the aggregate."""
    context = util.context(req)
    policy.authorize(context, 'os-aggregates:create')
    data = validation.body(req, schema.CREATE)['aggregate']
    zone = data.get('availability_zone')
    metadata = {}
    if zone:
        metadata[AZ_KEY] = zone
    aggregate = aggregate_obj.Aggregate.create(context, data['name'],
                                               metadata)
    LOG.info('Aggregate %s (%s) created', aggregate.name, aggregate.uuid)
    # Nova's create answer has neither hosts nor metadata.
    item = view(req, aggregate)
    del item['hosts'], item['metadata']
    return util.json_response({'aggregate': item})


def show_aggregate(req):
    """GET /os-aggregates/{aggregate_id}."""
    context = util.context(req)
    policy.authorize(context, 'os-aggregates:show')
    return _respond(req, _get(context, req.urlvars['aggregate_id']))


# What Nova's messages call an update and a set_metadata.
_UPDATE = 'Cannot update aggregate %s'
_UPDATE_META = 'Cannot update metadata of aggregate %s'


def _check_zone_change(context, aggregate, zone, action=_UPDATE):
    """400 as Nova's: an empty zone (None too: a zone is never unset
    here), or a host of ``aggregate`` in another zone already. Any name
    is accepted, ``internal`` included, as in Nova."""
    if not zone:
        raise webob.exc.HTTPBadRequest(
            '%s. Reason: Aggregate %s does not support empty named '
            'availability zone.' % (action % aggregate.id, aggregate.name))
    conflicting = sorted({
        other.metadata[AZ_KEY] for host in aggregate.hosts
        for other in aggregate_obj.Aggregate.get_by_host(context, host,
                                                         key=AZ_KEY)
        if other.id != aggregate.id and other.metadata[AZ_KEY] != zone})
    if conflicting:
        raise webob.exc.HTTPBadRequest(
            '%s. Reason: One or more hosts already in availability zone(s) '
            '%s.' % (action % aggregate.id, conflicting))


def update_aggregate(req):
    """PUT /os-aggregates/{aggregate_id}: name and/or zone."""
    context = util.context(req)
    policy.authorize(context, 'os-aggregates:update')
    data = validation.body(req, schema.UPDATE)['aggregate']
    aggregate = _get(context, req.urlvars['aggregate_id'])
    if 'availability_zone' in data:
        _check_zone_change(context, aggregate, data['availability_zone'])
        aggregate.update_metadata({AZ_KEY: data['availability_zone']},
                                  action='update_prop')
    if 'name' in data:
        aggregate.update_name(data['name'])
    return _respond(req, aggregate_obj.Aggregate.get(context, aggregate.id))


def delete_aggregate(req):
    """DELETE /os-aggregates/{aggregate_id}: 200; refused with hosts."""
    context = util.context(req)
    policy.authorize(context, 'os-aggregates:delete')
    aggregate = _get(context, req.urlvars['aggregate_id'])
    if aggregate.hosts:
        raise webob.exc.HTTPBadRequest(
            'Cannot delete aggregate %s: it still has hosts %s.'
            % (aggregate.id, ', '.join(aggregate.hosts)))
    aggregate.destroy()
    return util.no_content(200)


# -- actions -----------------------------------------------------------------

def _compute_entry(context, host):
    entry = host_info.compute_services_by_host(context).get(host)
    if entry is None:
        raise exception.ComputeHostNotFound(host=host)
    return entry


def _host_providers(context, entry):
    cell = next(c for c in cells.get_cells(context)
                if c.uuid == entry.cell_uuid)
    with cells.target_cell(context, cell) as cctxt:
        nodes = compute_node_obj.ComputeNodeList.get_all_by_host(
            cctxt, entry.item.host)
    return [node.uuid for node in nodes]


def _mirror_one(placement, provider_uuid, aggregate_uuid, add):
    for _attempt in range(_MIRROR_ATTEMPTS):
        current = placement.get_aggregates(provider_uuid)
        wanted = set(current['aggregates'])
        if add:
            wanted.add(aggregate_uuid)
        else:
            wanted.discard(aggregate_uuid)
        if wanted == set(current['aggregates']):
            return
        try:
            placement.set_aggregates(
                provider_uuid, current['resource_provider_generation'],
                sorted(wanted))
            return
        except placement_client.PlacementConflict as exc:
            if not exc.is_generation_conflict():
                raise


def _mirror(req, context, entry, aggregate, add):
    placement = util.placement(req)
    if placement is None:
        return
    for provider_uuid in _host_providers(context, entry):
        try:
            _mirror_one(placement, provider_uuid, aggregate.uuid, add)
        except Exception as exc:  # noqa: BLE001 - logged, as in Nova
            LOG.warning('Could not %s aggregate %s %s provider %s in '
                        'placement: %s', 'add' if add else 'remove',
                        aggregate.uuid, 'to' if add else 'from',
                        provider_uuid, exc)


def _add_host(req, context, aggregate, host):
    entry = _compute_entry(context, host)
    zone = aggregate.metadata.get(AZ_KEY)
    if zone:
        for other in aggregate_obj.Aggregate.get_by_host(context, host,
                                                         key=AZ_KEY):
            if other.metadata[AZ_KEY] != zone:
                raise webob.exc.HTTPConflict(
                    'Cannot add host %s to aggregate %s: the host is in '
                    'availability zone %s already.' % (
                        host, aggregate.id, other.metadata[AZ_KEY]))
    aggregate.add_host(host)
    _mirror(req, context, entry, aggregate, add=True)
    LOG.info('Host %s added to aggregate %s', host, aggregate.uuid)


def _remove_host(req, context, aggregate, host):
    if host not in aggregate.hosts:
        raise exception.AggregateHostNotFound(aggregate_id=aggregate.id,
                                              host=host)
    aggregate.delete_host(host)
    entry = host_info.compute_services_by_host(context).get(host)
    if entry is not None:
        _mirror(req, context, entry, aggregate, add=False)
    LOG.info('Host %s removed from aggregate %s', host, aggregate.uuid)


def _set_metadata(context, aggregate, metadata):
    if AZ_KEY in metadata:
        _check_zone_change(context, aggregate, metadata[AZ_KEY],
                           _UPDATE_META)
    aggregate.update_metadata(metadata)


def aggregate_action(req):
    """POST /os-aggregates/{aggregate_id}/action: add_host, remove_host,
    set_metadata; 200 with the aggregate."""
    context = util.context(req)
    data = validation.body(req, schema.ACTION)
    action, args = next(iter(data.items()))
    policy.authorize(context, 'os-aggregates:%s' % action)
    aggregate = _get(context, req.urlvars['aggregate_id'])
    if action == 'add_host':
        _add_host(req, context, aggregate, args['host'])
    elif action == 'remove_host':
        _remove_host(req, context, aggregate, args['host'])
    else:
        _set_metadata(context, aggregate, args['metadata'])
    return _respond(req, aggregate_obj.Aggregate.get(context, aggregate.id))
