"""The images servers boot from: the configured catalog and the image store.

Two sources, one lookup (:func:`find`):

* configured entries of ``[image_catalog]`` (a default cirros-like image,
  plus a JSON file of entries with ``id``, ``name`` and ``properties``
  such as ``hw_architecture``), read-only and always there;
* the images created through the image API under ``/image`` and the
  server snapshots, in the API database
  (:class:`nova_lite.image.objects.Image`).

The compute API reads them to validate ``imageRef`` and pass the
properties to the scheduler (ImagePropertiesFilter); the super conductor
reads the snapshot an offloaded server unshelves from. Both run where the
API database is.
"""

import json

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import objects as image_obj

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


def _default_image(group):
    return {'id': group.default_image_uuid, 'name': group.default_image_name,
            'size': group.default_image_size,
            'min_disk': group.default_image_min_disk,
            'min_ram': group.default_image_min_ram,
            'properties': dict(group.default_image_properties)}


def _file_images(path):
    try:
        with open(path) as f:
            entries = json.load(f)
    except (OSError, ValueError) as exc:
        LOG.error('Cannot read the image catalog file %s: %s', path, exc)
        return []
    images = []
    for entry in entries if isinstance(entries, list) else []:
        if not (isinstance(entry, dict) and uuidutils.is_uuid_like(
                entry.get('id')) and entry.get('name')):
            LOG.error('Image catalog entry skipped (needs a uuid id and a '
                      'name): %r', entry)
            continue
        images.append(entry)
    return images


def entries(conf=None):
    """Every catalog entry (dicts with id, name, properties, ...)."""
    group = (conf or CONF).image_catalog
    found = [_default_image(group)] if group.include_default_image else []
    if group.images_file:
        found.extend(_file_images(group.images_file))
    return found


def find_entry(image_id, conf=None):
    """The configured entry whose id is ``image_id``, or None."""
    for entry in entries(conf):
        if entry.get('id') == image_id:
            return entry
    return None


def _stored_entry(record):
    """A stored image in the catalog's entry form."""
    return {'id': record.uuid, 'name': record.name, 'size': record.size,
            'min_disk': record.min_disk, 'min_ram': record.min_ram,
            'disk_format': record.disk_format,
            'container_format': record.container_format,
            'status': record.status, 'owner': record.owner,
            'visibility': record.visibility, 'checksum': record.checksum,
            'properties': dict(record.properties)}


def find(ref, conf=None):
    """The image whose id or name is ``ref`` (a configured entry first,
    then a stored image), or None."""
    for entry in entries(conf):
        if ref in (entry.get('id'), entry.get('name')):
            return entry
    context = nl_context.get_admin_context()
    if uuidutils.is_uuid_like(ref):
        try:
            return _stored_entry(image_obj.Image.get(context, ref))
        except exception.ImageRecordNotFound:
            return None
    named = [r for r in image_obj.Image.get_all(context) if r.name == ref]
    return _stored_entry(named[0]) if len(named) == 1 else None
