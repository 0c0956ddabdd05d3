"""Glance's cache API (Image API 2.14): ``/image/v2/cache``.

``GET`` lists the cached and the queued images, ``PUT /{image_id}``
queues an active image for caching (202; :mod:`nova_lite.image.cache`
fetches it at once), ``DELETE /{image_id}`` drops one image from the
cache and the queue (204) and ``DELETE`` empties both, or the one the
``x-image-cache-clear-target`` header names (``cache`` or ``queue``).
Admins only, as Glance's ``cache_*`` rules; without a cache
(``[image_catalog] cache_path`` empty) every call is a 404, as Glance
answers without an ``image_cache_dir``.
"""

from oslo_utils import uuidutils
import webob.exc

from nova_lite.image import cache
from nova_lite.image import policy
from nova_lite.image import service
from nova_lite.wsgi import util

CLEAR_TARGET = 'x-image-cache-clear-target'


def _conf(req, rule):
    """The config, once ``rule`` allows the caller and there is a
    cache."""
    policy.authorize(util.context(req), rule)
    conf = util.conf(req)
    if not cache.enabled(conf):
        raise webob.exc.HTTPNotFound(
            'Caching via API is not supported at this site.')
    return conf


def list_cache(req):
    """GET /image/v2/cache: 200 with ``cached_images``, ``queued_images``."""
    conf = _conf(req, 'images:cache:list')
    return util.json_response({'cached_images': cache.cached(conf),
                               'queued_images': cache.queued(conf)})


def queue_image(req):
    """PUT /image/v2/cache/{image_id}: 202; 400 unless the image is
    active."""
    context = util.context(req)
    image = service.get(context, util.conf(req), req.urlvars['image_id'])
    conf = _conf(req, 'images:cache:image')
    if image['status'] != 'active':
        raise webob.exc.HTTPBadRequest(
            'Only images with status active can be targeted for queueing')
    cache.queue(conf, image['id'])
    return util.no_content(202)


def delete_image(req):
    """DELETE /image/v2/cache/{image_id}: 204; 404 when the image is
    neither there nor cached or queued."""
    image_id = req.urlvars['image_id']
    conf = _conf(req, 'images:cache:delete')
    if not uuidutils.is_uuid_like(image_id) or not cache.delete(
            conf, image_id):
        # NOTE: Glance answers 404 for an image it cannot find that is
        # not in the cache either, and 204 for one it finds.
        service.get(util.context(req), conf, image_id)
    return util.no_content()


def clear_cache(req):
    """DELETE /image/v2/cache: 204; 400 for another clear target."""
    conf = _conf(req, 'images:cache:delete')
    target = req.headers.get(CLEAR_TARGET, '').strip().lower()
    if target not in ('', 'cache', 'queue'):
        raise webob.exc.HTTPBadRequest(
            "If provided '%s' must be 'cache', 'queue' or empty string."
            % CLEAR_TARGET)
    cache.clear(conf, copies=target in ('', 'cache'),
                waiting=target in ('', 'queue'))
    return util.no_content()
