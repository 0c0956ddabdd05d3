"""Version documents: ``GET /`` and ``GET /v2.1`` (no credentials)."""

from nova_lite.api import util
from nova_lite.api import versions


def root(req):
    """The list of API versions."""
    return util.json_response(versions.root_document(req.application_url))


def v21(req):
    """The current version with its microversion range."""
    return util.json_response(versions.v21_document(req.application_url))
