"""The error-format contract and the last-resort fault wrapper.

The shared layers decide *when* a request fails and with which status; an
:class:`ErrorFormat` decides what the body looks like and what the shared
messages say, since the compute API answers in Nova's fault format and
placement in the API-SIG ``errors`` list, and clients of each parse them.
"""

from oslo_log import log as logging
import webob.exc

from nova_lite.wsgi import layer

LOG = logging.getLogger(__name__)


class ErrorFormat:
    """How one service shapes and words its errors (subclass per service).

    A subclass sets ``bad_utf8`` and ``db_unavailable``, the messages of a
    400 for an undecodable request and of a 503 for a database that cannot
    be reached.
    """

    bad_utf8 = None
    db_unavailable = None
    # The message of a 404 for a path no route matches (None: webob's
    # explanation alone).
    not_found = 'The resource could not be found.'

    def render(self, req, exc):
        """The response for ``exc``, a ``webob.exc.HTTPException`` (>= 400)."""
        raise NotImplementedError()

    def method_not_allowed(self, method):
        """The message of a 405 for ``method``."""
        raise NotImplementedError()

    def internal_message(self, request_id, exc):
        """The message of a 500; it must not show ``exc``'s text."""
        raise NotImplementedError()

    def render_exception(self, req, exc):
        """The response for a domain exception, or None for a 500."""
        return None


class MountedErrors(ErrorFormat):
    """The errors of a process that serves several REST services.

    A request under a mounted prefix gets its error bodies in that
    service's format (``render``, ``render_exception``); every other
    request, and every message the shared layers word, is the main
    service's.

    :param main: the :class:`ErrorFormat` of the main service.
    :param mounts: ``{path prefix: ErrorFormat}``.
    """

    def __init__(self, main, mounts):
        self.main = main
        self.mounts = dict(mounts)
        self.bad_utf8 = main.bad_utf8
        self.db_unavailable = main.db_unavailable
        self.not_found = main.not_found

    def _format(self, req):
        # The raw WSGI path: req.path_info fails on a path that is not
        # UTF-8.
        path = req.environ.get('PATH_INFO') or ''
        for prefix, errors in self.mounts.items():
            if path == prefix or path.startswith(prefix + '/'):
                return errors
        return self.main

    def render(self, req, exc):
        return self._format(req).render(req, exc)

    def method_not_allowed(self, method):
        return self.main.method_not_allowed(method)

    def internal_message(self, request_id, exc):
        return self.main.internal_message(request_id, exc)

    def render_exception(self, req, exc):
        return self._format(req).render_exception(req, exc)


class FaultWrapper(layer.Layer):
    """Turn anything the application raised into an error response.

    An unexpected exception is logged with its traceback and answered with a
    500 that shows no traceback and quotes the request id.
    """

    def __init__(self, app, errors):
        self.app = app
        self.errors = errors

    def handle(self, req):
        try:
            return self.call_app(req)
        except webob.exc.HTTPException as exc:
            if exc.code < 400:
                return exc
            return self.errors.render(req, exc)
        except UnicodeDecodeError:
            return self.errors.render(
                req, webob.exc.HTTPBadRequest(self.errors.bad_utf8))
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            response = self.errors.render_exception(req, exc)
            if response is not None:
                return response
            return self._internal(req, exc)

    def _internal(self, req, exc):
        request_id = req.environ.get('openstack.request_id')
        LOG.exception('Unexpected error serving %s %r (request %s)',
                      req.environ.get('REQUEST_METHOD'),
                      req.environ.get('PATH_INFO'), request_id)
        return self.errors.render(req, webob.exc.HTTPInternalServerError(
            self.errors.internal_message(request_id, exc)))
