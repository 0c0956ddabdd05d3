"""Interoperable image import and tasks under ``/image/v2``.

``GET /v2/info/import`` and ``/v2/info/stores`` say what the service
offers (two import methods, one store); ``PUT .../stage`` keeps data for
a later ``glance-direct`` import (the image goes ``uploading``);
``POST .../import`` starts an import (202), run by
:mod:`nova_lite.image.importer`; ``/v2/tasks`` are the records of the
imports (admins only, as Glance's default policy has it), ``POST
/v2/tasks`` the older task-based import (``type: import``).
"""

from oslo_log import log as logging
import webob.exc

from nova_lite import exception
from nova_lite.image.handlers import image_data
from nova_lite.image.handlers import images
from nova_lite.image import importer
from nova_lite.image import objects as image_obj
from nova_lite.image import service
from nova_lite.image import store as image_store
from nova_lite.image import tasks as image_tasks
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)

OCTET_STREAM = 'application/octet-stream'


def info_import(req):
    """GET /image/v2/info/import: the enabled import methods."""
    util.context(req)
    return util.json_response({'import-methods': {
        'description': 'Import methods available.', 'type': 'array',
        'value': list(importer.METHODS)}})


def info_stores(req):
    """GET /image/v2/info/stores: the one store, the default."""
    util.context(req)
    return util.json_response({'stores': [{
        'id': importer.STORE_ID, 'default': 'true',
        'description': 'Files under [image_catalog] store_path.'}]})


# -- stage --------------------------------------------------------------------

def stage(req):
    """PUT /image/v2/images/{image_id}/stage: 204; the image goes
    ``uploading`` (409 unless queued), back to ``queued`` on failure."""
    context, image = images.image_for(req, 'images:write')
    service.check_owner(context, image, 'stage data for')
    content_type = (req.content_type or '').split(';')[0].strip()
    if content_type != OCTET_STREAM:
        raise webob.exc.HTTPUnsupportedMediaType(
            'Unsupported Content-Type: %s. Use %s.'
            % (content_type or 'none', OCTET_STREAM))
    try:
        image_obj.Image.update(context, image['id'], {'status': 'uploading'},
                               expected_status=('queued',))
    except exception.Conflict:
        raise webob.exc.HTTPConflict(
            'Image status transition from %s to uploading is not allowed'
            % image['status'])
    conf = util.conf(req)
    try:
        image_store.write(conf, image['id'], image_data.data_stream(req),
                          conf.image_catalog.image_size_cap, staging=True)
    except image_store.TooLarge:
        _back_to_queued(context, image['id'])
        raise webob.exc.HTTPRequestEntityTooLarge(
            'The staged data exceeds the image size cap of %d bytes.'
            % conf.image_catalog.image_size_cap)
    except BaseException:
        _back_to_queued(context, image['id'])
        raise
    return util.no_content()


def _back_to_queued(context, image_id):
    try:
        image_obj.Image.update(context, image_id, {'status': 'queued'})
    except exception.ImageRecordNotFound:
        pass


# -- import -------------------------------------------------------------------

def _method(body):
    method = body.get('method')
    name = method.get('name') if isinstance(method, dict) else None
    if name not in importer.METHODS:
        raise webob.exc.HTTPBadRequest(
            'Import method %r is not one of: %s.'
            % (name, ', '.join(importer.METHODS)))
    if name == 'web-download' and not importer.check_uri(method.get('uri')):
        raise webob.exc.HTTPBadRequest(
            'URI for web-download does not pass filtering: %s'
            % method.get('uri'))
    stores = body.get('stores')
    if stores is not None and stores != [importer.STORE_ID]:
        raise webob.exc.HTTPConflict('Unknown store(s): %s.' % stores)
    return name


