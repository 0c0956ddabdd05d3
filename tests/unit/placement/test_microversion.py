"""Microversion list, parsing and the version guard."""

import testtools
import webob
import webob.exc

from nova_lite.placement import handler
from nova_lite.placement import microversion
from nova_lite.wsgi import microversion as wsgi_microversion

# NOTE(nova_lite): tripwires. A new microversion or a new version-gated
# handler must update these on purpose (and add gabbi tests at the
# boundary).
TOTAL_VERSIONS = 40
TOTAL_GATED_HANDLERS = 19


def _environ(header=None):
    environ = webob.Request.blank('/').environ
    if header is not None:
        environ['HTTP_OPENSTACK_API_VERSION'] = header
    return environ


class TestVersions(testtools.TestCase):
    def test_versions_are_contiguous(self):
        self.assertEqual(TOTAL_VERSIONS, len(microversion.VERSIONS))
        minors = [wsgi_microversion.parse(v).minor
                  for v in microversion.VERSIONS]
        self.assertEqual(list(range(TOTAL_VERSIONS)), minors)
        self.assertEqual((1, 39), microversion.MAX_VERSION)

    def test_gated_handler_count(self):
        gated = {h for methods in handler.ROUTE_DECLARATIONS.values()
                 for h in methods.values() if hasattr(h, 'min_version')}
        self.assertEqual(TOTAL_GATED_HANDLERS, len(gated))


class TestExtract(testtools.TestCase):
    def test_default_is_min(self):
        self.assertEqual((1, 0), microversion.TABLE.extract(_environ()))

    def test_latest(self):
        self.assertEqual((1, 39), microversion.TABLE.extract(
            _environ('placement latest')))

    def test_explicit(self):
        self.assertEqual((1, 14), microversion.TABLE.extract(
            _environ('placement 1.14')))

    def test_other_service_is_ignored(self):
        self.assertEqual((1, 0), microversion.TABLE.extract(
            _environ('compute 2.1')))

    def test_out_of_range(self):
        for value in ('placement 1.40', 'placement 0.9', 'placement 2.0'):
            self.assertRaises(webob.exc.HTTPNotAcceptable,
                              microversion.TABLE.extract, _environ(value))

    def test_malformed(self):
        for value in ('placement 1', 'placement one', 'placement 1.x',
                      'placement 1.2.3'):
            self.assertRaises(webob.exc.HTTPBadRequest,
                              microversion.TABLE.extract, _environ(value))


class TestRequire(testtools.TestCase):
    def _request(self, version):
        req = webob.Request.blank('/')
        req.environ[microversion.ENVIRON_KEY] = wsgi_microversion.parse(
            version)
        return req

    def test_below_is_404_or_405(self):
        guarded = microversion.require('1.5')(lambda req: 'ok')
        self.assertRaises(webob.exc.HTTPNotFound, guarded,
                          self._request('1.4'))
        guarded = microversion.require('1.5', status_code=405)(
            lambda req: 'ok')
        self.assertRaises(webob.exc.HTTPMethodNotAllowed, guarded,
                          self._request('1.4'))

    def test_at_or_above_runs(self):
        guarded = microversion.require('1.5')(lambda req: 'ok')
        self.assertEqual('ok', guarded(self._request('1.5')))
        self.assertEqual('ok', guarded(self._request('1.39')))
