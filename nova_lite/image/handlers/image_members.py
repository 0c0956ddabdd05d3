"""Members of a shared image: ``/image/v2/images/{image_id}/members``.

The owner shares a ``shared`` image with a project (``pending``); that
project accepts or rejects it (only the member changes its own status);
the owner lists and removes members, a member sees only itself.
"""

import webob.exc

from nova_lite import exception
from nova_lite.image.handlers import images
from nova_lite.image import objects as image_obj
from nova_lite.image import service
from nova_lite.wsgi import util

# Glance's image_member_quota.
MEMBER_QUOTA = 128


def _view(member):
    return {'image_id': member.image_uuid, 'member_id': member.member,
            'status': member.status,
            'created_at': service._isotime(member.created_at),
            'updated_at': service._isotime(member.updated_at or
                                           member.created_at),
            'schema': '/v2/schemas/member'}


def _shared(image):
    if image['visibility'] != 'shared' or image['catalog']:
        raise webob.exc.HTTPForbidden('Only shared images have members.')


def _is_owner(context, image):
    return context.is_admin or (image['owner'] and
                                image['owner'] == context.project_id)


def add_member(req):
    """POST .../members {"member": project}: 200, the member."""
    context, image = images.image_for(req, 'images:write')
    _shared(image)
    if not _is_owner(context, image):
        raise webob.exc.HTTPForbidden(
            'You are not permitted to add members to this image.')
    body = images._json_object(req)
    member = body.get('member')
    if not isinstance(member, str) or not member or len(member) > 255 or \
            set(body) != {'member'}:
        raise webob.exc.HTTPBadRequest(
            'Member to be added not specified: send {"member": '
            '"<project id>"}.')
    if len(image_obj.ImageMember.get_all(context, image['id'])) >= \
            MEMBER_QUOTA:
        raise webob.exc.HTTPRequestEntityTooLarge(
            'The limit of %d members of an image has been exceeded.'
            % MEMBER_QUOTA)
    try:
        row = image_obj.ImageMember.create(context, image['id'], member)
    except exception.ImageMemberExists as exc:
        raise webob.exc.HTTPConflict(exc.message)
    return util.json_response(_view(row))


def list_members(req):
    """GET .../members: every member for the owner, oneself for one."""
    context, image = images.image_for(req)
    _shared(image)
    members = image_obj.ImageMember.get_all(context, image['id'])
    if not _is_owner(context, image):
        members = [m for m in members if m.member == context.project_id]
    return util.json_response({'members': [_view(m) for m in members],
                               'schema': '/v2/schemas/members'})


def _member(context, image, member_id):
    if not (_is_owner(context, image) or member_id == context.project_id):
        raise webob.exc.HTTPNotFound(
            'Member %s not found for image %s.' % (member_id, image['id']))
    try:
        return image_obj.ImageMember.get(context, image['id'], member_id)
    except exception.ImageMemberNotFound as exc:
        raise webob.exc.HTTPNotFound(exc.message)


def show_member(req):
    context, image = images.image_for(req)
    _shared(image)
    return util.json_response(_view(_member(
        context, image, req.urlvars['member_id'])))


def update_member(req):
    """PUT .../members/{member_id} {"status": ...}: the member only."""
    context, image = images.image_for(req)
    _shared(image)
    member_id = req.urlvars['member_id']
    _member(context, image, member_id)
    body = images._json_object(req)
    status = body.get('status')
    if status not in service.MEMBER_STATUSES:
        raise webob.exc.HTTPBadRequest(
            'Invalid status: %s. It must be one of: %s.'
            % (status, ', '.join(service.MEMBER_STATUSES)))
    if member_id != context.project_id:
        raise webob.exc.HTTPForbidden(
            "You are not permitted to change the status of another "
            "project's membership.")
    row = image_obj.ImageMember.update_status(context, image['id'],
                                              member_id, status)
    return util.json_response(_view(row))


def delete_member(req):
    """DELETE .../members/{member_id}: the owner only (204)."""
    context, image = images.image_for(req, 'images:write')
    _shared(image)
    member_id = req.urlvars['member_id']
    _member(context, image, member_id)
    if not _is_owner(context, image):
        raise webob.exc.HTTPForbidden(
            'You are not permitted to remove members of this image.')
    try:
        image_obj.ImageMember.destroy(context, image['id'], member_id)
    except exception.ImageMemberNotFound as exc:
        raise webob.exc.HTTPNotFound(exc.message)
    return util.no_content()
