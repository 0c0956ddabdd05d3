"""The compute API's image proxy: ``/v2.1/images`` in Nova's shapes.

Deprecated in Nova and served only up to 2.35 (the metadata routes up
to 2.38); later microversions answer 404, as Nova does. Images come from
the image service (Glance v2 representation) and are shown as Nova shows
them: ``minRam``, ``minDisk``, ``metadata`` (the image properties),
``status`` in capitals, ``progress``, ``OS-EXT-IMG-SIZE:size``, three
links (the third to the image service), and ``server`` for a snapshot.
The list filters are Nova's (``name``, ``status``, ``changes-since``,
``server``, ``type``, ``minRam``, ``minDisk``, ``property-*``) with
``limit``/``marker`` paging and ``images_links``.

Deletes and metadata changes go to the image service with the caller's
rights, as Nova proxies them to Glance: the owner (or an admin) may, a
protected image is not deleted, and the configured catalog images are
read-only (403), as the image service refuses them
(:mod:`nova_lite.image.interface`).
"""

from urllib import parse

from oslo_utils import strutils
from oslo_utils import timeutils
import webob.exc

from nova_lite.api import microversion
from nova_lite.api.schemas import server_metadata as metadata_schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.image import interface as image_api

MAX_PROXY_VERSION = '2.35'
MAX_METADATA_VERSION = '2.38'
# Glance v2 attributes that are not image properties.
_GLANCE_CORE = frozenset((
    'id', 'name', 'status', 'visibility', 'protected', 'os_hidden', 'owner',
    'size', 'virtual_size', 'disk_format', 'container_format', 'min_disk',
    'min_ram', 'checksum', 'os_hash_algo', 'os_hash_value', 'tags',
    'created_at', 'updated_at', 'self', 'file', 'schema', 'direct_url',
    'locations', 'stores'))
_STATUS = {'active': 'ACTIVE', 'queued': 'SAVING', 'saving': 'SAVING',
           'deleted': 'DELETED', 'pending_delete': 'DELETED',
           'killed': 'ERROR'}
_PROGRESS = {'queued': 25, 'saving': 50, 'active': 100}


# -- the image service (Glance v2 representation) ---------------------------

def _all_images(req):
    """What the caller's default Glance listing shows."""
    context = util.context(req)
    return [image_api.view(i) for i in image_api.listed(
        context, image_api.all_images(context, util.conf(req)), None,
        'accepted')]


def _internal(req, image_id):
    try:
        return image_api.get(util.context(req), util.conf(req), image_id)
    except webob.exc.HTTPNotFound:
        raise webob.exc.HTTPNotFound('Image not found.')


def _get_image(req, image_id):
    return image_api.view(_internal(req, image_id))


def _set_properties(req, image_id, metadata):
    """Write the image's properties (the caller must own it)."""
    context = util.context(req)
    image_api.authorize(context, 'images:write')
    image = _internal(req, image_id)
    image_api.check_owner(context, image)
    for key, value in metadata.items():
        image_api.check_property(key, value)
    image_api.set_properties(context, image_id, metadata)


# -- Nova's view -------------------------------------------------------------

def properties(image):
    """The image's properties (Nova's ``metadata``)."""
    return {k: v for k, v in image.items() if k not in _GLANCE_CORE}


