"""Handlers of /resource_providers and /resource_providers/{uuid}."""

import uuid as uuid_lib

from oslo_utils import uuidutils
import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import resource_provider as rp_obj
from nova_lite.placement.schemas import resource_provider as schema
from nova_lite.placement import util

POLICY = 'placement:resource_providers:%s'
MAX_AMOUNT = 2147483647


def _links(req, rp, want):
    link = util.provider_link(req, rp.uuid)
    rels = [('self', ''), ('inventories', '/inventories'),
            ('usages', '/usages')]
    if want >= (1, 1):
        rels.append(('aggregates', '/aggregates'))
    if want >= (1, 6):
        rels.append(('traits', '/traits'))
    if want >= (1, 11):
        rels.append(('allocations', '/allocations'))
    return [{'rel': rel, 'href': link + suffix} for rel, suffix in rels]


def serialize(req, rp):
    want = microversion.of(req)
    data = {'uuid': rp.uuid, 'name': rp.name, 'generation': rp.generation,
            'links': _links(req, rp, want)}
    if want >= (1, 14):
        data['parent_provider_uuid'] = rp.parent_provider_uuid
        data['root_provider_uuid'] = rp.root_provider_uuid
    return data


def _pick(want, versions):
    """The schema of the highest version <= want in [(version, schema)]."""
    chosen = None
    for version, value in versions:
        if want >= version:
            chosen = value
    return chosen


def _parse_member_of(values, want):
    entries = []
    for value in values:
        forbidden = value.startswith('!')
        if forbidden:
            if want < (1, 32):
                raise util.bad_request(
                    'Forbidden member_of parameters are not supported in the '
                    'specified microversion', errors.QUERYPARAM_BAD_VALUE)
            value = value[1:]
        if value.startswith('in:'):
            value = value[3:]
        uuids = value.split(',')
        for uuid in uuids:
            if not uuidutils.is_uuid_like(uuid):
                raise util.bad_request(
                    'Invalid query string parameters: Expected \'member_of\''
                    ' parameter to contain valid UUID(s). Got: %s' % uuid,
                    errors.QUERYPARAM_BAD_VALUE)
        entries.append((uuids, forbidden))
    if len(values) > 1 and want < (1, 24):
        raise util.bad_request('Multiple member_of parameters are not '
                               'supported before microversion 1.24.',
                               errors.QUERYPARAM_DUPLICATE_KEY)
    return entries


def parse_resources(text):
    """{class: amount} from ``VCPU:2,MEMORY_MB:512``; 400 when malformed."""
    result = {}
    for item in text.split(','):
        name, sep, amount = item.partition(':')
        name = name.strip()
        amount = amount.strip()
        if not sep or not name or not amount.isdigit() or not (
                1 <= int(amount) <= MAX_AMOUNT):
            raise util.bad_request(
                'Badly formed resources parameter. Expected resources '
                'query string parameter in form: ?resources=VCPU:2,'
                'MEMORY_MB:1024. Got: %s.' % text,
                errors.QUERYPARAM_BAD_VALUE)
        if name in result:
            raise util.bad_request(
                'Resource class %s appears more than once in resources.'
                % name, errors.QUERYPARAM_DUPLICATE_KEY)
        result[name] = int(amount)
    return result


def _parse_required(values, want):
    entries = []
    for value in values:
        for item in [value] if value.startswith('in:') else value.split(','):
            forbidden = item.startswith('!')
            name = item[1:] if forbidden else item
            if forbidden and want < (1, 22):
                raise util.bad_request(
                    "Invalid trait name '%s' (forbidden traits need "
                    "microversion 1.22)" % item, errors.QUERYPARAM_BAD_VALUE)
            if name.startswith('in:'):
                if want < (1, 39) or forbidden:
                    raise util.bad_request(
                        "The 'in:' syntax in 'required' needs microversion"
                        " 1.39 and cannot be forbidden: %s" % item,
                        errors.QUERYPARAM_BAD_VALUE)
                names = name[3:].split(',')
            else:
                names = [name]
            if not all(names):
                raise util.bad_request(
                    "Invalid query string parameters: empty trait in "
                    "'required': %r" % value, errors.QUERYPARAM_BAD_VALUE)
            entries.append((names, forbidden))
    return entries


