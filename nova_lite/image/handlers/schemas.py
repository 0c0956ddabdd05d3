"""``GET /image/v2/schemas/{name}`` and ``/schemas/metadefs/{name}``.

The JSON schemas of :mod:`nova_lite.image.schemas`, which the service
also validates requests against; python-glanceclient reads them before
every call on images and members.
"""

import webob.exc

from nova_lite.image import schemas
from nova_lite.wsgi import util


def show(req):
    """GET /image/v2/schemas/{name}: 200, the schema; 404 for a name
    the service has no schema of."""
    util.context(req)
    build = schemas.PUBLISHED.get(req.urlvars['name'])
    if build is None:
        raise webob.exc.HTTPNotFound(
            'No schema named %s.' % req.urlvars['name'])
    return util.json_response(build())


def show_metadef(req):
    """GET /image/v2/schemas/metadefs/{name}: a metadefs schema."""
    util.context(req)
    build = schemas.METADEFS.get(req.urlvars['name'])
    if build is None:
        raise webob.exc.HTTPNotFound(
            'No schema named metadefs/%s.' % req.urlvars['name'])
    return util.json_response(build())
