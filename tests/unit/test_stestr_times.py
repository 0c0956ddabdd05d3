"""tests/stestr_times.py: the durations stestr's scheduler reads on a
fresh clone."""

import json
import os

import fixtures
from stestr.repository import file as stestr_file
from stestr import scheduler
import testtools

from tests import stestr_times


class TestSeed(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        self.repository = os.path.join(self.root, '.stestr')

    def times(self, test_ids):
        return stestr_file.Repository(self.repository).get_test_times(
            test_ids)

    def test_fresh_clone_gets_a_repository_with_the_durations(self):
        given = stestr_times.seed(self.repository, {'a.b.c': 30.0,
                                                    'a.b.d': 2.5})
        self.assertEqual(2, given)
        self.assertEqual({'known': {'a.b.c': 30.0, 'a.b.d': 2.5},
                          'unknown': {'a.b.e'}},
                         self.times(['a.b.c', 'a.b.d', 'a.b.e']))

    def test_recorded_durations_win(self):
        stestr_times.seed(self.repository, {'a.b.c': 30.0})
        given = stestr_times.seed(self.repository, {'a.b.c': 99.0,
                                                    'a.b.d': 1.0})
        self.assertEqual(1, given)
        self.assertEqual({'a.b.c': 30.0, 'a.b.d': 1.0},
                         self.times(['a.b.c', 'a.b.d'])['known'])

    def test_long_tests_land_on_different_workers(self):
        # Round-robin would give the first worker both long tests.
        ids = ['t.long1', 't.short1', 't.long2', 't.short2']
        stestr_times.seed(self.repository, {'t.long1': 60, 't.long2': 50})
        parts = scheduler.partition_tests(
            ids, 2, stestr_file.Repository(self.repository), None)
        self.assertEqual(2, len(parts))
        self.assertEqual([1, 1], [len({'t.long1', 't.long2'} & set(p))
                                  for p in parts])
        self.assertEqual(sorted(ids), sorted(parts[0] + parts[1]))


class TestWrite(testtools.TestCase):

    def test_keeps_long_tests_and_merges(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'times.json')
        with open(path, 'w') as f:
            json.dump({'seconds': {'old.kept': 9.0, 'old.now_fast': 8.0}}, f)
        stestr_times.write({'new.slow': 12.34, 'new.fast': 0.5,
                            'old.now_fast': 0.2}, 2.0, path)
        self.assertEqual({'old.kept': 9.0, 'new.slow': 12.3},
                         stestr_times.load(path))

    def test_the_committed_file_names_tests_by_id(self):
        for test_id, seconds in stestr_times.load().items():
            self.assertTrue(test_id.startswith('tests.'), test_id)
            self.assertGreater(seconds, 0, test_id)
