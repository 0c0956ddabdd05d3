"""API database API of the image service: images and their members.

Rows come back detached. An image's extra properties and tags are JSON
columns of its row; the members (projects an image is shared with) are
rows of their own, so "the images shared with me" is one query.
"""

import sqlalchemy as sa

from nova_lite.db.api import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite.db import types
from nova_lite import exception


def _writer(context):
    return session.get_api_context_manager().writer.using(context)


def _reader(context):
    return session.get_api_context_manager().reader.using(context)


def _get(s, image_uuid):
    return rows.first_or_raise(
        s, sa.select(models.Image).where(models.Image.uuid == image_uuid),
        exception.ImageRecordNotFound(image_id=image_uuid))


@session.retry_on_transient
def image_create(context, values):
    """Insert an image (ImageRecordExists on a taken id)."""
    image = models.Image()
    image.update(values)
    return rows.insert(_writer(context), image, exception.ImageRecordExists(
        image_id=values.get('uuid')))


def image_get(context, image_uuid):
    """The image ``image_uuid`` (ImageRecordNotFound)."""
    with _reader(context) as s:
        return _get(s, image_uuid)


def image_get_all(context):
    """Every image, oldest first (the service filters and sorts)."""
    with _reader(context) as s:
        return list(s.scalars(sa.select(models.Image).order_by(
            models.Image.id)))


@session.retry_on_transient
def image_update(context, image_uuid, values, expected_status=None):
    """Change an image; with ``expected_status``, only while its status is
    one of them (Conflict otherwise), so two uploads cannot both win."""
    with _writer(context) as s:
        image = _get(s, image_uuid)
        if expected_status and image.status not in expected_status:
            raise exception.Conflict(reason='image %s is %s' % (
                image_uuid, image.status))
        image.update(values)
        image.updated_at = types.utcnow()
        s.flush()
    return image


@session.retry_on_transient
def image_destroy(context, image_uuid):
    """Delete an image and its members (ImageRecordNotFound)."""
    with _writer(context) as s:
        s.execute(sa.delete(models.ImageMember).where(
            models.ImageMember.image_uuid == image_uuid))
        count = s.execute(sa.delete(models.Image).where(
            models.Image.uuid == image_uuid)).rowcount
    if not count:
        raise exception.ImageRecordNotFound(image_id=image_uuid)


# -- members ----------------------------------------------------------------

def _member_query(image_uuid, member):
    return sa.select(models.ImageMember).where(
        models.ImageMember.image_uuid == image_uuid,
        models.ImageMember.member == member)


@session.retry_on_transient
def member_create(context, image_uuid, member):
    """Share an image with a project (ImageMemberExists)."""
    row = models.ImageMember()
    row.update({'image_uuid': image_uuid, 'member': member,
                'status': 'pending'})
    return rows.insert(_writer(context), row, exception.ImageMemberExists(
        image_id=image_uuid, member=member))


def member_get(context, image_uuid, member):
    with _reader(context) as s:
        return rows.first_or_raise(
            s, _member_query(image_uuid, member),
            exception.ImageMemberNotFound(image_id=image_uuid,
                                          member=member))


def member_get_all(context, image_uuid):
    """The members of an image, oldest first."""
    with _reader(context) as s:
        return list(s.scalars(sa.select(models.ImageMember).where(
            models.ImageMember.image_uuid == image_uuid).order_by(
            models.ImageMember.id)))


def member_status_by_image(context, member):
    """{image uuid: status} of every image shared with ``member``."""
    with _reader(context) as s:
        return dict(s.execute(sa.select(
            models.ImageMember.image_uuid, models.ImageMember.status).where(
            models.ImageMember.member == member)).all())


@session.retry_on_transient
def member_update(context, image_uuid, member, status):
    with _writer(context) as s:
        row = rows.first_or_raise(
            s, _member_query(image_uuid, member),
            exception.ImageMemberNotFound(image_id=image_uuid,
                                          member=member))
        row.status = status
        row.updated_at = types.utcnow()
        s.flush()
    return row


@session.retry_on_transient
def member_destroy(context, image_uuid, member):
    with _writer(context) as s:
        count = s.execute(sa.delete(models.ImageMember).where(
            models.ImageMember.image_uuid == image_uuid,
            models.ImageMember.member == member)).rowcount
    if not count:
        raise exception.ImageMemberNotFound(image_id=image_uuid,
                                            member=member)
