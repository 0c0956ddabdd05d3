"""Who a placement request is, per ``[placement_api] auth_strategy``.

The strategies themselves are shared with the compute API
(:mod:`nova_lite.wsgi.auth`); what is placement's own:

* ``noauth2`` (labs only): the token ``admin`` is an admin, any other
  token (``user`` or ``user:project``) a plain member.
* ``http_basic`` and ``keystone``: the context carries the identity's own
  roles (``[placement_api] http_basic_admin_users`` are admins).
* The version document at ``/`` needs no authentication, as in Placement.
"""

from nova_lite import context as nl_context
from nova_lite.placement import faults
from nova_lite.wsgi import auth as wsgi_auth

CONTEXT_KEY = 'placement.context'
ADMIN_TOKEN = 'admin'


def noauth_context(token, request_id=None):
    """The context noauth2 gives ``token``."""
    if token == ADMIN_TOKEN:
        return nl_context.RequestContext(
            user_id='admin', project_id='admin', is_admin=True,
            roles=['admin', 'member', 'reader'], request_id=request_id)
    user, _, project = token.partition(':')
    return nl_context.RequestContext(
        user_id=user, project_id=project or user, is_admin=False,
        roles=['member', 'reader'], request_id=request_id)


def _noauth_request_context(token, req):
    return noauth_context(token, req.environ.get('openstack.request_id'))


def _is_public(environ):
    return environ.get('PATH_INFO', '') in ('', '/')


SETTINGS = wsgi_auth.AuthSettings(
    conf_group='placement_api', context_key=CONTEXT_KEY, realm='placement',
    missing_token='Missing X-Auth-Token header.',
    noauth_context=_noauth_request_context, is_public=_is_public,
    errors=faults.ERRORS)
