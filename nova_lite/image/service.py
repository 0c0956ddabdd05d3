"""The image service's rules, as Glance v2 applies them.

Two kinds of images answer under ``/image/v2/images``: the configured
catalog (:mod:`nova_lite.image.catalog`: public, active, read-only, always
there for the labs to boot) and the images users create, stored in the API
database (:class:`nova_lite.image.objects.Image`) with their data under
``[image_catalog] store_path`` (:mod:`nova_lite.image.store`).

Both are handled here as one internal form, a dict with Glance's core
attributes (``id``, ``status``...), ``properties`` and ``tags``, and
``catalog`` saying which kind it is. What a caller may see and do follows
Glance:

* an admin sees every image; anyone sees public and community images,
  their own project's, and shared ones their project is a member of;
* a listing without a ``visibility`` filter leaves out community images
  of other projects and shared ones not accepted (``member_status``);
* only the owner (or an admin) changes or deletes an image, only an
  admin makes one public, a protected image cannot be deleted.
"""

from oslo_utils import timeutils
import webob.exc

from nova_lite import exception
from nova_lite.image import cache as image_cache
from nova_lite.image import catalog
from nova_lite.image import objects as image_obj
from nova_lite.image import schemas
from nova_lite.image import store as image_store

VISIBILITIES = schemas.VISIBILITIES
MEMBER_STATUSES = schemas.MEMBER_STATUSES
DISK_FORMATS = schemas.DISK_FORMATS
CONTAINER_FORMATS = schemas.CONTAINER_FORMATS
# Attributes the server sets: 403 when a request tries to.
READ_ONLY = ('status', 'size', 'virtual_size', 'checksum', 'os_hash_algo',
             'os_hash_value', 'created_at', 'updated_at', 'self', 'file',
             'schema', 'direct_url', 'locations', 'stores')
RESERVED = ('location', 'deleted', 'deleted_at', 'owner_id')
# Core attributes a request may set.
SETTABLE = ('id', 'name', 'visibility', 'protected', 'os_hidden', 'owner',
            'disk_format', 'container_format', 'min_disk', 'min_ram',
            'tags')
CORE = ('id', 'name', 'status', 'visibility', 'protected', 'os_hidden',
        'owner', 'size', 'virtual_size', 'disk_format', 'container_format',
        'min_disk', 'min_ram', 'checksum', 'os_hash_algo', 'os_hash_value',
        'tags', 'created_at', 'updated_at')
CATALOG_TIME = '2026-01-01T00:00:00Z'
_CATALOG_CORE = ('id', 'name', 'size', 'min_disk', 'min_ram', 'disk_format',
                 'container_format', 'os_hidden', 'visibility', 'properties',
                 'status', 'owner', 'protected', 'checksum', 'tags')


def _isotime(value):
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return timeutils.normalize_time(value).strftime('%Y-%m-%dT%H:%M:%SZ')


def _sort_time(value):
    """A time as the sort keys of a listing compare it: to the
    microsecond the database keeps, where the view shows seconds (two
    backups taken within a second, as the fake driver takes them, must
    list and rotate in the order they were made)."""
    if value is None:
        return None
    return timeutils.normalize_time(value).strftime('%Y-%m-%dT%H:%M:%S.%fZ')


CATALOG_SORT_TIME = _sort_time(timeutils.parse_isotime(CATALOG_TIME))


# -- the internal form --------------------------------------------------------

def _from_catalog(entry):
    properties = dict(entry.get('properties') or {})
    for key, value in entry.items():
        if key not in _CATALOG_CORE:
            properties.setdefault(key, value)
    return {
        'id': entry['id'], 'name': entry['name'], 'status': 'active',
        'visibility': entry.get('visibility', 'public'),
        'protected': bool(entry.get('protected', False)),
        'os_hidden': bool(entry.get('os_hidden', False)),
        'owner': entry.get('owner'), 'size': entry.get('size', 0),
        'virtual_size': None, 'checksum': entry.get('checksum'),
        'os_hash_algo': None, 'os_hash_value': None,
        'disk_format': entry.get('disk_format', 'qcow2'),
        'container_format': entry.get('container_format', 'bare'),
        'min_disk': entry.get('min_disk', 0),
        'min_ram': entry.get('min_ram', 0),
        'tags': list(entry.get('tags', [])),
        'created_at': CATALOG_TIME, 'updated_at': CATALOG_TIME,
        'sort_times': {'created_at': CATALOG_SORT_TIME,
                       'updated_at': CATALOG_SORT_TIME},
        'properties': properties, 'catalog': True}


def _from_record(record):
    image = {name: getattr(record, name) for name in image_obj.IMAGE_FIELDS}
    image['id'] = image.pop('uuid')
    image['sort_times'] = {
        'created_at': _sort_time(image['created_at']),
        'updated_at': _sort_time(image['updated_at'] or
                                 image['created_at'])}
    image['created_at'] = _isotime(image['created_at'])
    image['updated_at'] = _isotime(image['updated_at']) or \
        image['created_at']
    image['catalog'] = False
    return image


