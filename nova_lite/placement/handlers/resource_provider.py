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


def _bad_query(message):
    return util.bad_request('Invalid query string parameters: ' + message)


def _member_of_value(value):
    """(aggregate uuids, forbidden) of one ``member_of`` value: a uuid,
    ``in:`` uuids, or either prefixed with ``!``."""
    if ',' in value and not value.startswith(('in:', '!in:')):
        raise util.bad_request(
            "Multiple values for 'member_of' must be prefixed with the "
            "'in:' or '!in:' keyword using the valid microversion. Got: %s"
            % value)
    forbidden = value.startswith('!')
    if forbidden:
        value = value[1:]
    uuids = value[3:].split(',') if value.startswith('in:') else [value]
    for uuid in uuids:
        if not uuidutils.is_uuid_like(uuid):
            raise _bad_query("Expected 'member_of' parameter to contain "
                             "valid UUID(s). Got: %s" % uuid)
    return uuids, forbidden


def _parse_member_of(values, want, suffix=''):
    """[(aggregate uuids, forbidden)] of the ``member_of<suffix>`` values:
    repeatable from 1.24, ``!`` from 1.32, as in Placement."""
    if len(values) > 1 and want < (1, 24):
        raise util.bad_request(
            'Multiple member_of%s parameters are not supported' % suffix)
    entries = []
    for value in values:
        uuids, forbidden = _member_of_value(value)
        if forbidden and want < (1, 32):
            raise util.bad_request(
                'Forbidden member_of%s parameters are not supported in the '
                'specified microversion' % suffix)
        entries.append((uuids, forbidden))
    return entries


def parse_resources(text):
    """{class: amount} from ``VCPU:2,MEMORY_MB:512``; 400 when malformed.

    As in Placement: names are taken as written, an amount is any integer
    of at least 1, and a class named twice keeps its last amount. An amount
    past what any inventory can give (``max_unit`` is at most 2**31-1) is
    clamped, so that it matches nothing instead of overflowing SQL.
    """
    form = ('Badly formed resources parameter. Expected resources query '
            'string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. '
            'Got: %s.')
    if not text.strip():
        raise util.bad_request(form % 'empty string')
    result = {}
    for item in text.split(','):
        parts = item.split(':')
        if len(parts) != 2:
            raise util.bad_request(form % item)
        name, amount = parts
        try:
            amount = int(amount)
        except ValueError:
            raise util.bad_request(
                'Requested resource %s expected positive integer amount. '
                'Got: %s.' % (name, amount))
        if amount < 1:
            raise util.bad_request(
                'Requested resource %s requires amount >= 1. Got: %d.'
                % (name, amount))
        result[name] = min(amount, MAX_AMOUNT + 1)
    return result


def _any_of_traits(value):
    """The names of an ``in:A,B`` value (1.39+): one any-of entry."""
    names = [n.strip() for n in value[3:].split(',')]
    if not all(names):
        raise _bad_query("Expected 'required' parameter value of the form: "
                         "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait "
                         "in: %s" % value)
    if any(n.startswith('!') for n in names):
        raise _bad_query("The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does "
                         "not support forbidden traits. Got: %s" % value)
    return [(sorted(set(names)), False)]


def _all_of_traits(value, allow_forbidden):
    """Entries of an ``A,!B`` value: each trait required or forbidden.

    Any number of leading ``!`` forbids once, as in Placement."""
    items = [n.strip() for n in value.split(',')]
    forbidden = {n.lstrip('!') for n in items if n.startswith('!')}
    if not all(items) or not all(forbidden):
        raise _bad_query(
            "Expected 'required' parameter value of the form: %s. Got an "
            "empty trait in: %s" % ('HW_CPU_X86_VMX,!CUSTOM_MAGIC'
                                    if allow_forbidden else
                                    'HW_CPU_X86_VMX,CUSTOM_MAGIC', value))
    if forbidden and not allow_forbidden:
        raise _bad_query("Expected 'required' parameter value of the form: "
                         "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: %s" % value)
    return ([([n], False) for n in items if not n.startswith('!')] +
            [([n], True) for n in sorted(forbidden)])


