"""The version document at ``/``."""

from nova_lite.placement import microversion
from nova_lite.placement import util


def home(req):
    """List the one API version with its microversion range (200)."""
    version = {
        'id': 'v%d.0' % microversion.MAX_VERSION.major,
        'max_version': microversion.format_version(microversion.MAX_VERSION),
        'min_version': microversion.format_version(microversion.MIN_VERSION),
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }
    return util.json_response({'versions': [version]}, req=req)
