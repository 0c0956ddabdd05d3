"""The worked example of doc/simulation.md, at its size in hosts.

A synthetic 1,000-host cloud (``sim synthetic``), a generated trace
(``sim generate``; fewer creates than the document's 20,000, which
``tox -e bench -- sim_example`` replays), and the two weigher settings:
packing must leave most hosts empty with a utilisation spread far above
spreading's, spreading must use many times more hosts, and the
comparison must list the differing decisions with both runs'
explanations, in the JSON and in report.html.
"""

import json
import os

import fixtures
import testtools

from nova_lite.cmd import manage
from nova_lite.sim import synthetic
from nova_lite import testing

HOSTS = 1000
CREATES = 150


class WorkedExampleTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.tmp = self.useFixture(fixtures.TempDir()).path
        stdout = self.useFixture(fixtures.StringStream('stdout'))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', stdout.stream))

    def _path(self, name, text=None):
        path = os.path.join(self.tmp, name)
        if text is not None:
            with open(path, 'w') as f:
                f.write(text)
        return path

    def _manage(self, *argv):
        self.assertEqual(0, manage.main(['sim'] + list(argv)))

    def _json(self, *parts):
        with open(os.path.join(self.tmp, *parts)) as f:
            return json.load(f)

    def test_packing_against_spreading_on_1000_hosts(self):
        snap, trace = self._path('cloud.json'), self._path('trace.jsonl')
        out = self._path('report')
        self._manage('synthetic', '--hosts', str(HOSTS), '-o', snap)
        self._manage('generate', '--snapshot', snap, '-o', trace,
                     '--events', str(CREATES), '--rate', '5',
                     '--lifetime', '60', '--end-at-last-create',
                     '--flavor-mix', 'small=5,medium=3,large=1',
                     '--seed', '1')
        self._manage('run', '--snapshot', snap, '--workload', trace,
                     '--config', self._path('pack.conf', synthetic.PACK),
                     '--config', self._path('spread.conf',
                                            synthetic.SPREAD),
                     '-o', out, '--samples', '10')
        pack = self._json('report', 'pack.json')
        spread = self._json('report', 'spread.json')
        for rep in (pack, spread):
            self.assertEqual((CREATES, 0), (rep['placed'],
                                            rep['no_valid_host']))
            self.assertEqual(HOSTS, rep['hosts'])
        # Packing stacks the servers on a few hosts; spreading gives
        # each create an empty host (one whose servers were all deleted
        # comes first again: it ties with the never used).
        used_by_pack = HOSTS - pack['hosts_never_used']
        self.assertLess(used_by_pack, 20)
        self.assertGreater(HOSTS - spread['hosts_never_used'],
                           5 * used_by_pack)
        for rc in ('VCPU', 'MEMORY_MB'):
            self.assertGreater(
                pack['utilisation_over_time'][rc]['stdev'],
                2 * spread['utilisation_over_time'][rc]['stdev'])
        # Both zones get servers when spreading; packing fills the
        # first hosts, in the first zone.
        zones = {r['name']: {a['name']: a['placed']
                             for a in r['aggregates']}
                 for r in (pack, spread)}
        self.assertGreater(min(zones['spread'].values()), 0)
        self.assertEqual(0, zones['pack']['az2'])

        cmp = self._json('report', 'comparison.json')
        self.assertGreater(cmp['differing_decisions'], CREATES // 2)
        for diff in cmp['differing']:
            for name in ('pack', 'spread'):
                why = diff['runs'][name]['why']
                self.assertIn('picked', why)
                self.assertIn('best:', why)
        with open(os.path.join(out, 'report.html')) as f:
            page = f.read()
        self.assertIn('%d requests were decided differently' %
                      cmp['differing_decisions'], page)
        self.assertIn('<td>%s</td>' % cmp['differing'][0]['id'], page)
