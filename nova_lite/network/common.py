"""What every resource of the network service shares: who sees what,
list filters and ``fields``, timestamps and the standard attributes."""

from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite.network import errors
from nova_lite.network import objects as net_obj

PAGE_KEYS = ('fields', 'limit', 'marker', 'page_reverse', 'sort_key',
             'sort_dir')
# Neutron's tag filters, applied by :mod:`.tags` rather than as fields.
TAG_FILTERS = ('tags', 'tags-any', 'not-tags', 'not-tags-any')


def now():
    return timeutils.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ')


def standard(context, body, project_id=None):
    """``body`` with the attributes every Neutron resource has."""
    project = project_id or body.get('project_id') or \
        body.get('tenant_id') or context.project_id
    stamp = now()
    body.update(id=body.get('id') or uuidutils.generate_uuid(),
                project_id=project, tenant_id=project,
                description=body.get('description', ''),
                tags=[], created_at=stamp, updated_at=stamp,
                revision_number=0)
    return body


def touch(body):
    body['updated_at'] = now()
    body['revision_number'] = body.get('revision_number', 0) + 1
    return body


def check_project(context, body):
    """403 when a non-admin creates a resource for another project."""
    project = body.get('project_id') or body.get('tenant_id')
    if project and project != context.project_id and not context.is_admin:
        raise errors.forbidden(
            "(rule:create_resource) is disallowed by policy",
            'PolicyNotAuthorized')


def owns(context, resource):
    return context.is_admin or \
        resource.get('project_id') == context.project_id


def get(context, kind, uuid, visible=None):
    """The resource, 404 when missing or not the caller's to see."""
    try:
        resource = net_obj.get(context, kind, uuid)
    except exception.NetworkResourceNotFound:
        raise errors.not_found(kind, uuid)
    if not (visible or owns)(context, resource):
        raise errors.not_found(kind, uuid)
    return resource


def _matches(value, wanted):
    if isinstance(value, bool):
        return str(value).lower() in [w.lower() for w in wanted]
    if isinstance(value, list):
        return any(str(v) in wanted for v in value)
    return ('' if value is None else str(value)) in wanted


def public(item):
    """A resource without the service's own bookkeeping (keys starting
    with ``_``, such as a port Nova must not delete with its server)."""
    return {k: v for k, v in item.items() if not k.startswith('_')}


def filtered(req, items):
    """``items`` matching the query's field filters (a field given twice
    matches either value), with only ``fields`` when asked."""
    items = [public(i) for i in items]
    for key in set(req.GET.keys()) - set(PAGE_KEYS) - set(TAG_FILTERS):
        wanted = req.GET.getall(key)
        items = [i for i in items if key in i and _matches(i[key], wanted)]
    fields = req.GET.getall('fields')
    if fields:
        items = [{k: v for k, v in i.items() if k in fields} for i in items]
    return items


def shown(req, item):
    item = public(item)
    fields = req.GET.getall('fields')
    if fields:
        return {k: v for k, v in item.items() if k in fields}
    return item


def collection_of(req, names):
    """Which of the collections ``names`` a request's path is under
    (the longest that matches: ``qos/policies``, ``networks``)."""
    rest = req.path_info.rstrip('/').split('/v2.0/', 1)[1]
    return max((n for n in names if rest == n or rest.startswith(n + '/')),
               key=len)


def body_of(req, key):
    """The ``{key: {...}}`` request body's inner dict (400 otherwise)."""
    try:
        body = req.json_body
    except ValueError:
        raise errors.bad_request('Malformed request body')
    if not isinstance(body, dict) or not isinstance(body.get(key), dict):
        raise errors.bad_request(
            "Resource body required: expected '%s'" % key)
    return body[key]


def check_keys(values, allowed, kind):
    unknown = set(values) - set(allowed)
    if unknown:
        raise errors.bad_request(
            "Unrecognized attribute(s) '%s'" % ', '.join(sorted(unknown)))


def check_string(values, name, limit=255):
    value = values.get(name)
    if value is not None and not isinstance(value, str):
        raise errors.bad_request(
            "Invalid input for %s. Reason: '%s' is not a valid string."
            % (name, value))
    if value is not None and len(value) > limit:
        raise errors.bad_request(
            "Invalid input for %s. Reason: '%s' exceeds maximum length of "
            "%d." % (name, value, limit))


def check_bool(values, name):
    value = values.get(name)
    if value is not None and not isinstance(value, bool):
        if str(value).lower() in ('true', 'false', '1', '0'):
            values[name] = str(value).lower() in ('true', '1')
            return
        raise errors.bad_request(
            "Invalid input for %s. Reason: '%s' is not a valid boolean "
            "value." % (name, value))
