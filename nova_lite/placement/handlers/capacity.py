"""Handler of GET /nova_lite/capacity (a nova_lite extension, not in
Placement's API): every provider's inventories, usages, traits and
aggregates in one answer, for the capacity dashboard of nova-lite-api.
Admins (and services) only."""

from nova_lite.placement.handlers import common
from nova_lite.placement.objects import capacity as capacity_obj
from nova_lite.placement.schemas import misc as schema
from nova_lite.placement import util

# Providers one ?uuids= may name.
MAX_UUIDS = 500


def get_capacity(req):
    """GET /nova_lite/capacity: 200 with ``{"resource_providers": [...]}``
    (uuid, name, generation, parent and root uuid, inventories with
    total, reserved, allocation_ratio and max_unit, usages, traits,
    aggregates). ``?uuids=A,B``: only those providers (unknown ones are
    left out)."""
    ctx = common.context(req, 'placement:nova_lite:capacity')
    params = util.query_params(req, schema.CAPACITY_QUERY)
    uuids = None
    if 'uuids' in params:
        uuids = sorted(set(params['uuids'].split(',')))
        if len(uuids) > MAX_UUIDS:
            raise util.bad_request('At most %d uuids.' % MAX_UUIDS)
    return util.json_response(
        {'resource_providers': capacity_obj.get_all(ctx, uuids)}, req=req)


def get_usages(req):
    """GET /nova_lite/capacity/usages: 200 with ``{"usages": [[uuid,
    generation, {rc: used}], ...]}`` of every provider: what a reader
    holding the capacity answer needs to know what changed (re-reading
    with ``?uuids=`` the providers whose generation moved)."""
    ctx = common.context(req, 'placement:nova_lite:capacity')
    util.query_params(req, schema.EMPTY_QUERY)
    return util.json_response(
        {'usages': capacity_obj.get_usages(ctx)}, req=req)


def get_fingerprint(req):
    """GET /nova_lite/capacity/fingerprint: 200 with ``{"fingerprint":
    text}``, which changes whenever the capacity answer would."""
    ctx = common.context(req, 'placement:nova_lite:capacity')
    util.query_params(req, schema.EMPTY_QUERY)
    return util.json_response(
        {'fingerprint': capacity_obj.fingerprint(ctx)}, req=req)
