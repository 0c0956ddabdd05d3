"""The version document at ``/``."""

from nova_lite.placement import microversion
from nova_lite.placement import util
from nova_lite.wsgi import microversion as wsgi_microversion


def home(req):
    """List the one API version with its microversion range (200)."""
    text = wsgi_microversion.format_version
    version = {
        'id': 'v%d.0' % microversion.MAX_VERSION.major,
        'max_version': text(microversion.MAX_VERSION),
        'min_version': text(microversion.MIN_VERSION),
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }
    return util.json_response({'versions': [version]}, req=req)
