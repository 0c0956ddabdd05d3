"""/servers/{server_id}/metadata: the user's key/value pairs of a server.

Read by the owner's readers; written by members, only while the server
is settled (active, paused, suspended, stopped) with no task and not
locked (409 otherwise). A set larger than the project's
``metadata_items`` quota is a 403, as in Nova; keys and values are at
most 255 characters (400).
"""

import webob.exc

from nova_lite.api.compute import server_edits
from nova_lite.api.handlers import servers
from nova_lite.api import quota
from nova_lite.api.schemas import server_metadata as schema
from nova_lite.api import util
from nova_lite.api import validation

_RULE = 'server-metadata:%s'


def _server(req, rule):
    return servers.get_server(req, req.urlvars['server_id'], _RULE % rule)


def _metadata(server):
    return dict(server.instance.metadata or {})


def _check_quota(context, server, metadata):
    allowed = quota.limits_for(
        context, server.instance.project_id)['metadata_items']
    if 0 <= allowed < len(metadata):
        raise webob.exc.HTTPForbidden(
            'Quota exceeded for metadata_items: Maximum number of metadata '
            'items exceeds %d' % allowed)


def _write(req, server, metadata, action):
    context = util.context(req)
    server_edits.check_settled(context, server, action, check_lock=True,
                               no_task=True)
    _check_quota(context, server, metadata)
    server_edits.save(context, server, {'metadata': metadata})
    return metadata


def list_metadata(req):
    """GET: every item."""
    return util.json_response({'metadata': _metadata(_server(req,
                                                             'index'))})


def update_metadata(req):
    """POST: merge the given items into the set; 200 with the whole set."""
    server = _server(req, 'create')
    given = validation.body(req, schema.SET)['metadata']
    metadata = _metadata(server)
    metadata.update(given)
    return util.json_response({'metadata': _write(
        req, server, metadata, 'update metadata')})


def replace_metadata(req):
    """PUT: the given items become the whole set."""
    server = _server(req, 'update_all')
    given = validation.body(req, schema.SET)['metadata']
    return util.json_response({'metadata': _write(
        req, server, dict(given), 'update metadata')})


def _not_found():
    return webob.exc.HTTPNotFound('Metadata item was not found')


def show_item(req):
    """GET /metadata/{key}."""
    key = req.urlvars['key']
    metadata = _metadata(_server(req, 'show'))
    if key not in metadata:
        raise _not_found()
    return util.json_response({'meta': {key: metadata[key]}})


def update_item(req):
    """PUT /metadata/{key}: ``{"meta": {key: value}}``, the key as in the
    URL (400 otherwise)."""
    server = _server(req, 'update')
    key = req.urlvars['key']
    item = validation.body(req, schema.ITEM)['meta']
    if key not in item:
        raise webob.exc.HTTPBadRequest('Request body and URI mismatch')
    metadata = _metadata(server)
    metadata.update(item)
    _write(req, server, metadata, 'update metadata')
    return util.json_response({'meta': item})


def delete_item(req):
    """DELETE /metadata/{key}: 204; 404 when there is no such key."""
    server = _server(req, 'delete')
    key = req.urlvars['key']
    metadata = _metadata(server)
    if key not in metadata:
        raise _not_found()
    context = util.context(req)
    server_edits.check_settled(context, server, 'delete metadata',
                               check_lock=True, no_task=True)
    del metadata[key]
    server_edits.save(context, server, {'metadata': metadata})
    return util.no_content()
