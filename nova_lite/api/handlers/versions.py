"""Version documents: ``GET /`` and ``GET /v2.1`` (no credentials)."""

from nova_lite.api import legacy_v2
from nova_lite.api import util
from nova_lite.api import versions


def root(req):
    """The list of API versions."""
    return util.json_response(versions.root_document(req.application_url))


def v21(req):
    """The current version with its microversion range (the v2.0 one
    when reached through the legacy ``/v2``)."""
    version_id = 'v2.0' if req.environ.get(legacy_v2.ENVIRON_KEY) \
        else 'v2.1'
    return util.json_response(
        versions.v21_document(req.application_url, version_id))
