"""/servers/{server_id}/tags (2.26): simple string tags on a server.

Tags live with the instance in its cell (``instance.extra['tags']``, in
the order given) and filter ``GET /servers`` (``tags``, ``tags-any``,
``not-tags``, ``not-tags-any``: comma-separated). Changes need a settled
server (active, paused, suspended, stopped; 409 otherwise). Adding one
tag answers 201 with its ``Location``, or 204 when it was there.
"""

import jsonschema
import webob.exc

from nova_lite.api.compute import server_edits
from nova_lite.api.handlers import servers
from nova_lite.api import microversion
from nova_lite.api.schemas import server_tags as schema
from nova_lite.api import util
from nova_lite.api import validation

MIN_VERSION = '2.26'
_RULE = 'os-server-tags:%s'


def _server(req, rule):
    return servers.get_server(req, req.urlvars['server_id'], _RULE % rule)


def _save(req, server, tags, action):
    context = util.context(req)
    server_edits.check_settled(context, server, action)
    extra = dict(server.instance.extra or {})
    extra['tags'] = tags
    server_edits.save(context, server, {'extra': extra})


@microversion.require(MIN_VERSION)
def list_tags(req):
    """GET: ``{"tags": [...]}``."""
    return util.json_response({'tags': server_edits.tags_of(
        _server(req, 'index').instance)})


@microversion.require(MIN_VERSION)
def replace_tags(req):
    """PUT: the given tags become the whole list (duplicates once)."""
    server = _server(req, 'update_all')
    given = validation.body(req, schema.REPLACE)['tags']
    tags = list(dict.fromkeys(given))
    _save(req, server, tags, 'update tags')
    return util.json_response({'tags': tags})


@microversion.require(MIN_VERSION)
def delete_tags(req):
    """DELETE: no tags left; 204."""
    _save(req, _server(req, 'delete_all'), [], 'delete tags')
    return util.no_content()


@microversion.require(MIN_VERSION)
def check_tag(req):
    """GET /tags/{tag}: 204 when the server has it, 404 otherwise."""
    server = _server(req, 'show')
    tag = req.urlvars['tag']
    if tag not in server_edits.tags_of(server.instance):
        raise webob.exc.HTTPNotFound("Server %s has no tag '%s'"
                                     % (server.uuid, tag))
    return util.no_content()


def _valid_tag(tag):
    error = next(jsonschema.Draft4Validator(schema.TAG).iter_errors(tag),
                 None)
    if error is not None:
        raise webob.exc.HTTPBadRequest(
            "Tag '%s' is invalid. It must be a non empty string without "
            "characters '/' and ','. Validation error message: %s"
            % (tag, error.message))


@microversion.require(MIN_VERSION)
def add_tag(req):
    """PUT /tags/{tag}: 201 with ``Location``; 204 if already there;
    400 for a bad tag or past 50 tags."""
    server = _server(req, 'update')
    tag = req.urlvars['tag']
    server_edits.check_settled(util.context(req), server, 'update tag')
    _valid_tag(tag)
    tags = server_edits.tags_of(server.instance)
    if len(tags) >= schema.MAX_TAG_COUNT:
        raise webob.exc.HTTPBadRequest(
            'The number of tags exceeded the per-server limit %d'
            % schema.MAX_TAG_COUNT)
    if tag in tags:
        return util.no_content()
    _save(req, server, tags + [tag], 'update tag')
    response = util.no_content(201)
    response.headers['Location'] = '%s/servers/%s/tags/%s' % (
        util.base_url(req), server.uuid, tag)
    return response


@microversion.require(MIN_VERSION)
def delete_tag(req):
    """DELETE /tags/{tag}: 204; 404 when the server does not have it."""
    server = _server(req, 'delete')
    tag = req.urlvars['tag']
    server_edits.check_settled(util.context(req), server, 'delete tag')
    tags = server_edits.tags_of(server.instance)
    if tag not in tags:
        raise webob.exc.HTTPNotFound(
            'Tag %s could not be found for instance %s.'
            % (tag, server.uuid))
    tags.remove(tag)
    _save(req, server, tags, 'delete tag')
    return util.no_content()
