"""The Image API v2 under ``/image`` (Glance's shapes and status codes).

Images: list (filters, paging, sorting), show, create, update by JSON
patch, delete, tags. The data (``/file``) is :mod:`.image_data`, the
members :mod:`.image_members`; the rules (who sees and changes what,
valid values) :mod:`nova_lite.image.service`. The list and show are
also served under ``/v2.1/images``, where the OpenStack clients look when
a cloud's catch-all endpoint is the compute URL. ``/image`` is the
version document (300, as Glance answers), needing no credentials.
"""

import urllib.parse

from oslo_log import log as logging
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from nova_lite import exception
from nova_lite.image import catalog as image_catalog
from nova_lite.image import objects as image_obj
from nova_lite.image import policy
from nova_lite.image import schemas
from nova_lite.image import service
from nova_lite.image import tasks as image_tasks
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)

VERSION_IDS = (('v2.16', 'CURRENT'), ('v2.0', 'SUPPORTED'))
PATCH_TYPES = ('application/openstack-images-v2.1-json-patch',
               'application/openstack-images-v2.0-json-patch')
# Glance's defaults: limit_param_default, api_limit_max, and the
# image_property_quota / image_tag_quota.
DEFAULT_LIMIT = 25
MAX_LIMIT = 1000
PROPERTY_QUOTA = 128
TAG_QUOTA = 128
SORT_KEYS = ('name', 'status', 'container_format', 'disk_format', 'size',
             'id', 'created_at', 'updated_at', 'visibility', 'owner',
             'min_disk', 'min_ram', 'virtual_size', 'os_hidden',
             'protected')
# Query parameters that are not extra-property filters.
_KNOWN_QUERY = ('limit', 'marker', 'sort_key', 'sort_dir', 'sort', 'name',
                'status', 'visibility', 'owner', 'member_status', 'id',
                'os_hidden', 'disk_format', 'container_format', 'tag',
                'size_min', 'size_max', 'protected', 'checksum',
                'os_hash_value', 'created_at', 'updated_at')


def versions(req):
    """GET /image: the version document (300 Multiple Choices)."""
    href = '%s/image/v2/' % req.application_url
    body = {'versions': [{'id': vid, 'status': status,
                          'links': [{'rel': 'self', 'href': href}]}
                         for vid, status in VERSION_IDS]}
    status = 300 if req.path_info.rstrip('/') == '/image' else 200
    return util.json_response(body, status=status)


def _ctx(req, rule='images:list'):
    context = util.context(req)
    policy.authorize(context, rule)
    return context


def image_for(req, rule='images:list'):
    """(context, internal image) of the request's ``image_id``; 404 when
    the caller may not see it."""
    context = _ctx(req, rule)
    return context, service.get(context, util.conf(req),
                                req.urlvars['image_id'])


# -- list ---------------------------------------------------------------------

def _bool_query(req, name):
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid value for %s: %s (a boolean is required).'
            % (name, value))


def _int_query(req, name, maximum=None):
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise webob.exc.HTTPBadRequest(
            '%s param must be a positive integer: %s' % (name, value))
    return number if maximum is None else min(number, maximum)


def _choice_query(req, name, choices):
    value = req.GET.get(name)
    if value is not None and value not in choices:
        raise webob.exc.HTTPBadRequest(
            'Invalid %s value: %s. It must be one of: %s.'
            % (name, value, ', '.join(choices)))
    return value


def _matches(req, image):
    get = req.GET
    for key in ('name', 'status', 'owner', 'disk_format',
                'container_format', 'checksum', 'os_hash_value'):
        if key in get and image.get(key) != get[key]:
            return False
    ids = get.get('id')
    if ids is not None:
        wanted = ids[3:].split(',') if ids.startswith('in:') else [ids]
        if image['id'] not in wanted:
            return False
    if image['os_hidden'] != bool(_bool_query(req, 'os_hidden')):
        return False
    protected = _bool_query(req, 'protected')
    if protected is not None and image['protected'] != protected:
        return False
    size_min, size_max = _int_query(req, 'size_min'), _int_query(
        req, 'size_max')
    if size_min is not None and (image['size'] or 0) < size_min:
        return False
    if size_max is not None and (image['size'] or 0) > size_max:
        return False
    if not set(get.getall('tag')) <= set(image['tags']):
        return False
    for key, value in get.items():
        if key not in _KNOWN_QUERY and \
                str(image['properties'].get(key)) != value:
            return False
    return True


