"""The legacy ``/v2`` endpoint: the 2.1 API at its base microversion.

Nova still serves ``/v2`` (the root document lists it, ``DEPRECATED``)
through a compatibility wrapper around its v2.1 application: the
microversion headers of the request are ignored and left out of the
response (and of ``Vary``), so a v2 client sees the base API. URLs may
carry the project id after the version (``/v2/{project_id}/servers``,
the form of devstack's ``compute_legacy`` endpoint). ``GET /v2/`` is
the v2.0 version document.

nova_lite does the same in front of its pipeline: the path is rewritten
to ``/v2.1`` and marked (:data:`ENVIRON_KEY`) for the version handler.
"""

import re

import webob.dec

from nova_lite.wsgi import microversion as wsgi_microversion

ENVIRON_KEY = 'nova.legacy_v2'
PREFIX = '/v2'
_LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
_VERSION_HEADERS = (wsgi_microversion.HEADER, _LEGACY_HEADER)
# Nova's routes take a project id only if it is hex (and dashes); no
# collection name is.
_PROJECT_ID = re.compile(r'^[0-9a-f-]+$')


def _v21_path(path):
    """The /v2.1 path of a /v2 one, without a project id segment."""
    rest = path[len(PREFIX):].lstrip('/')
    first, _sep, tail = rest.partition('/')
    if first and _PROJECT_ID.match(first):
        rest = tail
    return '/v2.1/' + rest if rest else '/v2.1'


def _is_legacy(path):
    return path == PREFIX or path.startswith(PREFIX + '/')


class LegacyV2:
    """Serve ``/v2[/...]`` with the 2.1 application, microversion-free."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify
    def __call__(self, req):
        # NOTE(nova_lite): the raw (undecoded) path: a path that is not
        # UTF-8 is the router's to refuse, with a 400.
        path = req.environ.get('PATH_INFO', '')
        if not _is_legacy(path):
            return req.get_response(self.app)
        req.environ[ENVIRON_KEY] = True
        req.environ['PATH_INFO'] = _v21_path(path)
        for header in _VERSION_HEADERS:
            req.headers.pop(header, None)
        response = req.get_response(self.app)
        for header in _VERSION_HEADERS:
            response.headers.pop(header, None)
        _drop_version_vary(response)
        return response


def _drop_version_vary(response):
    vary = [v.strip() for v in response.headers.get('Vary', '').split(',')
            if v.strip() and v.strip() not in _VERSION_HEADERS]
    if vary:
        response.headers['Vary'] = ', '.join(vary)
    else:
        response.headers.pop('Vary', None)