def _isotime(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = timeutils.parse_isotime(value)
    return util.isotime(timeutils.normalize_time(value))


def _links(req, image_id):
    return util.links(req, 'images', image_id) + [{
        'rel': 'alternate', 'type': 'application/vnd.openstack.image',
        'href': '%s/image/images/%s' % (req.application_url, image_id)}]


def _basic(req, image):
    return {'id': image['id'], 'name': image.get('name'),
            'links': _links(req, image['id'])}


def _detail(req, image):
    metadata = properties(image)
    view = {'id': image['id'], 'name': image.get('name'),
            'minRam': int(image.get('min_ram') or 0),
            'minDisk': int(image.get('min_disk') or 0),
            'metadata': metadata,
            'created': _isotime(image.get('created_at')),
            'updated': _isotime(image.get('updated_at')),
            'status': _STATUS.get(image.get('status'), 'UNKNOWN'),
            'progress': _PROGRESS.get(image.get('status'), 0),
            'OS-EXT-IMG-SIZE:size': image.get('size'),
            'links': _links(req, image['id'])}
    server = metadata.get('instance_uuid')
    if server is not None:
        view['server'] = {'id': server,
                          'links': util.links(req, 'servers', server)[:2]}
    disk_config = metadata.get('auto_disk_config')
    if disk_config is not None:
        view['OS-DCF:diskConfig'] = (
            'AUTO' if strutils.bool_from_string(disk_config) else 'MANUAL')
    return view


# -- lists -------------------------------------------------------------------

def _matches(req, image):
    query = req.GET
    props = properties(image)
    checks = [
        ('name', lambda v: image.get('name') == v),
        ('status', lambda v: image.get('status') == v.lower()),
        ('server', lambda v: props.get('instance_uuid') == v.rsplit(
            '/', 1)[-1]),
        ('type', lambda v: props.get('image_type') == v),
        ('minRam', lambda v: int(image.get('min_ram') or 0) >= _int(v)),
        ('minDisk', lambda v: int(image.get('min_disk') or 0) >= _int(v)),
        ('changes-since', lambda v: _isotime(image.get('updated_at')) >=
         _query_time(v)),
    ]
    for name, check in checks:
        if name in query and not check(query[name]):
            return False
    return all(str(props.get(key[len('property-'):])) == value
               for key, value in query.items()
               if key.startswith('property-'))


def _query_time(value):
    try:
        return _isotime(value)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid changes-since value %s.' % value)


def _int(value):
    try:
        return int(value)
    except ValueError:
        raise webob.exc.HTTPBadRequest('Invalid filter value %s.' % value)


def _list(req, render, collection):
    image_api.authorize(util.context(req), 'images:list')
    # NOTE(nova_lite): hidden images are left out, as Glance lists them.
    images = [i for i in _all_images(req)
              if not i.get('os_hidden') and _matches(req, i)]
    limit = util.query_int(req, 'limit', minimum=0)
    max_limit = util.conf(req).api.max_limit
    images = util.paginate(images, req, lambda i: i['id'], max_limit)
    body = {'images': [render(req, i) for i in images]}
    wanted = max_limit if limit is None else min(limit, max_limit)
    if images and len(images) == wanted:
        params = [(k, v) for k, v in req.GET.items() if k != 'marker']
        params.append(('marker', images[-1]['id']))
        body['images_links'] = [{'rel': 'next', 'href': '%s/%s?%s' % (
            util.base_url(req), collection, parse.urlencode(params))}]
    return util.json_response(body)


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_images(req):
    """GET /images: id, name and links."""
    return _list(req, _basic, 'images')


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_images_detail(req):
    """GET /images/detail."""
    return _list(req, _detail, 'images/detail')


@microversion.require(max_version=MAX_PROXY_VERSION)
def show_image(req):
    """GET /images/{image_id}."""
    image_api.authorize(util.context(req), 'images:list')
    return util.json_response({'image': _detail(
        req, _get_image(req, req.urlvars['image_id']))})


@microversion.require(max_version=MAX_PROXY_VERSION)
def delete_image(req):
    """DELETE /images/{image_id}: 204; 403 for a protected image or one
    the caller does not own."""
    context = util.context(req)
    image_api.authorize(context, 'images:write')
    image = _internal(req, req.urlvars['image_id'])
    image_api.check_owner(context, image, 'delete')
    if image['protected']:
        raise webob.exc.HTTPForbidden(
            'Image %s is protected and cannot be deleted.' % image['id'])
    if not image_api.destroy(context, util.conf(req), image['id']):
        raise webob.exc.HTTPNotFound('Image not found.')
    return util.no_content()


# -- /images/{image_id}/metadata ---------------------------------------------

def _image_metadata(req):
    image_api.authorize(util.context(req), 'images:list')
    image = _get_image(req, req.urlvars['image_id'])
    return image, properties(image)


@microversion.require(max_version=MAX_METADATA_VERSION)
def list_metadata(req):
    """GET: the image's properties."""
    return util.json_response({'metadata': _image_metadata(req)[1]})


@microversion.require(max_version=MAX_METADATA_VERSION)
def show_metadata_item(req):
    """GET /metadata/{key}: 404 for a key the image does not have."""
    metadata = _image_metadata(req)[1]
    key = req.urlvars['key']
    if key not in metadata:
        raise webob.exc.HTTPNotFound('The resource could not be found.')
    return util.json_response({'meta': {key: metadata[key]}})


def _check_quota(req, metadata):
    allowed = util.conf(req).quota.metadata_items
    if 0 <= allowed < len(metadata):
        raise webob.exc.HTTPForbidden(
            'Quota exceeded for metadata_items: Maximum number of metadata '
            'items exceeds %d' % allowed)


@microversion.require(max_version=MAX_METADATA_VERSION)
def update_metadata(req):
    """POST: merge properties; all of them back."""
    image, metadata = _image_metadata(req)
    metadata.update(validation.body(req, metadata_schema.SET)['metadata'])
    _check_quota(req, metadata)
    _set_properties(req, image['id'], metadata)
    return util.json_response({'metadata': metadata})


@microversion.require(max_version=MAX_METADATA_VERSION)
def replace_metadata(req):
    """PUT: replace the properties."""
    image = _image_metadata(req)[0]
    metadata = validation.body(req, metadata_schema.SET)['metadata']
    _check_quota(req, metadata)
    _set_properties(req, image['id'], metadata)
    return util.json_response({'metadata': metadata})


@microversion.require(max_version=MAX_METADATA_VERSION)
def update_metadata_item(req):
    """PUT /metadata/{key}: one property, the key as in the URL."""
    image, metadata = _image_metadata(req)
    item = validation.body(req, metadata_schema.ITEM)['meta']
    if req.urlvars['key'] not in item:
        raise webob.exc.HTTPBadRequest('Request body and URI mismatch')
    metadata.update(item)
    _check_quota(req, metadata)
    _set_properties(req, image['id'], metadata)
    return util.json_response({'meta': item})


@microversion.require(max_version=MAX_METADATA_VERSION)
def delete_metadata_item(req):
    """DELETE /metadata/{key}: 404 for an unknown key."""
    image, metadata = _image_metadata(req)
    if req.urlvars['key'] not in metadata:
        raise webob.exc.HTTPNotFound('Invalid metadata key')
    del metadata[req.urlvars['key']]
    _set_properties(req, image['id'], metadata)
    return util.no_content()
