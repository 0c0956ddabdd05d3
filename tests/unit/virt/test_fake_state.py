"""The fake driver's guest store: a change is a journal line, not a
rewrite of every guest; the file and journal together give the guests
back after a restart or a kill."""

import json
import os
from unittest import mock

import fixtures
import testtools

from nova_lite.virt import fake_state


def guest(node='cmp1-node-0', vcpus=1, source=None):
    return {'node': node, 'power_state': 1,
            'resources': {'VCPU': vcpus, 'MEMORY_MB': 512 * vcpus,
                          'DISK_GB': 1},
            'migrating': False, 'resize_source': source}


class GuestStoreTestCase(testtools.TestCase):
    def setUp(self):
        super().setUp()
        folder = self.useFixture(fixtures.TempDir()).path
        self.path = fake_state.state_file(folder, 'cmp1')
        self.journal = fake_state.journal_file(self.path)

    def store(self):
        store = fake_state.GuestStore(self.path, 'cmp1')
        store.prepare()
        store.load()
        return store

    def journal_lines(self):
        with open(self.journal) as handle:
            return handle.read().splitlines()


class TestJournal(GuestStoreTestCase):
    def test_each_change_is_one_line_and_the_file_is_not_rewritten(self):
        store = self.store()
        store.add('a', guest())
        store.add('b', guest())
        store.update('a', power_state=4)
        store.remove('b')
        self.assertFalse(os.path.exists(self.path))
        self.assertEqual(
            [{'uuid': 'a', 'guest': guest()}, {'uuid': 'b', 'guest': guest()},
             {'uuid': 'a', 'guest': dict(guest(), power_state=4)},
             {'uuid': 'b', 'guest': None}],
            [json.loads(line) for line in self.journal_lines()])
        self.assertEqual({'a': dict(guest(), power_state=4)},
                         fake_state.read_guests(self.path))

    def test_a_long_journal_is_folded_into_the_file(self):
        self.useFixture(fixtures.MockPatchObject(
            fake_state, 'COMPACT_AFTER', 3))
        store = self.store()
        for name in 'abc':
            store.add(name, guest())
        self.assertEqual(3, len(self.journal_lines()))
        store.update('a', power_state=4)
        self.assertFalse(os.path.exists(self.journal))
        with open(self.path) as handle:
            self.assertEqual(['a', 'b', 'c'],
                             sorted(json.load(handle)['guests']))
        store.remove('c')
        self.assertEqual(1, len(self.journal_lines()))
        self.assertEqual(['a', 'b'], sorted(self.store().uuids()))

    def test_a_restart_folds_the_journal_and_keeps_every_guest(self):
        store = self.store()
        store.add('a', guest())
        store.add('b', guest(vcpus=2))
        again = self.store()
        self.assertEqual(['a', 'b'], sorted(again.uuids()))
        self.assertEqual(['cmp1.json'],
                         os.listdir(os.path.dirname(self.path)))
        again.remove('a')
        self.assertEqual({'b': guest(vcpus=2)}, self.store()._guests)

    def test_a_line_torn_by_a_kill_is_skipped(self):
        store = self.store()
        store.add('a', guest())
        with open(self.journal, 'a') as handle:
            handle.write('{"uuid": "b", "gu')
        self.assertEqual(['a'], list(fake_state.read_guests(self.path)))
        # The restart folds the journal: later lines are not appended to
        # the torn one.
        again = self.store()
        again.add('c', guest())
        self.assertEqual(['a', 'c'], sorted(self.store().uuids()))

    def test_a_bad_line_before_the_last_is_an_error(self):
        store = self.store()
        store.add('a', guest())
        with open(self.journal, 'a') as handle:
            handle.write('not json\n{"uuid": "b", "guest": null}\n')
        self.assertRaises(ValueError, fake_state.read_guests, self.path)

    def test_replaying_the_journal_over_the_file_again_is_harmless(self):
        # A kill between writing the file and removing the journal.
        store = self.store()
        store.add('a', guest())
        store.add('b', guest())
        store.remove('a')
        with open(self.journal) as handle:
            journal = handle.read()
        self.store()    # folds and removes the journal
        with open(self.journal, 'w') as handle:
            handle.write(journal)
        self.assertEqual(['b'], list(fake_state.read_guests(self.path)))


class TestUsage(GuestStoreTestCase):
    def test_kept_usage_equals_a_fresh_sum_after_every_change(self):
        store = self.store()
        node = 'cmp1-node-0'
        self.assertEqual(0, store.usage(node)['running_vms'])
        steps = [
            lambda: store.add('a', guest(vcpus=2)),
            lambda: store.add('b', guest(node='cmp1-node-1')),
            lambda: store.update('a', resources={'VCPU': 4, 'MEMORY_MB': 1,
                                                 'DISK_GB': 1},
                                 resize_source=guest(vcpus=2)),
            lambda: store.put('b', guest(vcpus=3)),
            lambda: store.update('a', resize_source=None),
            lambda: store.remove('a'),
            lambda: store.remove('missing'),
        ]
        for step in steps:
            step()
            fresh = store._compute_usage()
            for name in ('cmp1-node-0', 'cmp1-node-1'):
                self.assertEqual(dict(fresh[name]), store.usage(name), name)
        self.assertEqual({'vcpus_used': 3, 'memory_mb_used': 1536,
                          'local_gb_used': 1, 'running_vms': 1},
                         store.usage(node))



class TestFailedWrite(GuestStoreTestCase):
    def test_a_failed_append_is_saved_by_the_next_write(self):
        store = self.store()
        store.add('a', guest())
        with mock.patch.object(fake_state, 'open', create=True,
                               side_effect=OSError(28, 'No space left')):
            self.assertRaises(OSError, store.add, 'b', guest())
        store.add('c', guest())
        self.assertFalse(os.path.exists(self.journal))
        self.assertEqual(['a', 'b', 'c'], sorted(self.store().uuids()))