def _parse_required(values, want):
    """[(trait names, forbidden)] of the ``required`` values.

    ``!`` needs 1.22; ``in:`` and repeating the parameter need 1.39 (before
    it, the last value counts, as in Placement)."""
    if want < (1, 39):
        values = values[-1:]
    entries = []
    for value in values:
        if not value.startswith('in:'):
            entries += _all_of_traits(value, want >= (1, 22))
        elif want < (1, 39):
            raise _bad_query("The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
                             "only supported since microversion 1.39. Got: "
                             "%s" % value)
        else:
            entries += _any_of_traits(value)
    return entries


def list_query_schema(want):
    """The query schema of the provider list at version ``want``."""
    return _pick(want, [((1, 0), schema.QUERY_V1_0),
                        ((1, 3), schema.QUERY_V1_3),
                        ((1, 4), schema.QUERY_V1_4),
                        ((1, 14), schema.QUERY_V1_14),
                        ((1, 18), schema.QUERY_V1_18)])


def post_schema(want):
    """The body schema of a provider's creation at version ``want``."""
    return schema.POST_SCHEMA_V1_14 if want >= (1, 14) \
        else schema.POST_SCHEMA_V1_0


def put_schema(want):
    """The body schema of a provider's update at version ``want``."""
    return schema.PUT_SCHEMA_V1_14 if want >= (1, 14) \
        else schema.PUT_SCHEMA_V1_0


def _filters(req):
    want = microversion.of(req)
    params = util.query_params(req, list_query_schema(want))
    filters = {'name': params.get('name'), 'uuid': params.get('uuid')}
    for key in ('uuid', 'in_tree'):
        # Placement's query schema gives both the format 'uuid'.
        if params.get(key) is not None and not uuidutils.is_uuid_like(
                params[key]):
            raise _bad_query("'%s' is not a 'uuid'" % params[key])
    filters['in_tree'] = params.get('in_tree')
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
    body = util.extract_json(req, post_schema(want))
    uuid = body.get('uuid') or uuidutils.generate_uuid()
    uuid = str(uuid_lib.UUID(uuid))
    try:
        rp = rp_obj.create(ctx, uuid, body['name'],
                           body.get('parent_provider_uuid'))
    except exception.InvalidParent as exc:
        raise util.bad_request('Unable to create resource provider "%s", '
                               '%s: Object action create failed because: %s'
                               % (body['name'], uuid, exc.message))
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
    body = util.extract_json(req, put_schema(want))
    kwargs = {}
    if 'parent_provider_uuid' in body:
        kwargs = {'parent_uuid': body['parent_provider_uuid'],
                  'allow_reparent': want >= (1, 37)}
    uuid = common.provider_uuid(req)
    try:
        rp, previous_update = rp_obj.update(ctx, uuid, body['name'],
                                            **kwargs)
    except exception.InvalidParent as exc:
        raise util.bad_request('Unable to save resource provider %s: Object '
                               'action update failed because: %s'
                               % (uuid, exc.message))
    # NOTE(nova_lite): Placement sends the provider's updated_at as read
    # before the write: none for a provider never updated.
    return util.json_response(serialize(req, rp), req=req,
                              last_modified=previous_update,
                              modified_now=False)


def delete_resource_provider(req):
    """DELETE /resource_providers/{uuid}: 204."""
    ctx = common.context(req, POLICY % 'delete')
    uuid = common.provider_uuid(req)
    try:
        rp_obj.destroy(ctx, uuid)
    except exception.ResourceProviderNotFound:
        raise webob.exc.HTTPNotFound(
            'No resource provider with uuid %s found for delete' % uuid,
            comment=errors.DEFAULT)
    return util.no_content()

