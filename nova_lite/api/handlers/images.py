"""A read-only Image API v2 under ``/image``, from the image catalog.

Enough of Glance for the OpenStack clients to resolve ``--image`` by id
or name (``GET /v2/images/{id}``, ``?name=``, ``?os_hidden=``,
``?id=in:a,b``) and to show image names in server lists. ``/image`` is
the version document (300, as Glance answers), needing no credentials.
"""

from oslo_utils import strutils
import webob.exc

from nova_lite.api import image_catalog
from nova_lite.api import policy
from nova_lite.api import util

# The Image API versions advertised; the catalog speaks the 2.x subset
# every client uses.
VERSION_IDS = (('v2.16', 'CURRENT'), ('v2.0', 'SUPPORTED'))


def versions(req):
    """GET /image: the version document (300 Multiple Choices)."""
    href = '%s/image/v2/' % req.application_url
    body = {'versions': [{'id': vid, 'status': status,
                          'links': [{'rel': 'self', 'href': href}]}
                         for vid, status in VERSION_IDS]}
    status = 300 if req.path_info.rstrip('/') == '/image' else 200
    return util.json_response(body, status=status)


def _bool_filter(req, name):
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid value for %s: %s (a boolean is required).'
            % (name, value))


def _filtered(req, images):
    name = req.GET.get('name')
    if name is not None:
        images = [i for i in images if i['name'] == name]
    ids = req.GET.get('id')
    if ids is not None:
        wanted = ids[3:].split(',') if ids.startswith('in:') else [ids]
        images = [i for i in images if i['id'] in wanted]
    hidden = _bool_filter(req, 'os_hidden')
    images = [i for i in images if i['os_hidden'] == bool(hidden)]
    for key in ('visibility', 'status', 'disk_format', 'container_format'):
        if req.GET.get(key) not in (None, 'all'):
            images = [i for i in images if i.get(key) == req.GET[key]]
    return images


def list_images(req):
    """GET /image/v2/images with Glance's common filters."""
    policy.authorize(util.context(req), 'images:list')
    images = _filtered(req, image_catalog.list_images(util.conf(req)))
    images = util.paginate(images, req, lambda i: i['id'],
                           util.conf(req).api.max_limit)
    return util.json_response({'images': images, 'first': '/v2/images',
                               'schema': '/v2/schemas/images'})


def show_image(req):
    """GET /image/v2/images/{image_id}: the image itself, no wrapper."""
    policy.authorize(util.context(req), 'images:list')
    image = image_catalog.get_image(req.urlvars['image_id'], util.conf(req))
    if image is None:
        raise webob.exc.HTTPNotFound(
            'No image found with ID %s' % req.urlvars['image_id'])
    return util.json_response(image)
