"""Handlers of /allocations, /allocations/{consumer_uuid} and
/resource_providers/{uuid}/allocations, in every microversion shape:
a list of {resource_provider, resources} before 1.12, a dict keyed by
provider uuid from 1.12, consumer generations from 1.28, consumer types
from 1.38.
"""

import uuid as uuid_lib

from oslo_utils import uuidutils
import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import allocation as alloc_obj
from nova_lite.placement.objects import consumer as consumer_obj
from nova_lite.placement.schemas import allocation as schema
from nova_lite.placement import util

POLICY = 'placement:allocations:%s'


def put_schema(want):
    for version, value in (((1, 38), schema.PUT_SCHEMA_V1_38),
                           ((1, 34), schema.PUT_SCHEMA_V1_34),
                           ((1, 28), schema.PUT_SCHEMA_V1_28),
                           ((1, 12), schema.PUT_SCHEMA_V1_12),
                           ((1, 8), schema.PUT_SCHEMA_V1_8)):
        if want >= version:
            return value
    return schema.PUT_SCHEMA_V1_0


def post_schema(want):
    if want >= (1, 38):
        return schema.POST_SCHEMA_V1_38
    if want >= (1, 34):
        return schema.POST_SCHEMA_V1_34
    if want >= (1, 28):
        return schema.POST_SCHEMA_V1_28
    return schema.POST_SCHEMA_V1_13


def _normalized_allocations(want, body):
    """{rp uuid: {rc: amount}} from either body shape."""
    if want < (1, 12):
        result = {}
        for item in body['allocations']:
            rp_uuid = item['resource_provider']['uuid']
            if rp_uuid in result:
                raise util.bad_request(
                    'Allocations list a resource provider twice: %s'
                    % rp_uuid)
            result[rp_uuid] = item['resources']
        return result
    return {rp: value['resources']
            for rp, value in body['allocations'].items()}


def _consumer_uuid(value):
    """The consumer uuid in its dashed form (Placement accepts it without
    dashes); 400 when it is not one."""
    util.require_uuid(value, 'consumer_uuid')
    return str(uuid_lib.UUID(value))


def _spec(want, consumer_uuid, body):
    consumer_uuid = _consumer_uuid(consumer_uuid)
    allocations = _normalized_allocations(want, body)
    for rp_uuid in allocations:
        util.require_uuid(rp_uuid, 'resource provider uuid')
    spec = alloc_obj.ConsumerAllocations(
        consumer_uuid=consumer_uuid, allocations=allocations,
        project_id=body.get('project_id', consumer_obj.INCOMPLETE_PROJECT),
        user_id=body.get('user_id', consumer_obj.INCOMPLETE_USER),
        consumer_type=body.get('consumer_type'))
    if want >= (1, 28):
        spec.consumer_generation = body['consumer_generation']
    return spec


def _write(ctx, specs, consumer_uuid=None):
    """Write ``specs``; errors in Placement's statuses and words: an
    unknown provider or class is a 400, a class the provider has no
    inventory of and an amount outside min_unit/max_unit/step_size a 409."""
    try:
        alloc_obj.replace_all(ctx, specs)
    except exception.ResourceProviderNotFound as exc:
        alloc_obj.leave_new_consumers(ctx, specs)
        raise util.bad_request(
            "Allocation for resource provider '%s' that does not exist."
            % exc.kwargs.get('uuid'))
    except exception.ResourceClassNotFound as exc:
        if consumer_uuid is None:
            raise util.bad_request('Unable to allocate inventory %s'
                                   % exc.message)
        raise util.bad_request(
            'Unable to allocate inventory for consumer %s: %s'
            % (consumer_uuid, exc.message))
    except (exception.InvalidInventory,
            exception.AllocationConstraintsViolated) as exc:
        raise webob.exc.HTTPConflict(exc.message, comment=errors.DEFAULT)
    except exception.ConsumerGenerationConflict as exc:
        raise webob.exc.HTTPConflict(exc.message,
                                     comment=errors.CONCURRENT_UPDATE)
    except exception.ConcurrentUpdateDetected as exc:
        raise webob.exc.HTTPConflict(
            'Inventory and/or allocations changed while attempting to '
            'allocate: %s' % exc.message, comment=errors.CONCURRENT_UPDATE)


def set_allocations_for_consumer(req):
    """PUT /allocations/{consumer_uuid}: replace a consumer's allocations;
    204."""
    ctx = common.context(req, POLICY % 'update')
    want = microversion.of(req)
    body = util.extract_json(req, put_schema(want))
    consumer_uuid = util.wsgi_path_item(req.environ, 'consumer_uuid')
    _write(ctx, [_spec(want, consumer_uuid, body)], consumer_uuid)
    return util.no_content()


@microversion.require('1.13')
def set_allocations(req):
    """POST /allocations (1.13+): several consumers atomically; 204."""
    ctx = common.context(req, POLICY % 'manage')
    want = microversion.of(req)
    body = util.extract_json(req, post_schema(want))
    _write(ctx, [_spec(want, uuid, value) for uuid, value in body.items()])
    return util.no_content()


def list_for_consumer(req):
    """GET /allocations/{consumer_uuid}: 200, empty when none."""
    ctx = common.context(req, POLICY % 'list')
    want = microversion.of(req)
    consumer_uuid = util.wsgi_path_item(req.environ, 'consumer_uuid')
    if not uuidutils.is_uuid_like(consumer_uuid):
        # As in Placement: no such consumer can exist, so it has nothing.
        return util.json_response({'allocations': {}}, req=req)
    consumer, allocations, modified = alloc_obj.get_for_consumer(
        ctx, _consumer_uuid(consumer_uuid))
    if not allocations:
        # As in Placement, which reads the consumer from its allocations: a
        # consumer holding nothing (leave_new_consumers) is not shown.
        consumer = None
    data = {'allocations': allocations}
    if want >= (1, 12) and consumer is not None:
        data['project_id'] = consumer.project_id
        data['user_id'] = consumer.user_id
    if want >= (1, 28) and consumer is not None:
        data['consumer_generation'] = consumer.generation
    if want >= (1, 38) and consumer is not None:
        data['consumer_type'] = consumer.consumer_type or 'unknown'
    return util.json_response(data, last_modified=modified, req=req)


def delete_allocations(req):
    """DELETE /allocations/{consumer_uuid}: 204, 404 when none."""
    ctx = common.context(req, POLICY % 'delete')
    consumer_uuid = util.wsgi_path_item(req.environ, 'consumer_uuid')
    try:
        alloc_obj.delete_for_consumer(ctx, consumer_uuid)
    except exception.ConsumerNotFound:
        raise webob.exc.HTTPNotFound(
            "No allocations for consumer '%s'" % consumer_uuid,
            comment=errors.DEFAULT)
    return util.no_content()


def list_for_resource_provider(req):
    """GET /resource_providers/{uuid}/allocations: 200."""
    ctx = common.context(req, 'placement:resource_providers:allocations:list')
    rp, allocations, modified = alloc_obj.get_for_provider(
        ctx, common.provider_uuid(req))
    if microversion.of(req) < (1, 28):
        for entry in allocations.values():
            entry.pop('consumer_generation')
    data = {'resource_provider_generation': rp.generation,
            'allocations': allocations}
    return util.json_response(data, last_modified=modified, req=req)
