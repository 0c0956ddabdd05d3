"""The dashboard opens what-if scheduling reports: ``/dashboard/sim``
lists the ``sim run`` directories of ``[dashboard] sim_reports_dir``,
``/dashboard/sim/NAME`` serves NAME's report.html; admins only, and
nothing outside that directory."""

import os

import fixtures
import webob

from nova_lite import conf as nl_conf
from tests.functional import test_servers

PAGE = '<!DOCTYPE html><html><body><section id="summary">x</section>'


class SimReportsTestCase(test_servers.ServersTestBase):

    COMPUTES = ()

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        for name in ('pack-vs-spread', 'empty'):
            os.makedirs(os.path.join(self.root, name))
        with open(os.path.join(self.root, 'pack-vs-spread',
                               'report.html'), 'w') as f:
            f.write(PAGE)
        with open(os.path.join(self.root, 'secret.html'), 'w') as f:
            f.write('secret')

    def get(self, path, token='admin'):
        req = webob.Request.blank(path)
        req.headers['X-Auth-Token'] = token
        return req.get_response(self.cloud.app)

    def _serve(self):
        nl_conf.CONF.set_override('sim_reports_dir', self.root,
                                  group='dashboard')
        self.addCleanup(nl_conf.CONF.clear_override, 'sim_reports_dir',
                        group='dashboard')

    def test_lists_and_serves_reports(self):
        self.assertEqual(404, self.get('/dashboard/sim').status_int)
        self._serve()
        listing = self.get('/dashboard/sim')
        self.assertEqual(200, listing.status_int, listing.text[:300])
        self.assertIn('href="/dashboard/sim/pack-vs-spread"', listing.text)
        self.assertNotIn('empty', listing.text.split('<ul>')[1])
        report = self.get('/dashboard/sim/pack-vs-spread')
        self.assertEqual(200, report.status_int)
        self.assertEqual(PAGE, report.text)
        for bad in ('/dashboard/sim/empty', '/dashboard/sim/..',
                    '/dashboard/sim/%2e%2e', '/dashboard/sim/secret.html'):
            self.assertEqual(404, self.get(bad).status_int, bad)
        self.assertEqual(403, self.get('/dashboard/sim/pack-vs-spread',
                                       token='demo').status_int)