def _sort_spec(req):
    """[(key, reverse)] from ``sort`` or ``sort_key``/``sort_dir``."""
    get = req.GET
    if 'sort' in get and ('sort_key' in get or 'sort_dir' in get):
        raise webob.exc.HTTPBadRequest(
            'The "sort" parameter cannot be used with "sort_key" or '
            '"sort_dir".')
    pairs = []
    if 'sort' in get:
        for item in get['sort'].split(','):
            key, _sep, direction = item.strip().partition(':')
            pairs.append((key, direction or 'desc'))
    else:
        keys = [k for v in get.getall('sort_key') for k in v.split(',')]
        dirs = [d for v in get.getall('sort_dir') for d in v.split(',')]
        keys = keys or ['created_at']
        if len(dirs) > 1 and len(dirs) != len(keys):
            raise webob.exc.HTTPBadRequest(
                'Number of sort dirs does not match the number of sort '
                'keys.')
        dirs = dirs or ['desc']
        pairs = [(k, dirs[i] if len(dirs) > 1 else dirs[0])
                 for i, k in enumerate(keys)]
    for key, direction in pairs:
        if key not in SORT_KEYS:
            raise webob.exc.HTTPBadRequest('Invalid sort key: %s. It is '
                                           'not allowed.' % key)
        if direction not in ('asc', 'desc'):
            raise webob.exc.HTTPBadRequest(
                'Invalid sort direction: %s' % direction)
    if 'id' not in [k for k, _d in pairs]:
        pairs.append(('id', pairs[-1][1]))
    return [(key, direction == 'desc') for key, direction in pairs]


def _sort_value(image, key):
    """``image[key]`` as a listing sorts it (times to the microsecond)."""
    value = image.get('sort_times', {}).get(key, image.get(key))
    return (value is not None, value if value is not None else 0)


def _sorted(images, spec):
    for key, reverse in reversed(spec):
        images = sorted(images, key=lambda i, k=key: _sort_value(i, k),
                        reverse=reverse)
    return images


def _page(req, images):
    limit = _int_query(req, 'limit', MAX_LIMIT)
    limit = DEFAULT_LIMIT if limit is None else limit
    marker = req.GET.get('marker')
    if marker is not None:
        ids = [i['id'] for i in images]
        if marker not in ids:
            raise webob.exc.HTTPBadRequest(
                'Invalid marker. Image %s could not be found.' % marker)
        images = images[ids.index(marker) + 1:]
    return images[:limit], limit


def _next_link(req, page, limit):
    if not page or len(page) != limit:
        return None
    params = [(k, v) for k, v in req.GET.items() if k != 'marker']
    params.append(('marker', page[-1]['id']))
    return '/v2/images?%s' % urllib.parse.urlencode(params)


def list_images(req):
    """GET /image/v2/images with Glance's filters, sort and paging."""
    context = _ctx(req)
    visibility = _choice_query(req, 'visibility',
                               service.VISIBILITIES + ('all',))
    member_status = _choice_query(
        req, 'member_status', service.MEMBER_STATUSES + ('all',)) or \
        'accepted'
    spec = _sort_spec(req)
    images = service.listed(context, service.all_images(
        context, util.conf(req)), visibility, member_status)
    images = _sorted([i for i in images if _matches(req, i)], spec)
    page, limit = _page(req, images)
    first = '/v2/images'
    if req.query_string:
        first += '?' + urllib.parse.urlencode(
            [(k, v) for k, v in req.GET.items() if k != 'marker'])
    body = {'images': [service.view(i) for i in page], 'first': first,
            'schema': '/v2/schemas/images'}
    next_link = _next_link(req, page, limit)
    if next_link:
        body['next'] = next_link
    return util.json_response(body)


def show_image(req):
    """GET /image/v2/images/{image_id}: the image itself, no wrapper."""
    _context, image = image_for(req)
    return util.json_response(service.view(image))


def list_tasks(req):
    """GET /image/v2/images/{image_id}/tasks (Image API 2.12): the tasks
    that worked on the image, newest first."""
    _context, image = image_for(req)
    found = [image_tasks.view(t, with_image=True)
             for t in image_tasks.all_tasks(util.conf(req))
             if t.get('image_id') == image['id']]
    return util.json_response({'tasks': found})


