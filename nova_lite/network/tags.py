"""Neutron's ``standard-attr-tag``: tags on any registered collection.

``/v2.0/{collection}/{id}/tags`` lists (GET), replaces (PUT ``{"tags":
[...]}``) and clears (DELETE) a resource's tags; ``.../tags/{tag}``
checks (GET: 204 or 404), adds (PUT: 201) and removes (DELETE: 204) one.
Lists take Neutron's filters: ``tags`` (all of), ``tags-any`` (any of),
``not-tags`` (not all of) and ``not-tags-any`` (none of), each a
comma-separated list. A collection joins with :func:`register` (the
resource's getter, which answers 404 for what the caller may not see);
a tag change bumps the resource's revision, as in Neutron.
"""

from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.wsgi import util

MAX_TAG_LEN = 60
FILTERS = common.TAG_FILTERS

# collection -> (kind, getter(context, id) -> the stored resource)
TAGGABLE = {}


def register(collection, kind, getter):
    """Make ``collection``'s resources taggable."""
    TAGGABLE[collection] = (kind, getter)


def _tagged(tags, wanted, mode):
    have = set(tags or [])
    return {'tags': wanted <= have, 'tags-any': bool(wanted & have),
            'not-tags': not wanted <= have,
            'not-tags-any': not wanted & have}[mode]


def filter_items(req, items):
    """``items`` passing the query's tag filters."""
    for mode in FILTERS:
        for value in req.GET.getall(mode):
            wanted = {t for t in value.split(',') if t}
            if wanted:
                items = [i for i in items
                         if _tagged(i.get('tags'), wanted, mode)]
    return items


def _check_tag(tag):
    if not isinstance(tag, str) or not tag:
        raise errors.bad_request(
            "Invalid input for operation: '%s' is not a valid string."
            % (tag,), 'InvalidInput')
    if len(tag) > MAX_TAG_LEN:
        raise errors.bad_request(
            "Invalid input for operation: '%s' exceeds maximum length of "
            "%d." % (tag, MAX_TAG_LEN), 'InvalidInput')


def _resource(req, write=False):
    kind, getter = TAGGABLE[common.collection_of(req, TAGGABLE)]
    context = util.context(req)
    resource = getter(context, req.urlvars['id'])
    if write:
        policy.authorize_owner(context, 'update', kind, resource)
    return context, kind, resource


def _save(context, kind, resource, tags):
    resource['tags'] = tags
    net_obj.update(context, kind, common.touch(resource))


def list_tags(req):
    return util.json_response({'tags': _resource(req)[2].get('tags', [])})


def replace_tags(req):
    context, kind, resource = _resource(req, write=True)
    try:
        body = req.json_body
    except ValueError:
        raise errors.bad_request('Malformed request body')
    tags = body.get('tags') if isinstance(body, dict) else None
    if not isinstance(tags, list):
        raise errors.bad_request(
            "Invalid input for operation: Invalid tags body.",
            'InvalidInput')
    for tag in tags:
        _check_tag(tag)
    unique = list(dict.fromkeys(tags))
    _save(context, kind, resource, unique)
    return util.json_response({'tags': unique})


def clear_tags(req):
    context, kind, resource = _resource(req, write=True)
    _save(context, kind, resource, [])
    return util.no_content()


def check_tag(req):
    tag = req.urlvars['tag']
    if tag not in _resource(req)[2].get('tags', []):
        raise _not_found(req, tag)
    return util.no_content()


def add_tag(req):
    tag = req.urlvars['tag']
    _check_tag(tag)
    context, kind, resource = _resource(req, write=True)
    tags = resource.get('tags') or []
    if tag not in tags:
        _save(context, kind, resource, tags + [tag])
    return util.no_content(status=201)


def remove_tag(req):
    tag = req.urlvars['tag']
    context, kind, resource = _resource(req, write=True)
    tags = resource.get('tags') or []
    if tag not in tags:
        raise _not_found(req, tag)
    _save(context, kind, resource, [t for t in tags if t != tag])
    return util.no_content()


def _not_found(req, tag):
    return errors.NeutronError(
        404, 'TagNotFound', 'Tag %s could not be found for resource %s.'
        % (tag, req.urlvars['id']))


def routes(prefix):
    """The tag routes of every registered collection."""
    table = {}
    for collection in TAGGABLE:
        base = '%s/v2.0/%s/{id}/tags' % (prefix, collection)
        table[base] = {'GET': list_tags, 'PUT': replace_tags,
                       'DELETE': clear_tags}
        table[base + '/{tag}'] = {'GET': check_tag, 'PUT': add_tag,
                                  'DELETE': remove_tag}
    return table
