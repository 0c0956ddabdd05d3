"""Helpers of the handlers: the context, policy checks, path items."""

from nova_lite.placement import auth
from nova_lite.placement import policy
from nova_lite.placement import util


def context(req, rule_name, target=None):
    """The request context, after checking it may use ``rule_name`` on
    ``target`` (default: the caller's own project and user)."""
    ctx = req.environ[auth.CONTEXT_KEY]
    policy.authorize(ctx, rule_name, target)
    return ctx


def provider_uuid(req):
    """The provider uuid of the path; 404 (not 400) when malformed, as the
    provider cannot exist."""
    return util.wsgi_path_item(req.environ, 'uuid')

