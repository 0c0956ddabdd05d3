"""Interoperable image import: ``glance-direct`` and ``web-download``.

As Glance runs them: the import request records a task
(:mod:`.tasks`), takes the image's import lock (the
``os_glance_import_task`` property), moves it to ``importing`` and
answers at once; a thread then copies the data into the store -- from
the staging area (``glance-direct``, after ``PUT .../stage``) or from
an http(s) URL (``web-download``) -- and the image becomes ``active``,
or goes back to ``queued`` with ``os_glance_failed_import`` set when the
copy fails. The lab lives on loopback, so any http(s) host and port is
allowed; a download is bounded by ``[image_catalog] image_size_cap``, a
per-read timeout and an overall deadline.
"""

import threading
import time
import urllib.parse
import urllib.request

from oslo_log import log as logging

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import objects as image_obj
from nova_lite.image import store as image_store
from nova_lite.image import tasks

LOG = logging.getLogger(__name__)

METHODS = ('glance-direct', 'web-download')
STORE_ID = 'local'
TASK_TYPE = 'api_image_import'
LOCK = 'os_glance_import_task'
FAILED = 'os_glance_failed_import'
# A web-download's bounds besides the size cap: each read, the whole.
READ_TIMEOUT_S = 30
DEADLINE_S = 3600


class ImportFailed(Exception):
    """The data could not be brought in (the task's message)."""


def check_uri(uri):
    """Whether ``uri`` is one web-download may fetch (http or https,
    with a host)."""
    if not isinstance(uri, str):
        return False
    parts = urllib.parse.urlsplit(uri)
    return parts.scheme in ('http', 'https') and bool(parts.hostname)


def start(conf, context, image, method, body, task_type=TASK_TYPE,
          task_input=None):
    """Record the task, lock and mark the image ``importing``, and run
    the import in a thread; the task. Conflict when another request
    changed the image first."""
    if task_input is None:
        task_input = {'image_id': image['id'], 'import_req': body,
                      'backend': [STORE_ID]}
    task = tasks.create(conf, context, task_type, task_input,
                        image_id=image['id'])
    properties = dict(image['properties'])
    properties[LOCK] = task['id']
    properties.pop(FAILED, None)
    try:
        image_obj.Image.update(context, image['id'], {
            'status': 'importing', 'properties': properties},
            expected_status=(image['status'],))
    except (exception.Conflict, exception.ImageRecordNotFound):
        tasks.update(conf, task['id'], status='failure',
                     message='The image changed before its import began.')
        raise
    uri = body['method'].get('uri')
    thread = threading.Thread(
        target=run, args=(conf, image['id'], task['id'], method, uri),
        name='image-import-%s' % image['id'], daemon=True)
    thread.start()
    return task


class _Bounded:
    """A response read under an overall deadline."""

    def __init__(self, response, deadline):
        self.response = response
        self.deadline = deadline

    def read(self, size=-1):
        if time.monotonic() > self.deadline:
            raise ImportFailed('The download took longer than %d seconds.'
                               % DEADLINE_S)
        return self.response.read(size)


def _open(conf, image_id, method, uri):
    if method == 'glance-direct':
        try:
            return open(image_store.staging_path(conf, image_id), 'rb')
        except OSError:
            raise ImportFailed('No staged data for image %s.' % image_id)
    try:
        response = urllib.request.urlopen(uri, timeout=READ_TIMEOUT_S)
    except (OSError, ValueError) as exc:
        raise ImportFailed('Cannot download %s: %s' % (uri, exc))
    return _Bounded(response, time.monotonic() + DEADLINE_S)


def _copy(conf, image_id, method, uri):
    source = _open(conf, image_id, method, uri)
    try:
        return image_store.write(conf, image_id, source,
                                 conf.image_catalog.image_size_cap)
    except image_store.TooLarge:
        raise ImportFailed('The image exceeds the size cap of %d bytes.'
                           % conf.image_catalog.image_size_cap)
    except OSError as exc:
        raise ImportFailed('Cannot read the image data: %s' % exc)
    finally:
        closer = getattr(source, 'close', None) or getattr(
            getattr(source, 'response', None), 'close', None)
        if closer:
            closer()


def _finish(context, image_id, values, drop=(LOCK,), add=None):
    record = image_obj.Image.get(context, image_id)
    properties = dict(record.properties)
    for key in drop:
        properties.pop(key, None)
    properties.update(add or {})
    values['properties'] = properties
    image_obj.Image.update(context, image_id, values)


def run(conf, image_id, task_id, method, uri):
    """The import thread: copy, then activate (or revert) the image and
    end the task."""
    context = nl_context.get_admin_context()
    tasks.update(conf, task_id, status='processing')
    try:
        stored = _copy(conf, image_id, method, uri)
    except Exception as exc:
        message = str(exc) if isinstance(exc, ImportFailed) else \
            'Import failed: %s' % exc
        LOG.warning('Import of image %s failed: %s', image_id, message)
        image_store.delete(conf, image_id)
        try:
            _finish(context, image_id, {'status': 'queued'},
                    add={FAILED: STORE_ID})
        except exception.ImageRecordNotFound:
            pass
        tasks.update(conf, task_id, status='failure', message=message)
        return
    try:
        _finish(context, image_id, {
            'status': 'active', 'size': stored.size,
            'checksum': stored.checksum,
            'os_hash_algo': stored.os_hash_algo,
            'os_hash_value': stored.os_hash_value},
            drop=(LOCK, 'os_glance_stage_host'))
    except exception.ImageRecordNotFound:
        image_store.delete(conf, image_id)
        tasks.update(conf, task_id, status='failure',
                     message='The image was deleted during its import.')
        return
    image_store._remove(image_store.staging_path(conf, image_id))
    LOG.info('Image %s imported (%s): %d bytes', image_id, method,
             stored.size)
    tasks.update(conf, task_id, status='success',
                 result={'image_id': image_id})
