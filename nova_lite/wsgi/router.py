"""Dispatch on a route table, the way both services declare their API.

A table is ``{path: {method: handler}}``, a handler a function taking a
``webob.Request``. Paths carry no regexes, so a malformed id reaches its
handler, which answers 400 or 404 itself; an unknown path is a 404, a
known path with an unknown method a 405 with ``Allow``; an unreachable
database a 503; an integer the database cannot hold (which a handler
should have refused itself) a 400. Errors come out in the service's
format.
"""

from oslo_db import exception as db_exc
from oslo_log import log as logging
import routes
import webob.exc

from nova_lite.wsgi import layer

LOG = logging.getLogger(__name__)

OUT_OF_RANGE = 'A number in the request is out of range.'
NOT_STORABLE = ('A value in the request is too long, out of range or has '
                'characters that cannot be stored.')


def make_map(paths):
    mapper = routes.Mapper()
    for path in paths:
        mapper.connect(path, route_path=path)
    return mapper


class Router(layer.Layer):
    """Route a request to its handler; errors rendered by ``errors``.

    :param lenient: Nova's leniency: a trailing slash is ignored and HEAD
        is served by the GET handler.
    :param before: ``(req) -> None`` run once a handler is found.
    :param domain_errors: ``(exc) -> webob error or None``: a handler's
        domain exception mapped here, inside the microversion layer, so
        its response carries the version headers; unmapped ones go on to
        the fault wrapper.

    A 404 for an unknown path is marked ``outside_handler`` (as a
    ``domain_errors`` mapping may mark its own), for a service whose
    errors show where they arose (Placement's carry no ``Vary`` then).
    """

    def __init__(self, table, errors, lenient=False, before=None,
                 domain_errors=None):
        self.routes = table
        self.errors = errors
        self.lenient = lenient
        self.before = before
        self.domain_errors = domain_errors
        self.mapper = make_map(table)

    def _path(self, req):
        path = req.path_info or '/'
        if self.lenient and len(path) > 1:
            path = path.rstrip('/') or '/'
        return path

    def _handler(self, req, methods):
        method = req.method
        if self.lenient and method == 'HEAD':
            method = 'GET'
        handler = methods.get(method)
        if handler is None:
            exc = webob.exc.HTTPMethodNotAllowed(
                self.errors.method_not_allowed(req.method))
            exc.headers['Allow'] = ', '.join(sorted(methods))
            raise exc
        return handler

    def _dispatch(self, req):
        match = self.mapper.match(self._path(req))
        if match is None:
            exc = webob.exc.HTTPNotFound(self.errors.not_found)
            exc.outside_handler = True
            raise exc
        handler = self._handler(req, self.routes[match.pop('route_path')])
        req.environ['wsgiorg.routing_args'] = ((), match)
        if self.before is not None:
            self.before(req)
        try:
            return handler(req)
        except Exception as exc:
            mapped = None
            if self.domain_errors is not None:
                mapped = self.domain_errors(exc)
            if mapped is None:
                raise
            raise mapped

    def handle(self, req):
        try:
            return self._dispatch(req)
        except (db_exc.DBConnectionError, db_exc.CantStartEngineError,
                db_exc.DBDeadlock) as exc:
            # NOTE(nova_lite): raised once the transaction's retries
            # (nova_lite.db.session.retry_on_transient) are spent.
            LOG.error('Database unavailable: %s', exc)
            return self.errors.render(req, webob.exc.HTTPServiceUnavailable(
                self.errors.db_unavailable))
        except UnicodeDecodeError:
            return self.errors.render(
                req, webob.exc.HTTPBadRequest(self.errors.bad_utf8))
        except db_exc.DBError as exc:
            if 'database is locked' in str(exc).lower():
                LOG.error('Database still locked after retries: %s', exc)
                return self.errors.render(
                    req, webob.exc.HTTPServiceUnavailable(
                        self.errors.db_unavailable))
            if isinstance(exc, db_exc.DBDataError):
                # MariaDB refuses a text longer than its column, or with
                # characters its charset cannot hold: the request's.
                LOG.info('Value not storable in %s %s: %s', req.method,
                         req.path_info, exc)
                return self.errors.render(req, webob.exc.HTTPBadRequest(
                    NOT_STORABLE))
            # SQLite refuses to even compare an integer past 64 bits.
            if not isinstance(exc.inner_exception, OverflowError):
                raise
            LOG.info('Integer out of range in %s %s: %s', req.method,
                     req.path_info, exc)
            return self.errors.render(req, webob.exc.HTTPBadRequest(
                OUT_OF_RANGE))
        except webob.exc.HTTPException as exc:
            if exc.code < 400:
                return exc
            return self.errors.render(req, exc)