# -- create -------------------------------------------------------------------

def _json_object(req):
    try:
        body = req.json_body if req.body else None
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise webob.exc.HTTPBadRequest(
            'Body expected in request: a JSON object.')
    return body


def _check_quotas(properties, tags):
    if len(properties) > PROPERTY_QUOTA:
        raise webob.exc.HTTPRequestEntityTooLarge(
            'Attempted to add %d properties to an image; the maximum is '
            '%d.' % (len(properties), PROPERTY_QUOTA))
    if len(tags) > TAG_QUOTA:
        raise webob.exc.HTTPRequestEntityTooLarge(
            'Attempted to add %d tags to an image; the maximum is %d.'
            % (len(tags), TAG_QUOTA))


def new_image_values(context, conf, body):
    """The values of a new queued image from a create request's body
    (400/403/409/413 as Glance)."""
    values = {'uuid': uuidutils.generate_uuid(), 'name': None,
              'status': 'queued', 'visibility': 'shared',
              'protected': False, 'os_hidden': False,
              'owner': context.project_id, 'min_disk': 0, 'min_ram': 0,
              'disk_format': None, 'container_format': None,
              'properties': {}, 'tags': []}
    for key, value in body.items():
        service.check_attribute(key)
        if key in service.SETTABLE:
            service.check_value(key, value)
            values['uuid' if key == 'id' else key] = value
        elif key in schemas.EXTRA_PROPERTIES:
            # The published schema's own extra properties (kernel_id...):
            # checked against it; null is not set.
            service.check_value(key, value)
            if value is not None:
                values['properties'][key] = value
        else:
            service.check_property(key, value)
            values['properties'][key] = value
    service.check_visibility_change(context, None, values['visibility'])
    service.check_owner_change(context, values['owner'])
    values['tags'] = service.unique_tags(values['tags'])
    _check_quotas(values['properties'], values['tags'])
    if image_catalog.find_entry(values['uuid'], conf):
        raise webob.exc.HTTPConflict(
            'Image with identifier %s already exists!' % values['uuid'])
    return values


def store_new_image(context, values):
    """The new image record (409 on a taken id)."""
    try:
        record = image_obj.Image.create(context, values)
    except exception.ImageRecordExists as exc:
        raise webob.exc.HTTPConflict(exc.message)
    LOG.info('Image %s created by project %s', record.uuid,
             context.project_id)
    return record


def create_image(req):
    """POST /image/v2/images: a queued image (201, ``Location``)."""
    context = _ctx(req, 'images:write')
    values = new_image_values(context, util.conf(req), _json_object(req))
    record = store_new_image(context, values)
    image = service._from_record(record)
    return util.json_response(service.view(image), status=201, headers={
        'Location': '%s/image/v2/images/%s' % (req.application_url,
                                               record.uuid)})


# -- update (JSON patch) ------------------------------------------------------

def _decode_path(path):
    if not isinstance(path, str) or not path.startswith('/'):
        raise webob.exc.HTTPBadRequest(
            'Pointer `%s` does not start with "/".' % path)
    parts = path[1:].split('/')
    if len(parts) != 1 or not parts[0]:
        raise webob.exc.HTTPBadRequest(
            'Nested paths are not allowed: %s' % path)
    return parts[0].replace('~1', '/').replace('~0', '~')


def _changes(req):
    """[(op, attribute, value)] of a JSON patch body."""
    content_type = (req.content_type or '').split(';')[0].strip()
    if content_type not in PATCH_TYPES:
        raise webob.exc.HTTPUnsupportedMediaType(
            'Unsupported Content-Type: %s. Use %s.' % (
                content_type or 'none', PATCH_TYPES[0]))
    try:
        body = req.json_body
    except ValueError:
        body = None
    if not isinstance(body, list):
        raise webob.exc.HTTPBadRequest(
            'Request body must be a JSON array of operation objects.')
    changes = []
    for op in body:
        if not isinstance(op, dict):
            raise webob.exc.HTTPBadRequest(
                'Operations must be JSON objects.')
        if 'op' not in op:
            # The v2.0 media type: {"replace": "/name", "value": ...}.
            found = [k for k in ('add', 'replace', 'remove') if k in op]
            if len(found) != 1:
                raise webob.exc.HTTPBadRequest(
                    'Unable to find `op` in JSON Schema change. It must be '
                    'one of the following: [add, remove, replace].')
            name, path = found[0], op[found[0]]
        else:
            name, path = op['op'], op.get('path')
        if name not in ('add', 'replace', 'remove'):
            raise webob.exc.HTTPBadRequest(
                'Invalid operation: `%s`. It must be one of the following: '
                '[add, remove, replace].' % name)
        if name != 'remove' and 'value' not in op:
            raise webob.exc.HTTPBadRequest(
                'Operation "%s" requires a member named "value".' % name)
        changes.append((name, _decode_path(path), op.get('value')))
    return changes


