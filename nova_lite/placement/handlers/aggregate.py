"""Handlers of /resource_providers/{uuid}/aggregates (1.1+)."""

import webob.exc

from nova_lite.placement import exception
from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import aggregate as agg_obj
from nova_lite.placement.objects import resource_provider as rp_obj
from nova_lite.placement.schemas import misc as schema
from nova_lite.placement import util

POLICY = 'placement:resource_providers:aggregates:%s'


def _serialize(req, generation, aggregates):
    data = {'aggregates': aggregates}
    if microversion.of(req) >= (1, 19):
        data['resource_provider_generation'] = generation
    return data


@microversion.require('1.1')
def get_aggregates(req):
    """GET: 200 with the provider's aggregate uuids."""
    ctx = common.context(req, POLICY % 'list')
    rp, aggregates = agg_obj.get_for_provider(ctx, common.provider_uuid(req))
    return util.json_response(_serialize(req, rp.generation, aggregates),
                              req=req, last_modified=rp.last_modified)


def body_schema(want):
    """The body schema of PUT at version ``want``."""
    return schema.AGGREGATES_SCHEMA_V1_19 if want >= (1, 19) \
        else schema.AGGREGATES_SCHEMA_V1_1


def _body(req):
    """(aggregate uuids, generation or None) of the body."""
    want = microversion.of(req)
    body = util.extract_json(req, body_schema(want))
    if want >= (1, 19):
        return body['aggregates'], body['resource_provider_generation']
    return body, None


@microversion.require('1.1')
def set_aggregates(req):
    """PUT: replace them (generation-checked from 1.19); 200 with them in
    the order sent. An unknown provider is a 404 before a bad body, as in
    Placement: the provider is looked up apart only when the body is bad,
    a good one is written in one transaction that finds it."""
    ctx = common.context(req, POLICY % 'update')
    try:
        uuids, generation = _body(req)
    except webob.exc.HTTPException:
        rp_obj.get_by_uuid(ctx, common.provider_uuid(req))
        raise
    try:
        generation, modified = agg_obj.set_for_provider(
            ctx, common.provider_uuid(req), uuids, generation)
    except exception.ConcurrentUpdateDetected:
        raise util.generation_conflict()
    return util.json_response(_serialize(req, generation, uuids), req=req,
                              last_modified=modified)