def view(image):
    """An image in Glance v2's representation (properties at the top)."""
    body = {name: image[name] for name in CORE}
    body.update(self='/v2/images/%s' % image['id'],
                file='/v2/images/%s/file' % image['id'],
                schema='/v2/schemas/image')
    for key, value in image['properties'].items():
        body.setdefault(key, value)
    return body


# -- reads -----------------------------------------------------------------

def all_images(context, conf):
    """Every image, catalog first, in the internal form."""
    images = [_from_catalog(e) for e in catalog.entries(conf)]
    seen = {i['id'] for i in images}
    images.extend(i for i in (_from_record(r) for r in
                              image_obj.Image.get_all(context))
                  if i['id'] not in seen)
    return images


def member_statuses(context):
    """{image id: status} of the images shared with the caller's
    project."""
    if not context.project_id:
        return {}
    return image_obj.ImageMember.statuses_of(context, context.project_id)


def can_see(context, image, statuses):
    if context.is_admin or image['visibility'] in ('public', 'community'):
        return True
    if image['owner'] and image['owner'] == context.project_id:
        return True
    return image['visibility'] == 'shared' and image['id'] in statuses


def get(context, conf, image_id):
    """The image ``image_id`` if the caller may see it; 404 otherwise."""
    entry = catalog.find_entry(image_id, conf)
    if entry is not None:
        return _from_catalog(entry)
    try:
        image = _from_record(image_obj.Image.get(context, image_id))
    except exception.ImageRecordNotFound:
        image = None
    if image is None or not can_see(context, image,
                                    member_statuses(context)):
        raise webob.exc.HTTPNotFound('No image found with ID %s' % image_id)
    return image


def destroy(context, conf, image_id):
    """Remove a stored image's record, then its data; False when the
    record was already gone (a concurrent delete), and nothing is done."""
    try:
        image_obj.Image.destroy(context, image_id)
    except exception.ImageRecordNotFound:
        return False
    image_store.delete(conf, image_id)
    if image_cache.enabled(conf):
        image_cache.delete(conf, image_id)
    return True


def check_owner(context, image, action='modify'):
    """403 unless the caller owns ``image`` (or is an admin); a catalog
    image is configuration, changed in [image_catalog] only."""
    if image['catalog']:
        raise webob.exc.HTTPForbidden(
            'Image %s is configured in [image_catalog]: it cannot be %s '
            'through the API.' % (image['id'], {
                'modify': 'modified', 'delete': 'deleted'}.get(
                    action, 'changed')))
    if context.is_admin or (image['owner'] and
                            image['owner'] == context.project_id):
        return
    raise webob.exc.HTTPForbidden(
        'You are not permitted to %s this image.' % action)


def listed(context, images, visibility, member_status):
    """The images a listing shows, before the other filters."""
    statuses = member_statuses(context)
    own = context.project_id

    def shared_ok(image):
        if image['owner'] and image['owner'] == own:
            return True
        status = statuses.get(image['id'])
        if status is None:
            return context.is_admin and member_status == 'all'
        return member_status in ('all', status)

    result = []
    for image in images:
        if not can_see(context, image, statuses):
            continue
        vis = image['visibility']
        if visibility not in (None, 'all') and vis != visibility:
            continue
        if vis == 'shared' and not context.is_admin and not shared_ok(image):
            continue
        if vis == 'community' and visibility is None and \
                not context.is_admin and image['owner'] != own:
            continue
        result.append(image)
    return result


# -- validation ------------------------------------------------------------

def _bad(message):
    raise webob.exc.HTTPBadRequest(message)


def check_value(name, value):
    """400 unless ``value`` is valid for the core attribute ``name``, by
    the image schema the service publishes (:mod:`.schemas`)."""
    schemas.check_attribute_value(name, value)


def check_attribute(name):
    """403 for attributes no request may set."""
    if name in READ_ONLY:
        raise webob.exc.HTTPForbidden("Attribute '%s' is read-only." % name)
    if name in RESERVED or name.startswith('os_glance'):
        raise webob.exc.HTTPForbidden("Attribute '%s' is reserved." % name)


def check_property(name, value):
    if not name or len(name) > 255:
        _bad('Invalid property name: %r.' % name)
    if not isinstance(value, str) or len(value) > 65535:
        _bad("Invalid value for property '%s': a string is required."
             % name)


def check_visibility_change(context, old, new):
    if new == 'public' and old != 'public' and not context.is_admin:
        raise webob.exc.HTTPForbidden(
            'You are not authorized to complete publicize_image action.')


def check_owner_change(context, owner):
    if owner is not None and owner != context.project_id and \
            not context.is_admin:
        raise webob.exc.HTTPForbidden(
            "You are not permitted to create images owned by '%s'."
            % owner)


def unique_tags(tags):
    """Tags in order, each once (Glance keeps a set)."""
    return list(dict.fromkeys(tags))
