"""The workload trace: parsing, ordering, refusals and the generator."""

import json
import os

import fixtures
import testtools

from nova_lite.sim import workload


class TraceTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def _trace(self, *lines):
        path = os.path.join(self.tmp, 'w.jsonl')
        with open(path, 'w') as f:
            for line in lines:
                f.write((line if isinstance(line, str)
                         else json.dumps(line)) + '\n')
        return path

    def test_events_come_in_time_order_ties_in_file_order(self):
        path = self._trace(
            '# a comment', '',
            {'time': 5, 'action': 'create', 'id': 'b', 'flavor': 'f'},
            {'time': 1, 'action': 'create', 'id': 'a',
             'resources': {'VCPU': 1}},
            {'time': 5, 'action': 'delete', 'id': 'a'})
        self.assertEqual([('a', 'create'), ('b', 'create'), ('a', 'delete')],
                         [(e['id'], e['action'])
                          for e in workload.load(path)])

    def test_refusals_name_the_line(self):
        cases = [
            ('{nope', 'line 1: not JSON'),
            ({'time': -1, 'action': 'create', 'id': 'a', 'flavor': 'f'},
             'line 1: time'),
            ({'time': 0, 'action': 'reboot', 'id': 'a'}, 'action must be'),
            ({'time': 0, 'action': 'resize', 'id': 'a'},
             'resize of a, which no earlier line creates'),
            ({'time': 0, 'action': 'delete', 'id': 'a'},
             'no earlier line creates'),
            ({'time': 0, 'action': 'create', 'id': 'a'},
             'either flavor or resources'),
            ({'time': 0, 'action': 'create', 'id': 'a',
              'resources': {'VCPU': 'x'}}, 'resources must map'),
        ]
        for line, text in cases:
            err = self.assertRaises(workload.WorkloadError, workload.load,
                                    self._trace(line))
            self.assertIn(text, str(err))

    def test_moves_of_created_servers(self):
        create = {'time': 0, 'action': 'create', 'id': 'a', 'flavor': 'f',
                  'server_group': {'id': 'g', 'policy': 'anti-affinity'}}
        events = workload.load(self._trace(
            create, {'time': 1, 'action': 'resize', 'id': 'a',
                     'flavor': 'g'},
            {'time': 2, 'action': 'migrate', 'id': 'a'}))
        self.assertEqual(['create', 'resize', 'migrate'],
                         [e['action'] for e in events])
        err = self.assertRaises(workload.WorkloadError, workload.load,
                                self._trace(create, {
                                    'time': 1, 'action': 'resize',
                                    'id': 'a'}))
        self.assertIn('line 2: a resize gives either flavor or resources',
                      str(err))
        err = self.assertRaises(workload.WorkloadError, workload.load,
                                self._trace(dict(create,
                                                 server_group='g')))
        self.assertIn('server_group must be an object', str(err))

    def test_created_twice_is_refused(self):
        line = {'time': 0, 'action': 'create', 'id': 'a', 'flavor': 'f'}
        err = self.assertRaises(workload.WorkloadError, workload.load,
                                self._trace(line, line))
        self.assertIn('line 2: a is created twice', str(err))


class GenerateTest(testtools.TestCase):

    def test_same_seed_same_trace_and_it_loads(self):
        mix = workload.parse_mix('small=3,large=1', ['small', 'large'])
        one = workload.generate(mix, 200, rate=2.0, lifetime=50, seed=7)
        self.assertEqual(one, workload.generate(mix, 200, rate=2.0,
                                                lifetime=50, seed=7))
        self.assertNotEqual(one, workload.generate(mix, 200, rate=2.0,
                                                   lifetime=50, seed=8))
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, 'w')
        workload.save(one, path)
        events = workload.load(path)
        self.assertEqual(400, len(events))
        creates = [e for e in events if e['action'] == 'create']
        small = sum(1 for e in creates if e['flavor'] == 'small')
        self.assertTrue(120 < small < 180, small)
        # About 200 creates at 2 per second: about 100 seconds.
        self.assertTrue(70 < creates[-1]['time'] < 130, creates[-1]['time'])

    def test_end_at_last_create_keeps_the_servers_alive_then(self):
        mix = {'f': 1}
        full = workload.generate(mix, 100, rate=1.0, lifetime=30, seed=2)
        window = workload.generate(mix, 100, rate=1.0, lifetime=30, seed=2,
                                   end_at_last_create=True)
        last = [e for e in full if e['action'] == 'create'][-1]['time']
        self.assertEqual(
            [e for e in full if e['action'] == 'create' or
             e['time'] <= last], window)
        self.assertEqual(window[-1]['time'], last)
        self.assertLess(len(window), len(full))

    def test_no_lifetime_no_deletes(self):
        events = workload.generate({'f': 1}, 10)
        self.assertEqual({'create'}, {e['action'] for e in events})

    def test_mix_refusals(self):
        self.assertRaises(workload.WorkloadError, workload.parse_mix,
                          'nope=1', ['f'])
        self.assertRaises(workload.WorkloadError, workload.parse_mix,
                          'f=x', ['f'])
        self.assertRaises(workload.WorkloadError, workload.parse_mix,
                          'f=0', ['f'])
        self.assertEqual({'f': 1.0, 'g': 1.0},
                         workload.parse_mix(None, ['f', 'g']))
