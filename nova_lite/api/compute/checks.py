"""Checks of a request's values that several operations share.

Stateless and read-only: each answers whether an image, a zone, a key
pair, a host or a node named in a request exists, raising the error the
REST layer turns into a 400 when it does not. The create, unshelve,
rebuild and move operations call them; none of them changes anything.
"""

from oslo_utils import strutils

from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.image import interface as image_api
from nova_lite import objects
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.objects import host_mapping as host_mapping_obj
from nova_lite.objects import keypair as keypair_obj

CONF = nl_conf.CONF

GiB = 1024 ** 3


def get_image(image_ref, context=None):
    """The image ``image_ref`` (an id or a name) if it is active and, with
    ``context``, the caller may see it (Glance's rules, as Nova asks
    Glance with the caller's token)."""
    image = image_api.find(image_ref)
    if image is None or (context is not None and
                         not _image_visible(context, image)):
        raise exception.ImageNotFound(image_id=image_ref)
    if image.get('status', 'active') != 'active':
        raise exception.InvalidRequest(
            reason='Image %s is not active.' % image['id'])
    return image


def check_flavor_fits_image(memory_mb, root_gb, image):
    """400 in Nova's words when ``image`` asks for more memory than the
    flavor has, or is larger (or has a larger ``min_disk``) than its root
    disk; a flavor with a 0 GB root disk is not checked for disk (Nova's
    legacy reading of 0)."""
    if memory_mb < int(image.get('min_ram') or 0):
        raise exception.InvalidRequest(
            reason="Flavor's memory is too small for requested image.")
    disk = (root_gb or 0) * GiB
    if not disk:
        return
    size = int(image.get('size') or 0)
    if size > disk:
        raise exception.InvalidRequest(
            reason="Flavor's disk is too small for requested image. Flavor "
                   "disk is %d bytes, image is %d bytes." % (disk, size))
    min_disk = int(image.get('min_disk') or 0) * GiB
    if min_disk > disk:
        raise exception.InvalidRequest(
            reason="Flavor's disk is smaller than the minimum size "
                   "specified in image metadata. Flavor disk is %d bytes, "
                   "minimum size is %d bytes." % (disk, min_disk))


def auto_disk_config(image, requested=None):
    """The ``auto_disk_config`` a create or rebuild from ``image``
    gives its server, as Nova's: ``requested`` (True: ``AUTO``) when the
    caller said, else the image's own ``auto_disk_config`` property. An
    image whose property is ``disabled`` refuses ``AUTO`` (400)."""
    check_auto_disk_config(image, requested)
    if requested is None:
        return strutils.bool_from_string(_image_disk_config(image))
    return requested


def check_auto_disk_config(image, requested):
    """400 when ``requested`` is ``AUTO`` and ``image`` (None: not
    known) has automatic disk resize ``disabled``."""
    value = _image_disk_config(image)
    if requested and value is not None and \
            str(value).strip().lower() == 'disabled':
        raise exception.AutoDiskConfigDisabledByImage(image=image.get('id'))


def _image_disk_config(image):
    return ((image or {}).get('properties') or {}).get('auto_disk_config')


def config_drive(value):
    """A create's ``config_drive`` as Nova stores it: ``'True'`` or
    ``''`` (a string column)."""
    try:
        wanted = bool(value) and strutils.bool_from_string(value,
                                                            strict=True)
    except ValueError:
        raise exception.InvalidRequest(
            reason='Invalid config_drive provided.')
    return 'True' if wanted else ''


def _image_visible(context, image):
    visibility = image.get('visibility', 'public')
    if context.is_admin or visibility in ('public', 'community'):
        return True
    if image.get('owner') and image['owner'] == context.project_id:
        return True
    return visibility == 'shared' and image['id'] in \
        image_api.member_statuses(context)


def parse_availability_zone(value):
    """(zone, host, node) from ``az``, ``az:host``, ``az:host:node``,
    ``az::node``; empty parts are None."""
    if not value:
        return None, None, None
    parts = value.split(':')
    if len(parts) > 3:
        raise exception.InvalidRequest(
            reason='Invalid availability_zone %s: at most zone:host:node'
            % value)
    parts += [None] * (3 - len(parts))
    return tuple(p or None for p in parts)


def check_zone(context, zone):
    """400 unless ``zone`` is the default zone or an aggregate's."""
    if zone is None:
        return
    known = set(aggregate_obj.availability_zones_by_host(context).values())
    known.add(CONF.default_availability_zone)
    if zone not in known:
        raise exception.InvalidRequest(
            reason='The requested availability zone %s is not available'
            % zone)


def zone_of_host(context, host):
    """The availability zone ``host`` is in (its aggregate's, else the
    default one)."""
    zones = aggregate_obj.availability_zones_by_host(context)
    return zones.get(host) or CONF.default_availability_zone


def key_data(context, key_name):
    """The public key of the caller's key pair ``key_name`` (None for
    None); 400 when the caller has no such key pair."""
    if key_name is None:
        return None
    try:
        return keypair_obj.KeyPair.get_by_name(
            context, context.user_id, key_name).public_key
    except exception.KeypairNotFound:
        raise exception.InvalidRequest(reason='Invalid key_name provided.')


def host_is_mapped(context, host):
    """Whether ``host`` is a compute host mapped to a cell."""
    try:
        host_mapping_obj.HostMapping.get_by_host(context, host)
    except exception.HostMappingNotFound:
        return False
    return True


def check_host(context, host):
    """400 unless ``host`` is a mapped compute host."""
    if not host_is_mapped(context, host):
        raise exception.InvalidRequest(
            reason='Compute host %s could not be found.' % host)


def node_exists(context, host, node):
    """Whether a compute node named ``node`` (of ``host``) exists."""
    for cell in objects.CellMappingList.get_all(context).objects:
        if cell.is_cell0:
            continue
        with cells.target_cell(context, cell) as cctxt:
            for compute_node in objects.ComputeNodeList.get_all(cctxt):
                if compute_node.hypervisor_hostname == node and (
                        not host or compute_node.host == host):
                    return True
    return False