def _apply(context, image, changes):
    """The image values after ``changes`` (400/403/409 as Glance)."""
    values = {k: image[k] for k in service.SETTABLE if k != 'id'}
    properties = dict(image['properties'])
    for name, attr, value in changes:
        service.check_attribute(attr)
        if attr == 'id':
            raise webob.exc.HTTPForbidden("Attribute 'id' is read-only.")
        if attr in values:
            if name == 'remove':
                raise webob.exc.HTTPForbidden(
                    'Property %s may not be removed.' % attr)
            service.check_value(attr, value)
            if attr in ('disk_format', 'container_format') and \
                    image['status'] != 'queued' and value != image[attr]:
                raise webob.exc.HTTPForbidden(
                    'Attribute %s can be only replaced for a queued image.'
                    % attr)
            if attr == 'visibility':
                service.check_visibility_change(context, image[attr], value)
            if attr == 'owner' and name == 'replace' and \
                    not context.is_admin:
                raise webob.exc.HTTPForbidden(
                    "Owner can't be updated by non admin.")
            if attr == 'owner':
                service.check_owner_change(context, value)
            values[attr] = value
        elif name == 'remove' or (name == 'replace' and
                                  attr not in properties):
            if attr not in properties:
                raise webob.exc.HTTPConflict(
                    'Property %s does not exist.' % attr)
            del properties[attr]
        elif attr in schemas.EXTRA_PROPERTIES:
            service.check_value(attr, value)
            if value is None:
                properties.pop(attr, None)
            else:
                properties[attr] = value
        else:
            service.check_property(attr, value)
            properties[attr] = value
    values['tags'] = service.unique_tags(values['tags'])
    _check_quotas(properties, values['tags'])
    values['properties'] = properties
    return values


def update_image(req):
    """PATCH /image/v2/images/{image_id}: a JSON patch (200, the image)."""
    context, image = image_for(req, 'images:write')
    changes = _changes(req)
    service.check_owner(context, image)
    values = _apply(context, image, changes)
    record = image_obj.Image.update(context, image['id'], values)
    return util.json_response(service.view(service._from_record(record)))


# -- delete -------------------------------------------------------------------

def delete_image(req):
    """DELETE /image/v2/images/{image_id}: 204; 403 when protected."""
    context, image = image_for(req, 'images:write')
    service.check_owner(context, image, 'delete')
    if image['protected']:
        raise webob.exc.HTTPForbidden(
            'Image %s is protected and cannot be deleted.' % image['id'])
    if not service.destroy(context, util.conf(req), image['id']):
        raise webob.exc.HTTPNotFound(
            'No image found with ID %s' % image['id'])
    LOG.info('Image %s deleted', image['id'])
    return util.no_content()


# -- tags ---------------------------------------------------------------------

def add_tag(req):
    """PUT /image/v2/images/{image_id}/tags/{tag}: 204."""
    context, image = image_for(req, 'images:write')
    service.check_owner(context, image)
    tag = req.urlvars['tag']
    service.check_value('tags', [tag])
    tags = service.unique_tags(image['tags'] + [tag])
    _check_quotas(image['properties'], tags)
    image_obj.Image.update(context, image['id'], {'tags': tags})
    return util.no_content()


def delete_tag(req):
    """DELETE /image/v2/images/{image_id}/tags/{tag}: 204, 404 when the
    image has no such tag."""
    context, image = image_for(req, 'images:write')
    service.check_owner(context, image)
    tag = req.urlvars['tag']
    if tag not in image['tags']:
        raise webob.exc.HTTPNotFound('Tag %s not found.' % tag)
    image_obj.Image.update(context, image['id'], {
        'tags': [t for t in image['tags'] if t != tag]})
    return util.no_content()
