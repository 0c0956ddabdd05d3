"""The figures of a run and the comparison of runs."""

import os

import fixtures
from oslo_config import cfg
import testtools

from nova_lite.sim import config as sim_config
from nova_lite.sim import metrics
from nova_lite.sim import report


def _prov(uuid, used, total=10, reserved=0, ratio=1.0):
    return {'uuid': uuid, 'usages': {'VCPU': used} if used else {},
            'inventories': {'VCPU': {'total': total, 'reserved': reserved,
                                     'allocation_ratio': ratio}}}


class MetricsTest(testtools.TestCase):

    def test_packed_hosts_spread_more_than_balanced_ones(self):
        hosts = {'a', 'b'}
        packed = metrics.utilisation([_prov('a', 10), _prov('b', 0)], hosts)
        even = metrics.utilisation([_prov('a', 5), _prov('b', 5)], hosts)
        self.assertEqual({'hosts': 2, 'mean': 0.5, 'stdev': 0.5, 'min': 0.0,
                          'max': 1.0, 'empty': 1}, packed['VCPU'])
        self.assertEqual(0.0, even['VCPU']['stdev'])

    def test_capacity_counts_reserved_and_ratio_not_other_providers(self):
        got = metrics.utilisation(
            [_prov('a', 8, total=10, reserved=2, ratio=2.0),
             _prov('child', 1)], {'a'})
        self.assertEqual(0.5, got['VCPU']['mean'])
        self.assertEqual(1, got['VCPU']['hosts'])

    def test_timeline_counts_up_to_each_sample(self):
        results = [{'time': 1, 'result': 'placed'},
                   {'time': 2, 'result': 'NoValidHost'},
                   {'time': 3, 'result': 'placed'}]
        samples = [{'until': 2, 'utilisation': {}},
                   {'until': 4, 'utilisation': {}}]
        self.assertEqual([(2, 1, 1), (4, 2, 1)],
                         [(r['until'], r['placed'], r['no_valid_host'])
                          for r in metrics.timeline(results, samples)])


def _report(name, outcomes, stdev):
    return {'name': name, 'creates': len(outcomes),
            'placed': sum(1 for o in outcomes if o['result'] == 'placed'),
            'no_valid_host': sum(1 for o in outcomes
                                 if o['result'] != 'placed'),
            'hosts_never_used': 0, 'decisions_per_second': 1.0,
            'utilisation': {'VCPU': {'mean': 0.5, 'stdev': stdev,
                                     'max': 1.0, 'empty': 0}},
            'utilisation_over_time': {'VCPU': {'stdev': stdev,
                                               'empty': 0}},
            'outcomes': outcomes}


def _placed(id_, host, time=0):
    return {'id': id_, 'time': time, 'result': 'placed', 'host': host,
            'node': host, 'why': 'picked %s' % host}


class CompareTest(testtools.TestCase):

    def test_lists_only_requests_whose_outcome_differs(self):
        a = _report('a', [_placed('v1', 'h1'), _placed('v2', 'h1', 5),
                          _placed('v3', 'h2', 6)], 0.5)
        b = _report('b', [_placed('v1', 'h1'), _placed('v2', 'h2', 5),
                          {'id': 'v3', 'time': 6, 'result': 'NoValidHost',
                           'why': 'no room'}], 0.1)
        got = report.compare([a, b])
        self.assertEqual(2, got['differing_decisions'])
        self.assertEqual(5, got['first_difference'])
        self.assertEqual(
            [('v2', 'h1/h1', 'h2/h2'), ('v3', 'h2/h2', 'NoValidHost')],
            [(d['id'], d['runs']['a']['outcome'], d['runs']['b']['outcome'])
             for d in got['differing']])
        self.assertEqual('no room', got['differing'][1]['runs']['b']['why'])
        self.assertEqual({'a': 0.5, 'b': 0.1},
                         got['table']['VCPU_stdev_over_time'])
        self.assertEqual({'a': 3, 'b': 2}, got['table']['placed'])
        text = report.format_table(got)
        self.assertIn('differing decisions: 2 (first at t=5)', text)

    def test_identical_runs_do_not_differ_and_the_list_is_bounded(self):
        outcomes = [_placed('v%d' % i, 'h1') for i in range(5)]
        other = [_placed('v%d' % i, 'h2') for i in range(5)]
        self.assertEqual(0, report.compare([
            _report('a', outcomes, 0), _report('b', outcomes, 0)])[
                'differing_decisions'])
        got = report.compare([_report('a', outcomes, 0),
                              _report('b', other, 0)], limit=2)
        self.assertEqual((5, 2), (got['differing_decisions'],
                                  len(got['differing'])))


class ConfigTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf = cfg.ConfigOpts()
        self.conf.register_opts([cfg.FloatOpt('ram_weight_multiplier',
                                              default=1.0),
                                 cfg.ListOpt('enabled_filters',
                                             default=['A'])],
                                group='filter_scheduler')
        self.conf.register_opt(cfg.IntOpt('service_down_time', default=60))
        self.conf.register_opt(cfg.StrOpt('notification_format'),
                               group='notifications')
        self.conf([])
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def _file(self, text):
        path = os.path.join(self.tmp, 'a.conf')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_applied_for_the_run_then_taken_back(self):
        path = self._file('[filter_scheduler]\nram_weight_multiplier = -2\n'
                          'enabled_filters = B,C\nnope = 1\n'
                          '[DEFAULT]\nservice_down_time = 5\n')
        with sim_config.applied(self.conf, path) as (done, unknown):
            self.assertEqual(-2.0,
                             self.conf.filter_scheduler.ram_weight_multiplier)
            self.assertEqual(['B', 'C'],
                             self.conf.filter_scheduler.enabled_filters)
            self.assertEqual(10 ** 9, self.conf.service_down_time)
            self.assertEqual(['filter_scheduler.enabled_filters',
                              'filter_scheduler.ram_weight_multiplier'],
                             done)
            self.assertEqual(['filter_scheduler.nope'], unknown)
        self.assertEqual(1.0,
                         self.conf.filter_scheduler.ram_weight_multiplier)
        self.assertEqual(60, self.conf.service_down_time)

    def test_a_bad_value_names_file_and_option(self):
        path = self._file('[filter_scheduler]\nram_weight_multiplier = x\n')
        err = self.assertRaises(sim_config.ConfigError, self._enter, path)
        self.assertIn('[filter_scheduler] ram_weight_multiplier', str(err))
        self.assertEqual(1.0,
                         self.conf.filter_scheduler.ram_weight_multiplier)

    def _enter(self, path):
        with sim_config.applied(self.conf, path):
            pass


class FilterRemovalsTest(testtools.TestCase):

    def test_removed_hosts_are_summed_per_filter(self):
        attempt = {'filters': [
            {'name': 'ComputeFilter', 'in': 5, 'out': 5, 'skipped': False},
            {'name': 'RamFilter', 'in': 5, 'out': 3, 'skipped': False},
            {'name': 'AggregateFilter', 'in': 3, 'out': 0, 'skipped': True},
            {'name': 'DiskFilter', 'in': 3, 'out': 0, 'skipped': False}]}
        record = {'result': 'NoValidHost', 'reason': 'none'}
        report.annotate(record, attempt)
        self.assertEqual({'RamFilter': 2, 'DiskFilter': 3},
                         record['removed'])
        other = {'result': 'NoValidHost', 'reason': 'none',
                 'removed': {'RamFilter': 4}}
        self.assertEqual(
            {'RamFilter': {'hosts_removed': 6, 'decisions': 2},
             'DiskFilter': {'hosts_removed': 3, 'decisions': 1}},
            report.filter_removals([record, other, {'result': 'placed'}]))
        self.assertEqual(['RamFilter', 'DiskFilter'], list(
            report.filter_removals([record, other])))


class HtmlTest(testtools.TestCase):

    def test_sections_charts_and_escaping(self):
        from nova_lite.sim import report_html
        rep = _report('a<b', [_placed('v1', 'h1')], 0.5)
        rep.update(timeline=[{'until': 1.0, 'placed': 1,
                              'no_valid_host': 0, 'utilisation': {
                                  'VCPU': {'mean': 0.5, 'stdev': 0.5}}}],
                   utilisation_histogram={'VCPU': [1] + [0] * 9},
                   filter_removals={'RamFilter': {'hosts_removed': 3,
                                                  'decisions': 1}},
                   fragmentation={'largest_flavor_fitting': {'small': 2}},
                   aggregates=[{'name': 'az1', 'zone': 'az1', 'hosts': 2,
                                'placed': 1, 'servers': 1}])
        page = report_html.render([rep])
        self.assertIn('<section id="filters">', page)
        self.assertIn('data-chart="utilisation-VCPU-stdev"><svg', page)
        self.assertIn('data-label="a&lt;b"', page)
        self.assertNotIn('a<b', page)
        self.assertIn('One configuration: nothing to compare.', page)
