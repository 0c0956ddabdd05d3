"""``sim run``: import a cloud from placement, replay one workload under a
packing and a spreading configuration, compare.

The cloud is nova_lite's placement in this process (the fixture), read
by the importer through its public routes; the replay runs the real
scheduler and a fresh placement seeded from the snapshot.
"""

import json
import os

import fixtures
import testtools

from nova_lite.cmd import manage
from nova_lite.sim import importer
from nova_lite.sim import snapshot
from nova_lite import testing
from nova_lite.testing import placement_fixture

HOSTS = 12
PACK = ('[filter_scheduler]\nram_weight_multiplier = -1.0\n'
        'cpu_weight_multiplier = -1.0\ndisk_weight_multiplier = -1.0\n')
SPREAD = ('[filter_scheduler]\nram_weight_multiplier = 1.0\n'
          'cpu_weight_multiplier = 1.0\n')
FLAVORS = [{'name': 'small', 'vcpus': 1, 'ram': 1024, 'disk': 10},
           {'name': 'large', 'vcpus': 4, 'ram': 8192, 'disk': 40}]


class ReplayTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.snapshot = self._import()
        self.out = os.path.join(self.tmp, 'report')
        stdout = self.useFixture(fixtures.StringStream('stdout'))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', stdout.stream))

    def _import(self):
        with placement_fixture.PlacementFixture() as placement:
            client = placement.client
            for index in range(HOSTS):
                uuid = client.create_provider('node%02d' % index)['uuid']
                client.set_inventories(uuid, 0, {
                    'VCPU': {'total': 16, 'allocation_ratio': 2.0},
                    'MEMORY_MB': {'total': 32768, 'reserved': 512},
                    'DISK_GB': {'total': 500}})
            doc = importer.import_cloud('http://placement.invalid', 'admin',
                                        session=client.session)
        doc['flavors'] = FLAVORS
        path = os.path.join(self.tmp, 'snapshot.json')
        snapshot.save(snapshot.validate(doc), path)
        return path

    def _conf(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def _manage(self, *argv):
        self.assertEqual(0, manage.main(['sim'] + list(argv)))

    def _report(self, name):
        with open(os.path.join(self.out, name)) as f:
            return json.load(f)

    def test_packing_and_spreading_differ_as_expected(self):
        trace = os.path.join(self.tmp, 'w.jsonl')
        self._manage('generate', '--snapshot', self.snapshot, '-o', trace,
                     '--events', '60', '--rate', '2', '--lifetime', '10',
                     '--seed', '3')
        self._manage('run', '--snapshot', self.snapshot, '--workload', trace,
                     '--config', self._conf('pack.conf', PACK),
                     '--config', self._conf('spread.conf', SPREAD),
                     '-o', self.out)
        pack, spread = self._report('pack.json'), self._report(
            'spread.json')
        for rep in (pack, spread):
            self.assertEqual((60, 0), (rep['placed'],
                                       rep['no_valid_host']))
            self.assertEqual(HOSTS, rep['hosts'])
            split = rep['ms_per_decision']
            self.assertGreater(split['total'], 0)
            self.assertLessEqual(split['placement'] + split['claims'],
                                 split['total'])
        # Packing fills a few hosts and leaves the rest unused; spreading
        # uses every host and keeps their loads close.
        self.assertGreater(pack['hosts_never_used'], HOSTS // 2)
        self.assertEqual(0, spread['hosts_never_used'])
        for rc in ('VCPU', 'MEMORY_MB'):
            self.assertGreater(
                pack['utilisation_over_time'][rc]['stdev'],
                2 * spread['utilisation_over_time'][rc]['stdev'])
        self.assertEqual(['filter_scheduler.cpu_weight_multiplier',
                          'filter_scheduler.disk_weight_multiplier',
                          'filter_scheduler.ram_weight_multiplier'],
                         pack['options'])
        cmp = self._report('comparison.json')
        self.assertEqual(['pack', 'spread'], cmp['runs'])
        self.assertGreater(cmp['differing_decisions'], 0)
        first = cmp['differing'][0]
        self.assertNotEqual(first['runs']['pack']['outcome'],
                            first['runs']['spread']['outcome'])
        self.assertIn('picked', first['runs']['pack']['why'])
        self._check_html(pack, spread)
        with open(os.path.join(self.out, 'pack.decisions.jsonl')) as f:
            decisions = [json.loads(line) for line in f]
        self.assertEqual(60, len(decisions))
        self.assertIn('RAMWeigher', decisions[0]['decision']['multipliers'])

    def _check_html(self, pack, spread):
        """report.html: every section, its charts, no outside resource;
        the figures are the JSON's."""
        with open(os.path.join(self.out, 'report.html')) as f:
            page = f.read()
        for section in ('summary', 'timeline', 'utilisation', 'filters',
                        'fragmentation', 'never-used', 'aggregates',
                        'differences'):
            self.assertIn('<section id="%s">' % section, page)
        for chart in ('timeline', 'utilisation-VCPU-stdev',
                      'utilisation-MEMORY_MB-mean', 'spread-VCPU',
                      'fragmentation'):
            self.assertIn('data-chart="%s"><svg' % chart, page)
        self.assertNotIn('<script', page)
        self.assertNotIn('http://cdn', page)
        self.assertNotIn('src=', page)
        # Packing leaves hosts empty: the first tenth of its histogram
        # holds them (and those whose servers were all deleted).
        self.assertGreaterEqual(pack['utilisation_histogram']['VCPU'][0],
                                pack['hosts_never_used'])
        self.assertEqual(HOSTS, sum(spread['utilisation_histogram'][
            'VCPU']))
        self.assertEqual(HOSTS, sum(pack['fragmentation'][
            'largest_flavor_fitting'].values()))
        cmp = self._report('comparison.json')
        first = cmp['differing'][0]
        self.assertIn('<td>%s</td>' % first['id'], page)

    def test_same_seed_same_decisions_and_full_hosts_say_why(self):
        trace = os.path.join(self.tmp, 'w.jsonl')
        with open(trace, 'w') as f:
            for index in range(HOSTS * 4 + 2):
                f.write(json.dumps({'time': index, 'action': 'create',
                                    'id': 'vm%d' % index,
                                    'flavor': 'large'}) + '\n')
        conf = self._conf('a.conf', '[filter_scheduler]\n'
                          'host_subset_size = 3\n')
        self._manage('run', '--snapshot', self.snapshot, '--workload', trace,
                     '--config', conf, '--config', conf, '-o', self.out,
                     '--seed', '5')
        one, two = self._report('a.json'), self._report('a-2.json')
        self.assertEqual(one['outcomes'], two['outcomes'])
        self.assertEqual(0, self._report('comparison.json')[
            'differing_decisions'])
        # 16 VCPU x 2.0 per host hold 8 large servers: 96 fit, all placed;
        # memory (32256 MB usable) holds 3 each: 36 fit.
        self.assertEqual(HOSTS * 3, one['placed'])
        failed = [o for o in one['outcomes'] if o['result'] != 'placed']
        self.assertEqual(HOSTS + 2, len(failed))
        self.assertIn('placement', failed[0]['why'].lower())


class NestedReplayTest(testtools.TestCase):
    """A snapshot with a provider tree, a custom class, a trait and
    usages: placement is seeded with all of them and the replay asks for
    them as a flavor's extra specs would."""

    ROOT = 'aaaaaaaa-0000-4000-8000-000000000001'
    PF = 'aaaaaaaa-0000-4000-8000-000000000002'

    def test_child_inventory_usages_and_traits_count(self):
        self.useFixture(testing.ConfFixture())
        tmp = self.useFixture(fixtures.TempDir()).path
        doc = {'providers': [
            {'uuid': self.ROOT, 'name': 'n1', 'traits': ['CUSTOM_FAST'],
             'inventories': {'VCPU': {'total': 16},
                             'MEMORY_MB': {'total': 16384}},
             'usages': {'VCPU': 2}},
            {'uuid': self.PF, 'name': 'n1_pf', 'parent_provider_uuid':
             self.ROOT, 'inventories': {'CUSTOM_VF': {'total': 4}},
             'usages': {'CUSTOM_VF': 1}}],
            'flavors': [{'name': 'vf', 'vcpus': 1, 'ram': 512, 'extra_specs': {
                'resources:CUSTOM_VF': '1',
                'trait:CUSTOM_FAST': 'required'}}]}
        paths = {}
        for name, body in (('s.json', json.dumps(doc)),
                           ('a.conf', '[filter_scheduler]\n')):
            paths[name] = os.path.join(tmp, name)
            with open(paths[name], 'w') as f:
                f.write(body)
        events = [{'time': i, 'action': 'create', 'id': 'v%d' % i,
                   'flavor': 'vf'} for i in range(4)]
        events += [{'time': 10, 'action': 'delete', 'id': 'v0'},
                   {'time': 11, 'action': 'create', 'id': 'r',
                    'resources': {'VCPU': 1, 'CUSTOM_VF': 1}}]
        paths['w'] = os.path.join(tmp, 'w.jsonl')
        with open(paths['w'], 'w') as f:
            f.writelines(json.dumps(e) + '\n' for e in events)
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdout', self.useFixture(
                fixtures.StringStream('stdout')).stream))
        out = os.path.join(tmp, 'out')
        self.assertEqual(0, manage.main(
            ['sim', 'run', '--snapshot', paths['s.json'], '--workload',
             paths['w'], '--config', paths['a.conf'], '-o', out]))
        with open(os.path.join(out, 'a.json')) as f:
            outcomes = json.load(f)['outcomes']
        # 4 VFs, 1 in use before the trace: 3 fit; the delete frees one.
        self.assertEqual(['placed'] * 3 + ['NoValidHost', 'placed'],
                         [o['result'] for o in outcomes])
        self.assertIn('no allocation candidates', outcomes[3]['why'])
