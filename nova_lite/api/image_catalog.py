"""The image catalog (:mod:`nova_lite.image_catalog`) as Glance v2 shows it.

The compute API serves the catalog as a read-only Image API v2 under
``/image``. Every image comes back as a dict shaped like a Glance v2
image, with its properties as top-level keys.
"""

from nova_lite import image_catalog as catalog

CREATED_AT = '2026-01-01T00:00:00Z'
_CORE_KEYS = ('id', 'name', 'size', 'min_disk', 'min_ram', 'disk_format',
              'container_format', 'os_hidden', 'visibility', 'properties',
              'status', 'owner', 'protected', 'checksum', 'tags')


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
    return [glance_view(entry) for entry in catalog.entries(conf)]


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
