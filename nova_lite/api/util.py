"""Small helpers every compute API handler uses.

The handler contract (see ``router.py``): a handler is a function taking a
``webob.Request`` and returning a ``webob.Response``. It reads

* the request context with :func:`context` (set by the auth middleware),
* the URL variables with ``req.urlvars``,
* the microversion with ``nova_lite.api.microversion.of(req)``,
* the body with ``nova_lite.api.validation.body(req, SCHEMA)``,
* the placement client with :func:`placement` (set by ``deploy``),

and answers with :func:`json_response` / :func:`no_content`. Errors are
raised as ``webob.exc.HTTP*`` or domain exceptions; the fault wrapper
renders them.

The helpers every REST service of nova-lite-api shares live in
:mod:`nova_lite.wsgi.util` and are named here too; what is the compute
API's own (its endpoint, Nova's links and timestamps) is defined here.
"""

from nova_lite.wsgi import util as wsgi_util

CONTEXT_KEY = wsgi_util.CONTEXT_KEY
PLACEMENT_KEY = wsgi_util.PLACEMENT_KEY
CONF_KEY = wsgi_util.CONF_KEY
DB_INT_MAX = wsgi_util.DB_INT_MAX

context = wsgi_util.context
placement = wsgi_util.placement
conf = wsgi_util.conf
json_response = wsgi_util.json_response
no_content = wsgi_util.no_content
require_uuid = wsgi_util.require_uuid
query_bool = wsgi_util.query_bool
query_int = wsgi_util.query_int
paginate = wsgi_util.paginate
isotime = wsgi_util.isotime


def base_url(req):
    """The compute endpoint's URL, e.g. ``http://host:8774/v2.1``."""
    return req.application_url + '/v2.1'


def links(req, collection, item_id):
    """Nova's ``self`` and ``bookmark`` links of one item."""
    ident = '%s/%s' % (collection, item_id)
    return [{'rel': 'self', 'href': '%s/%s' % (base_url(req), ident)},
            {'rel': 'bookmark',
             'href': '%s/%s' % (req.application_url, ident)}]


def isotime_micro(moment):
    """``2026-11-22T00:00:00.000000``-style text (os-services, hosts)."""
    if moment is None:
        return None
    return moment.replace(tzinfo=None).isoformat(timespec='microseconds')
