"""Image and ImageMember: the image service's records in the API database.

Read and written by the image service under ``/image``; the compute API
and the super conductor reach them through :mod:`.interface`, the
computes over HTTP (:mod:`nova_lite.clients.image`), as Nova's computes
reach Glance.
"""

from nova_lite.db.api import image_api
from nova_lite.objects import record

# Glance v2's core attributes, as the columns of an image row.
IMAGE_FIELDS = ('uuid', 'name', 'status', 'visibility', 'protected',
                'os_hidden', 'owner', 'size', 'virtual_size', 'disk_format',
                'container_format', 'min_disk', 'min_ram', 'checksum',
                'os_hash_algo', 'os_hash_value', 'properties', 'tags',
                'created_at', 'updated_at')


class Image(record.Record):
    """One image; ``properties`` a dict, ``tags`` a list."""

    FIELDS = IMAGE_FIELDS

    @classmethod
    def _from_row(cls, context, row):
        image = super()._from_row(context, row)
        image.properties = dict(image.properties or {})
        image.tags = list(image.tags or [])
        return image

    @classmethod
    def get(cls, context, image_id):
        """The image ``image_id`` (ImageRecordNotFound)."""
        return cls._from_row(context, image_api.image_get(context, image_id))

    @classmethod
    def get_all(cls, context):
        return cls._from_rows(context, image_api.image_get_all(context))

    @classmethod
    def create(cls, context, values):
        """A new image (ImageRecordExists on a taken id)."""
        return cls._from_row(context, image_api.image_create(context, values))

    @classmethod
    def update(cls, context, image_id, values, expected_status=None):
        """The image with ``values`` written (Conflict when its status is
        not one of ``expected_status``)."""
        return cls._from_row(context, image_api.image_update(
            context, image_id, values, expected_status))

    @classmethod
    def destroy(cls, context, image_id):
        image_api.image_destroy(context, image_id)


class ImageMember(record.Record):
    """A project an image is shared with."""

    FIELDS = ('image_uuid', 'member', 'status', 'created_at', 'updated_at')

    @classmethod
    def get(cls, context, image_id, member):
        return cls._from_row(context, image_api.member_get(
            context, image_id, member))

    @classmethod
    def get_all(cls, context, image_id):
        return cls._from_rows(context, image_api.member_get_all(
            context, image_id))

    @classmethod
    def create(cls, context, image_id, member):
        return cls._from_row(context, image_api.member_create(
            context, image_id, member))

    @classmethod
    def update_status(cls, context, image_id, member, status):
        return cls._from_row(context, image_api.member_update(
            context, image_id, member, status))

    @classmethod
    def destroy(cls, context, image_id, member):
        image_api.member_destroy(context, image_id, member)

    @staticmethod
    def statuses_of(context, member):
        """{image id: member status} of the images shared with
        ``member``."""
        return image_api.member_status_by_image(context, member)