def _check_importable(image, method):
    if image['properties'].get(importer.LOCK) and \
            image['status'] == 'importing':
        raise webob.exc.HTTPConflict(
            "New operation on image '%s' is not permitted as prior "
            "operation is still in progress" % image['id'])
    if image['status'] == 'active':
        raise webob.exc.HTTPConflict(
            'Image with status active cannot be target for import')
    if method == 'web-download' and image['status'] != 'queued':
        raise webob.exc.HTTPConflict(
            "Image needs to be in 'queued' state to use 'web-download' "
            "method")
    if method == 'glance-direct' and image['status'] != 'uploading':
        raise webob.exc.HTTPConflict(
            "Image needs to be staged before 'glance-direct' method can "
            "be used")
    for attr in ('container_format', 'disk_format'):
        if not image[attr]:
            raise webob.exc.HTTPConflict(
                "'%s' needs to be set before import" % attr)


def import_image(req):
    """POST /image/v2/images/{image_id}/import: 202, the import runs."""
    context, image = images.image_for(req, 'images:write')
    body = images._json_object(req)
    method = _method(body)
    service.check_owner(context, image, 'import data to')
    _check_importable(image, method)
    try:
        task = importer.start(util.conf(req), context, image, method, body)
    except exception.Conflict:
        raise webob.exc.HTTPConflict(
            'Image %s changed status while its import began.'
            % image['id'])
    except exception.ImageRecordNotFound:
        raise webob.exc.HTTPNotFound('No image found with ID %s'
                                     % image['id'])
    LOG.info('Image %s: %s import started (task %s)', image['id'], method,
             task['id'])
    return util.no_content(202)


# -- tasks --------------------------------------------------------------------

def _tasks_ctx(req):
    return images._ctx(req, 'images:tasks')


def list_tasks(req):
    """GET /image/v2/tasks: newest first, ``status``/``type`` filters."""
    context = _tasks_ctx(req)
    found = [t for t in image_tasks.all_tasks(util.conf(req))
             if context.is_admin or t['owner'] == context.project_id]
    for key in ('status', 'type'):
        if key in req.GET:
            found = [t for t in found if t[key] == req.GET[key]]
    body = [image_tasks.view(t) for t in found]
    for task in body:
        task.pop('input')
        task.pop('result')
    return util.json_response({'tasks': body, 'first': '/v2/tasks',
                               'schema': '/v2/schemas/tasks'})


def show_task(req):
    """GET /image/v2/tasks/{task_id}."""
    context = _tasks_ctx(req)
    try:
        task = image_tasks.get(util.conf(req), req.urlvars['task_id'])
    except KeyError:
        task = None
    if task is None or not (context.is_admin or
                            task['owner'] == context.project_id):
        raise webob.exc.HTTPNotFound(
            'Task with the given ID %s was not found'
            % req.urlvars['task_id'])
    return util.json_response(image_tasks.view(task, with_image=True))


def create_task(req):
    """POST /image/v2/tasks (``type: import``): a new image whose data
    the task downloads from ``input.import_from``; 201, the task."""
    context = _tasks_ctx(req)
    body = images._json_object(req)
    if body.get('type') != 'import':
        raise webob.exc.HTTPBadRequest(
            "Invalid type value: %s. The task type must be 'import'."
            % body.get('type'))
    task_input = body.get('input')
    if not isinstance(task_input, dict) or not importer.check_uri(
            task_input.get('import_from')) or not isinstance(
                task_input.get('image_properties', {}), dict):
        raise webob.exc.HTTPBadRequest(
            "Input needs 'import_from' (an http(s) URL), "
            "'import_from_format' and 'image_properties'.")
    properties = dict(task_input.get('image_properties', {}))
    properties.setdefault('disk_format',
                          task_input.get('import_from_format'))
    properties.setdefault('container_format', 'bare')
    conf = util.conf(req)
    values = images.new_image_values(context, conf, properties)
    image = service._from_record(images.store_new_image(context, values))
    request = {'method': {'name': 'web-download',
                          'uri': task_input['import_from']}}
    task = importer.start(conf, context, image, 'web-download', request,
                          task_type='import', task_input=task_input)
    return util.json_response(image_tasks.view(task), status=201)
