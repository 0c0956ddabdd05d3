"""nova_lite's own image catalog, from ``[image_catalog]``.

nova_lite has no image service: images are configured entries (a default
cirros-like image, plus a JSON file of entries with ``id``, ``name`` and
``properties`` such as ``hw_architecture``). The compute API reads them
to validate ``imageRef`` and pass the properties to the scheduler; the
read-only Image API v2 under ``/image`` shows them
(:mod:`nova_lite.api.image_catalog`).
"""

import json

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import conf as nl_conf

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


def find(ref, conf=None):
    """The entry whose id or name is ``ref``, or None."""
    for entry in entries(conf):
        if ref in (entry.get('id'), entry.get('name')):
            return entry
    return None
