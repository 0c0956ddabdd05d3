"""The fault suite reads the fake driver's guests of every host from its
file and journal, as a restarted compute would."""

import types

import fixtures
import testtools

from nova_lite.virt import fake_state
from tests.faults import faultlab


class TestGuests(testtools.TestCase):
    def test_every_host_with_a_file_or_only_a_journal(self):
        state = self.useFixture(fixtures.TempDir()).path
        folded = fake_state.GuestStore(
            fake_state.state_file(state, 'cmp1'), 'cmp1')
        folded.prepare()
        folded.add('a', {'node': 'cmp1-node-0'})
        folded.load()       # a restart: the journal folded into the file
        folded.add('b', {'node': 'cmp1-node-1'})
        fresh = fake_state.GuestStore(
            fake_state.state_file(state, 'cmp2'), 'cmp2')
        fresh.prepare()
        fresh.add('c', {'node': 'cmp2-node-0'})
        fresh.remove('c')
        fresh.add('d', {'node': 'cmp2-node-0'})
        self.assertEqual(
            {'a': 'cmp1-node-0', 'b': 'cmp1-node-1', 'd': 'cmp2-node-0'},
            faultlab.guests(types.SimpleNamespace(state=state)))
