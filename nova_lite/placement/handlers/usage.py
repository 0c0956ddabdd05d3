"""Handlers of /resource_providers/{uuid}/usages and /usages."""

from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import usage as usage_obj
from nova_lite.placement.schemas import misc as schema
from nova_lite.placement import util


def list_usages(req):
    """GET /resource_providers/{uuid}/usages: 200 with {rc: used}."""
    ctx = common.context(req, 'placement:resource_providers:usages')
    util.query_params(req, schema.EMPTY_QUERY)
    rp, usages = usage_obj.get_for_provider(ctx, common.provider_uuid(req))
    return util.json_response({'resource_provider_generation': rp.generation,
                               'usages': usages}, req=req)


def total_usages_query_schema(want):
    """The query schema of GET /usages at version ``want``."""
    return schema.USAGES_QUERY_V1_38 if want >= (1, 38) \
        else schema.USAGES_QUERY_V1_9


@microversion.require('1.9')
def get_total_usages(req):
    """GET /usages?project_id=&user_id= (1.9+; by consumer type 1.38+)."""
    # The rule is about the project asked for: a project's reader may read
    # its own usages under the new defaults.
    ctx = common.context(req, 'placement:usages',
                         {'project_id': req.GET.get('project_id')})
    want = microversion.of(req)
    params = util.query_params(req, total_usages_query_schema(want))
    if want >= (1, 38):
        usages = usage_obj.get_for_project_by_type(
            ctx, params['project_id'], params.get('user_id'),
            params.get('consumer_type'))
    else:
        usages = usage_obj.get_for_project(ctx, params['project_id'],
                                           params.get('user_id'))
    return util.json_response({'usages': usages}, req=req)
