"""The image service's cache: local copies of image data, as Glance's.

Under ``[image_catalog] cache_path`` (no cache when it is empty) each
cached image has its data, ``<image id>``, next to a small JSON record,
``<image id>.json`` (``size``, ``hits``, ``last_accessed``,
``last_modified``, as Glance's ``cached_images`` entries); an image
queued for caching has a marker under ``queue/``. Queueing an image
fetches it into the cache at once (the lab's prefetcher is the request
itself): the copy is written next to its final name and renamed into
place, so a reader never sees half of it, and the image leaves the
queue only once its copy is whole. A download of a cached image reads
the copy and counts a hit. Deleting an image deletes its copy.
"""

import json
import os
import time

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite.image import store

LOG = logging.getLogger(__name__)


def enabled(conf):
    return bool(conf.image_catalog.cache_path)


def _name(conf, image_id, suffix=''):
    if not uuidutils.is_uuid_like(image_id):
        raise ValueError('not an image id: %r' % image_id)
    return os.path.join(conf.image_catalog.cache_path, image_id + suffix)


def _marker(conf, image_id):
    return os.path.join(conf.image_catalog.cache_path, 'queue',
                        os.path.basename(_name(conf, image_id)))


def _write_json(name, record):
    partial = '%s.%s.part' % (name, uuidutils.generate_uuid())
    with open(partial, 'w') as out:
        json.dump(record, out)
    os.replace(partial, name)


def _record(conf, image_id):
    """The cache record of ``image_id``, None when it is not cached."""
    if not os.path.isfile(_name(conf, image_id)):
        return None
    try:
        with open(_name(conf, image_id, '.json')) as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    record['image_id'] = image_id
    return record


def is_cached(conf, image_id):
    return _record(conf, image_id) is not None


def cached(conf):
    """Glance's ``cached_images``: a record per cached image."""
    if not os.path.isdir(conf.image_catalog.cache_path):
        return []
    records = [_record(conf, name[:-5])
               for name in sorted(os.listdir(conf.image_catalog.cache_path))
               if name.endswith('.json') and
               uuidutils.is_uuid_like(name[:-5])]
    return [r for r in records if r is not None]


def queued(conf):
    """Glance's ``queued_images``: the ids waiting to be cached."""
    directory = os.path.join(conf.image_catalog.cache_path, 'queue')
    if not os.path.isdir(directory):
        return []
    return sorted(name for name in os.listdir(directory)
                  if uuidutils.is_uuid_like(name))


def queue(conf, image_id):
    """Queue ``image_id``, then fetch it into the cache; it stays queued
    when its data cannot be read."""
    marker = _marker(conf, image_id)
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    with open(marker, 'a'):
        pass
    if is_cached(conf, image_id):
        os.unlink(marker)
        return
    try:
        size = _fetch(conf, image_id)
    except OSError as error:
        LOG.warning('Image %s stays queued for caching: %s', image_id, error)
        return
    os.unlink(marker)
    LOG.info('Image %s cached (%d bytes)', image_id, size)


def _fetch(conf, image_id):
    final = _name(conf, image_id)
    partial = '%s.%s.part' % (final, uuidutils.generate_uuid())
    size = 0
    try:
        with open(partial, 'wb') as out:
            for chunk in store.chunks(conf, image_id):
                size += len(chunk)
                out.write(chunk)
        os.replace(partial, final)
    except BaseException:
        _remove(partial)
        raise
    now = time.time()
    _write_json(_name(conf, image_id, '.json'), {
        'size': size, 'hits': 0, 'last_accessed': now,
        'last_modified': now})
    return size


def read(conf, image_id, start=0, length=None):
    """The cached copy of ``image_id`` (``length`` bytes from ``start``),
    counting a hit; None when it is not cached."""
    record = _record(conf, image_id)
    if record is None:
        return None
    try:
        body = store.read_file(_name(conf, image_id), start, length)
    except OSError:
        return None
    record.pop('image_id')
    record.update(hits=record['hits'] + 1, last_accessed=time.time())
    _write_json(_name(conf, image_id, '.json'), record)
    return body


def delete(conf, image_id):
    """Drop ``image_id`` from the cache and the queue; False when it was
    in neither."""
    found = [_remove(name) for name in (
        _name(conf, image_id, '.json'), _name(conf, image_id),
        _marker(conf, image_id))]
    if any(found):
        LOG.info('Image %s removed from the image cache', image_id)
    return any(found)


def clear(conf, copies=True, waiting=True):
    """Empty the cache (``copies``), the queue (``waiting``) or both:
    {what: how many went}."""
    gone = {}
    if copies:
        gone['cache_deleted'] = sum(
            bool(delete(conf, r['image_id'])) for r in cached(conf))
    if waiting:
        gone['queue_deleted'] = sum(
            _remove(_marker(conf, i)) for i in queued(conf))
    LOG.info('Image cache cleared: %s', gone)
    return gone


def _remove(name):
    try:
        os.unlink(name)
        return True
    except FileNotFoundError:
        return False