def _filters(req):
    want = microversion.of(req)
    query_schema = _pick(want, [((1, 0), schema.QUERY_V1_0),
                                ((1, 3), schema.QUERY_V1_3),
                                ((1, 4), schema.QUERY_V1_4),
                                ((1, 14), schema.QUERY_V1_14),
                                ((1, 18), schema.QUERY_V1_18)])
    params = util.query_params(req, query_schema)
    filters = {'name': params.get('name'), 'uuid': params.get('uuid')}
    if params.get('uuid') is not None and not uuidutils.is_uuid_like(
            params['uuid']):
        raise util.bad_request(
            "Invalid query string parameters: '%s' is not a 'uuid'"
            % params['uuid'], errors.QUERYPARAM_BAD_VALUE)
    if params.get('in_tree') is not None:
        util.require_uuid(params['in_tree'], 'in_tree')
        filters['in_tree'] = params['in_tree']
    if params.get('member_of'):
        filters['member_of'] = _parse_member_of(params['member_of'], want)
    if params.get('resources') is not None:
        filters['resources'] = parse_resources(params['resources'])
    if params.get('required'):
        filters['required'] = _parse_required(params['required'], want)
    return filters


def list_resource_providers(req):
    """GET /resource_providers: 200 with the matching providers."""
    ctx = common.context(req, POLICY % 'list')
    providers = rp_obj.get_all(ctx, _filters(req))
    last = util.latest(*[p.last_modified for p in providers])
    return util.json_response(
        {'resource_providers': [serialize(req, p) for p in providers]},
        last_modified=last, req=req)


def get_resource_provider(req):
    """GET /resource_providers/{uuid}: 200 with the provider."""
    ctx = common.context(req, POLICY % 'show')
    rp = rp_obj.get_by_uuid(ctx, common.provider_uuid(req))
    return util.json_response(serialize(req, rp),
                              last_modified=rp.last_modified, req=req)


def create_resource_provider(req):
    """POST /resource_providers: 201 with Location; from 1.20, 200 with
    the provider (and Location), as Placement answers."""
    ctx = common.context(req, POLICY % 'create')
    want = microversion.of(req)
    body = util.extract_json(req, schema.POST_SCHEMA_V1_14 if want >= (1, 14)
                             else schema.POST_SCHEMA_V1_0)
    uuid = body.get('uuid') or uuidutils.generate_uuid()
    uuid = str(uuid_lib.UUID(uuid))
    try:
        rp = rp_obj.create(ctx, uuid, body['name'],
                           body.get('parent_provider_uuid'))
    except exception.InvalidParent as exc:
        raise util.bad_request('Unable to create resource provider "%s", '
                               '%s: %s' % (body['name'], uuid, exc.message))
    if want >= (1, 20):
        response = util.json_response(serialize(req, rp), req=req,
                                      last_modified=rp.last_modified)
    else:
        response = util.no_content(201)
    response.location = util.location(req, '/resource_providers/' + rp.uuid)
    return response


def update_resource_provider(req):
    """PUT /resource_providers/{uuid}: 200 with the updated provider."""
    ctx = common.context(req, POLICY % 'update')
    want = microversion.of(req)
    body = util.extract_json(req, schema.PUT_SCHEMA_V1_14 if want >= (1, 14)
                             else schema.PUT_SCHEMA_V1_0)
    kwargs = {}
    if 'parent_provider_uuid' in body:
        kwargs = {'parent_uuid': body['parent_provider_uuid'],
                  'allow_reparent': want >= (1, 37)}
    uuid = common.provider_uuid(req)
    try:
        rp = rp_obj.update(ctx, uuid, body['name'], **kwargs)
    except exception.InvalidParent as exc:
        raise util.bad_request('Unable to save resource provider %s: %s'
                               % (uuid, exc.message))
    return util.json_response(serialize(req, rp), req=req,
                              last_modified=rp.last_modified)


def delete_resource_provider(req):
    """DELETE /resource_providers/{uuid}: 204."""
    ctx = common.context(req, POLICY % 'delete')
    uuid = common.provider_uuid(req)
    try:
        rp_obj.destroy(ctx, uuid)
    except exception.ResourceProviderNotFound:
        raise webob.exc.HTTPNotFound(
            'No resource provider with uuid %s found for delete' % uuid,
            comment=errors.RESOURCE_PROVIDER_NOT_FOUND)
    return util.no_content()

