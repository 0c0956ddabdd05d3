"""What the rest of nova_lite may use of the image service.

The compute API and the conductors reach the image service only through
this module, as Nova reaches Glance through its image API module: find
an image by reference (what a boot, rebuild, unshelve or live migration
checks), and what the compute API's image proxy (``/v2.1/images``) and a
snapshot need (list, get, check, delete, the Glance view). The service's
handlers, store and rules behind it are its own.
"""

from nova_lite.image import catalog
from nova_lite.image import objects
from nova_lite.image import policy
from nova_lite.image import service

# An image by id or name: the catalog's entries and the stored images.
find = catalog.find
# {image id: status} of the images shared with the caller's project.
member_statuses = service.member_statuses

# The proxy's reads and writes, under the image service's rules.
authorize = policy.authorize
all_images = service.all_images
listed = service.listed
get = service.get
view = service.view
check_owner = service.check_owner
check_property = service.check_property
destroy = service.destroy


def create(context, values):
    """A new stored image (``queued``, no data yet): a snapshot's, whose
    data the compute uploads."""
    return objects.Image.create(context, values)


def set_properties(context, image_id, properties):
    """Replace an image's properties (the caller checked it may)."""
    return objects.Image.update(context, image_id,
                                {'properties': properties})
