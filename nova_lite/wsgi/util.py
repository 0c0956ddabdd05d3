"""Small helpers the handlers of every REST service of nova-lite-api use.

The handler contract (see each service's route table): a handler is a
function taking a ``webob.Request`` and returning a ``webob.Response``. It
reads

* the request context with :func:`context` (set by the auth middleware),
* the URL variables with ``req.urlvars``,
* the configuration with :func:`conf` and the placement client with
  :func:`placement` (both set by the deploy),

and answers with :func:`json_response` / :func:`no_content`. Errors are
raised as ``webob.exc.HTTP*`` or domain exceptions; the fault wrapper
renders them in the format of the service the path belongs to.
"""

from oslo_serialization import jsonutils
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob
import webob.exc

CONTEXT_KEY = 'nova.context'
PLACEMENT_KEY = 'nova.placement_client'
CONF_KEY = 'nova.conf'
# The largest integer a database column (and SQLite's comparisons) can
# hold; an id past it names nothing, a filter past it is a 400.
DB_INT_MAX = 2 ** 63 - 1


def context(req):
    """The :class:`nova_lite.context.RequestContext` of ``req``."""
    return req.environ[CONTEXT_KEY]


def placement(req):
    """The placement client of this application (None if not wired)."""
    factory = req.environ.get(PLACEMENT_KEY)
    return factory() if callable(factory) else factory


def conf(req):
    return req.environ[CONF_KEY]


def json_response(body, status=200, headers=None):
    response = webob.Response(status=status, content_type='application/json',
                              charset='utf-8')
    response.text = jsonutils.dumps(body)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def no_content(status=204):
    response = webob.Response(status=status)
    response.content_type = None
    return response


def require_uuid(value, what='id'):
    """400 unless ``value`` looks like a UUID."""
    if not uuidutils.is_uuid_like(value):
        raise webob.exc.HTTPBadRequest(
            'Invalid %s: %s is not a valid UUID.' % (what, value))
    return value


def query_bool(req, name, default=None):
    """A boolean query parameter; 400 naming it when not a boolean."""
    value = req.GET.get(name)
    if value is None:
        return default
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for query parameters %s. Value: %s. Not a '
            'boolean.' % (name, value))


def query_int(req, name, minimum=0, default=None, maximum=DB_INT_MAX):
    """An integer query parameter (minimum to maximum); 400 naming it
    otherwise."""
    value = req.GET.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < minimum:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for query parameters %s. Value: %s. Must be an '
            'integer >= %d.' % (name, value, minimum))
    if number > maximum:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for query parameters %s. Value: %s. Must be an '
            'integer <= %d.' % (name, value, maximum))
    return number


def paginate(items, req, key, max_limit):
    """Apply ``marker`` (the key of the last seen item) and ``limit``."""
    marker = req.GET.get('marker')
    limit = query_int(req, 'limit', minimum=0)
    if marker is not None:
        keys = [str(key(item)) for item in items]
        if marker not in keys:
            raise webob.exc.HTTPBadRequest('marker [%s] not found' % marker)
        items = items[keys.index(marker) + 1:]
    limit = max_limit if limit is None else min(limit, max_limit)
    return items[:limit]


def isotime(moment):
    """``2026-11-22T00:00:00Z``-style text, None for None."""
    if moment is None:
        return None
    return moment.strftime('%Y-%m-%dT%H:%M:%SZ')
