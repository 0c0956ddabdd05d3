"""An image's data: ``PUT`` and ``GET /image/v2/images/{image_id}/file``.

The upload streams the body into the store (the input guard leaves these
bodies on the socket, see ``is_data_upload``): the image goes ``queued``
-> ``saving`` -> ``active`` with its size, MD5 ``checksum`` and SHA-512
``os_hash_value``, or back to ``queued`` when the upload fails. The
download streams the file with ``Content-MD5``, as Glance sends it; a
``Range: bytes=...`` of one range gets that part (206, ``Content-Range``,
no ``Content-MD5``), one past the data a 416 (``Content-Range: bytes
*/<size>``), as Glance answers; an image in the image cache is read from
its cached copy (:mod:`nova_lite.image.cache`).
"""

from oslo_log import log as logging
import webob
import webob.exc

from nova_lite import exception
from nova_lite.image import cache as image_cache
from nova_lite.image.handlers import images
from nova_lite.image import objects as image_obj
from nova_lite.image import service
from nova_lite.image import store as image_store
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)

OCTET_STREAM = 'application/octet-stream'


def is_data_upload(environ):
    """Whether a request carries image data (streamed, not read whole)."""
    path = environ.get('PATH_INFO', '').rstrip('/')
    return environ.get('REQUEST_METHOD') == 'PUT' and \
        path.startswith('/image/v2/images/') and \
        path.endswith(('/file', '/stage'))


def data_stream(req):
    """The request body as a stream: a chunked upload (glanceclient
    sends one) has no Content-Length, and is read to its end, which the
    WSGI server marks."""
    chunked = 'chunked' in req.headers.get('Transfer-Encoding', '').lower()
    if req.content_length is None and chunked:
        req.is_body_readable = True
    return req.body_file


def upload(req):
    """PUT .../file: 204; 409 unless queued, 413 past the size cap."""
    context, image = images.image_for(req, 'images:write')
    service.check_owner(context, image, 'upload data to')
    content_type = (req.content_type or '').split(';')[0].strip()
    if content_type != OCTET_STREAM:
        raise webob.exc.HTTPUnsupportedMediaType(
            'Unsupported Content-Type: %s. Use %s.'
            % (content_type or 'none', OCTET_STREAM))
    if image['status'] != 'queued':
        raise webob.exc.HTTPConflict(
            'Image status transition from %s to saving is not allowed'
            % image['status'])
    if not (image['disk_format'] and image['container_format']):
        raise webob.exc.HTTPBadRequest(
            'Properties disk_format, container_format must be set prior '
            'to saving data.')
    try:
        image_obj.Image.update(context, image['id'], {'status': 'saving'},
                               expected_status=('queued',))
    except exception.Conflict:
        raise webob.exc.HTTPConflict(
            'Image status transition to saving is not allowed: another '
            'upload is in progress')
    conf = util.conf(req)
    try:
        stored = image_store.write(conf, image['id'], data_stream(req),
                                   conf.image_catalog.image_size_cap)
    except image_store.TooLarge:
        _back_to_queued(context, image['id'])
        raise webob.exc.HTTPRequestEntityTooLarge(
            'The incoming image is too large: it exceeds the image size '
            'cap of %d bytes.' % conf.image_catalog.image_size_cap)
    except BaseException:
        _back_to_queued(context, image['id'])
        raise
    try:
        image_obj.Image.update(context, image['id'], {
            'status': 'active', 'size': stored.size,
            'checksum': stored.checksum,
            'os_hash_algo': stored.os_hash_algo,
            'os_hash_value': stored.os_hash_value})
    except exception.ImageRecordNotFound:
        # Deleted while its data came in: drop the data, 410 as Glance.
        image_store.delete(conf, image['id'])
        raise webob.exc.HTTPGone(
            'Image %s could not be found after upload. The image may have '
            'been deleted during the upload.' % image['id'])
    LOG.info('Image %s: %d bytes stored', image['id'], stored.size)
    return util.no_content()


def _back_to_queued(context, image_id):
    try:
        image_obj.Image.update(context, image_id, {'status': 'queued'})
    except exception.ImageRecordNotFound:
        pass


def download(req):
    """GET .../file: the data (200, ``Content-MD5``) or the part a
    ``Range`` asks for (206); 204 when the image has none."""
    context, image = images.image_for(req)
    conf = util.conf(req)
    if image['status'] == 'deactivated' and not context.is_admin:
        raise webob.exc.HTTPForbidden(
            'The requested image has been deactivated. Image data download '
            'is prohibited.')
    cached = image_cache.enabled(conf) and \
        image_cache.is_cached(conf, image['id'])
    if image['catalog'] or \
            image['status'] not in ('active', 'deactivated') or \
            not (cached or image_store.exists(conf, image['id'])):
        return util.no_content()
    size = image['size'] or 0
    start, stop = 0, size
    wanted = req.range
    if wanted is not None:
        part = wanted.range_for_length(size)
        if part is None:
            response = webob.Response(status=416)
            response.headers['Content-Range'] = 'bytes */%d' % size
            return response
        start, stop = part
    body = None
    if cached:
        body = image_cache.read(conf, image['id'], start, stop - start)
    try:
        body = body or image_store.chunks(conf, image['id'], start,
                                          stop - start)
    except OSError:
        return util.no_content()
    response = webob.Response(status=200 if wanted is None else 206,
                              content_type=OCTET_STREAM)
    response.charset = None
    response.app_iter = body
    response.content_length = stop - start
    if wanted is not None:
        response.headers['Content-Range'] = 'bytes %d-%d/%d' % (
            start, stop - 1, size)
    elif image['checksum']:
        response.headers['Content-MD5'] = image['checksum']
    return response
