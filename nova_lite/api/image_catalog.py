"""nova_lite's image catalog: the images ``[image_catalog]`` configures.

nova_lite has no image service; the catalog is configuration (a default
cirros-like image with a fixed uuid plus a JSON file of more images).
The compute API serves it as a read-only Image API v2 under ``/image``
and the boot path looks images up here. Every image comes back as a dict
shaped like a Glance v2 image, with its properties as top-level keys.
"""

import json

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import conf as nl_conf

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

CREATED_AT = '2026-01-01T00:00:00Z'
_CORE_KEYS = ('id', 'name', 'size', 'min_disk', 'min_ram', 'disk_format',
              'container_format', 'os_hidden', 'visibility', 'properties',
              'status', 'owner', 'protected', 'checksum', 'tags')


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


def glance_view(entry):
    """A catalog entry in the Image API v2 representation."""
    image = {
        'id': entry['id'], 'name': entry['name'], 'status': 'active',
        'visibility': entry.get('visibility', 'public'),
        'protected': bool(entry.get('protected', False)),
        'os_hidden': bool(entry.get('os_hidden', False)),
        'checksum': entry.get('checksum'), 'os_hash_algo': None,
        'os_hash_value': None, 'owner': entry.get('owner'),
        'size': entry.get('size', 0), 'virtual_size': None,
        'min_disk': entry.get('min_disk', 0),
        'min_ram': entry.get('min_ram', 0),
        'disk_format': entry.get('disk_format', 'qcow2'),
        'container_format': entry.get('container_format', 'bare'),
        'created_at': CREATED_AT, 'updated_at': CREATED_AT,
        'tags': list(entry.get('tags', [])),
        'self': '/v2/images/%s' % entry['id'],
        'file': '/v2/images/%s/file' % entry['id'],
        'schema': '/v2/schemas/image',
    }
    for key, value in (entry.get('properties') or {}).items():
        if key not in image:
            image[key] = value
    for key, value in entry.items():
        if key not in _CORE_KEYS and key not in image:
            image[key] = value
    return image


def list_images(conf=None):
    """Every image of the catalog, in the Image API v2 representation."""
    group = (conf or CONF).image_catalog
    entries = [_default_image(group)] if group.include_default_image else []
    if group.images_file:
        entries.extend(_file_images(group.images_file))
    return [glance_view(entry) for entry in entries]


def get_image(image_id, conf=None):
    """The image with id ``image_id`` (None when there is none)."""
    for image in list_images(conf):
        if image['id'] == image_id:
            return image
    return None


def find_image(ref, conf=None):
    """The image whose id or name is ``ref`` (None when there is none)."""
    for image in list_images(conf):
        if ref in (image['id'], image['name']):
            return image
    return None
