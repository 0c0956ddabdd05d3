"""``POST /image/v2/images/{image_id}/actions/deactivate|reactivate``.

As Glance: the owner (or an admin) takes an active image out of use
(``deactivated``: its data may then be downloaded by admins only) and
back (``active``); each is a no-op on an image already in the target
state, 403 from any other state; 204 on success.
"""

from oslo_log import log as logging
import webob.exc

from nova_lite import exception
from nova_lite.image.handlers import images
from nova_lite.image import objects as image_obj
from nova_lite.image import service
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)


def _transition(req, source, target, verb):
    context, image = images.image_for(req, 'images:write')
    service.check_owner(context, image, verb)
    if image['status'] == target:
        return util.no_content()
    if image['status'] != source:
        raise webob.exc.HTTPForbidden(
            "Not allowed to %s image in status '%s'"
            % (verb, image['status']))
    try:
        image_obj.Image.update(context, image['id'], {'status': target},
                               expected_status=(source,))
    except exception.Conflict:
        raise webob.exc.HTTPConflict(
            'Image %s changed status while being %sd.'
            % (image['id'], verb))
    LOG.info('Image %s is %s', image['id'], target)
    return util.no_content()


def deactivate(req):
    """POST .../actions/deactivate: 204."""
    return _transition(req, 'active', 'deactivated', 'deactivate')


def reactivate(req):
    """POST .../actions/reactivate: 204."""
    return _transition(req, 'deactivated', 'active', 'reactivate')
