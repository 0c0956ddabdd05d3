"""Request prefilters: narrow the placement query before asking placement.

Each prefilter is a function ``f(spec, query, aggregates)`` that may add
to the :class:`~nova_lite.scheduler.placement_query.PlacementQuery` and
returns True when it did. ``aggregates`` is any iterable of
:class:`~nova_lite.scheduler.host_state.Aggregate` (the host manager's
cache of the API database's host aggregates); a host aggregate and its
placement aggregate share the uuid, as in Nova. They run in the order of
:data:`ALL_REQUEST_FILTERS`:

- ``require_tenant_aggregate`` (``[scheduler] limit_tenants_to_placement_
  aggregate``): a project named in aggregates' ``filter_tenant_id*``
  metadata only gets hosts of those aggregates;
- ``map_az_to_placement_aggregate`` (always): a requested availability zone
  becomes ``member_of`` the aggregates of that zone;
- ``require_image_type_support`` (``[scheduler] query_placement_for_image_
  type_support``): root provider must have ``COMPUTE_IMAGE_TYPE_<FORMAT>``;
- ``compute_status_filter`` (always): root provider must not have
  ``COMPUTE_STATUS_DISABLED``.

A prefilter that finds the request cannot be satisfied raises
:class:`RequestFilterFailed`, which ends in NoValidHost.
"""

import os_traits
from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite import exception

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

TENANT_KEY_PREFIX = 'filter_tenant_id'


class RequestFilterFailed(exception.NovaLiteException):
    msg_fmt = 'Scheduling prefilter %(name)s: %(reason)s'
    code = 400


def _metadata_values(aggregate, key):
    return {v.strip() for v in str(aggregate.metadata.get(key, '')).split(',')
            if v.strip()}


def _tenant_aggregates(aggregates, project_id):
    found = []
    for agg in aggregates:
        for key in agg.metadata:
            if (key.startswith(TENANT_KEY_PREFIX) and
                    project_id in _metadata_values(agg, key)):
                found.append(agg.uuid)
                break
    return found


def require_tenant_aggregate(spec, query, aggregates):
    """Keep a project on the aggregates dedicated to it."""
    if not CONF.scheduler.limit_tenants_to_placement_aggregate:
        return False
    uuids = _tenant_aggregates(aggregates, spec.project_id)
    if uuids:
        query.add_member_of(uuids)
        LOG.debug('Project %s limited to aggregates %s', spec.project_id,
                  uuids)
        return True
    if CONF.scheduler.placement_aggregate_required_for_tenants:
        raise RequestFilterFailed(
            name='require_tenant_aggregate',
            reason='no host aggregate is dedicated to project %s' %
            spec.project_id)
    return False


def map_az_to_placement_aggregate(spec, query, aggregates):
    """A requested availability zone becomes ``member_of`` its aggregates.

    A zone with no aggregate (the default zone) adds nothing; the
    AvailabilityZoneFilter then checks each host.
    """
    zone = spec.availability_zone
    if not zone:
        return False
    uuids = [agg.uuid for agg in aggregates
             if agg.metadata.get('availability_zone') == zone]
    if not uuids:
        return False
    query.add_member_of(uuids)
    LOG.debug('Availability zone %s mapped to aggregates %s', zone, uuids)
    return True


def require_image_type_support(spec, query, aggregates):
    """Ask for computes that can use the image's disk format."""
    if not CONF.scheduler.query_placement_for_image_type_support:
        return False
    disk_format = spec.image.disk_format
    if not disk_format:
        return False
    trait = 'COMPUTE_IMAGE_TYPE_%s' % str(disk_format).upper()
    if not hasattr(os_traits, trait):
        LOG.warning('No trait for image disk format %s; not filtering on '
                    'image type', disk_format)
        return False
    query.root_required.add(trait)
    return True


def compute_status_filter(spec, query, aggregates):
    """Leave out computes marked disabled in placement."""
    query.root_forbidden.add(os_traits.COMPUTE_STATUS_DISABLED)
    return True


ALL_REQUEST_FILTERS = (
    require_tenant_aggregate,
    map_az_to_placement_aggregate,
    require_image_type_support,
    compute_status_filter,
)


def process_reqspec(spec, query, aggregates=()):
    """Run every prefilter; return the names of those that changed query.

    :raises RequestFilterFailed: the request cannot be satisfied.
    """
    aggregates = list(aggregates)
    applied = []
    for prefilter in ALL_REQUEST_FILTERS:
        if prefilter(spec, query, aggregates):
            applied.append(prefilter.__name__)
    LOG.debug('Request prefilters applied: %s', ', '.join(applied))
    return applied
