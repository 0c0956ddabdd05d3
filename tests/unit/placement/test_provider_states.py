"""ProviderStates: a provider is recalled only at the version it was
remembered at (the others come back as unknown, to be read), a provider
remembered without inventories only where the search's trait check
rejects it, and a full table starts again."""

import testtools

from nova_lite.placement.objects import tree_reads


def _provider(rp_id, version=(1, ''), uuid=None, traits=(), inv=None):
    provider = tree_reads.Provider(rp_id, uuid or 'rp-%d' % rp_id, None,
                                   rp_id, version)
    provider.traits = set(traits)
    provider.inv = dict(inv or {7: (8.0, 1, 8, 1, 3)})
    return provider


def _fresh(provider):
    """The provider as the next search reads its row: nothing filled."""
    return tree_reads.Provider(provider.id, provider.uuid, None,
                               provider.id, provider.version)


class TestProviderStates(testtools.TestCase):

    def test_recalled_at_the_same_version_without_usage(self):
        states = tree_reads.ProviderStates()
        rp = _provider(1, traits=['A'])
        states.remember({1: rp}, None)
        again = _fresh(rp)
        [(provider, inventories, traits)], unknown = states.recall(
            {1: again})
        self.assertIs(again, provider)
        self.assertEqual({7: (8.0, 1, 8, 1, 0)}, inventories)
        self.assertEqual(frozenset(['A']), traits)
        self.assertEqual({}, unknown)

    def test_another_version_or_uuid_is_unknown(self):
        states = tree_reads.ProviderStates()
        states.remember({1: _provider(1)}, None)
        for other in (_provider(1, version=(2, '')),
                      _provider(1, version=(1, '2026-12-04 21:00:00.1')),
                      _provider(1, uuid='another')):
            fresh = _fresh(other)
            self.assertEqual(([], {1: fresh}), states.recall({1: fresh}))

    def test_known_and_unknown_apart(self):
        states = tree_reads.ProviderStates()
        states.remember({1: _provider(1)}, None)
        two = _fresh(_provider(2))
        found, unknown = states.recall({1: _fresh(_provider(1)), 2: two})
        self.assertEqual([1], [p.id for p, inv, traits in found])
        self.assertEqual({2: two}, unknown)

    def test_unread_inventories_serve_only_a_rejected_provider(self):
        states = tree_reads.ProviderStates()
        states.remember({1: _provider(1, traits=['A']), 2: _provider(2)},
                        read={1})

        def has_a(provider):
            return 'A' in provider.traits
        found, unknown = states.recall({1: _fresh(_provider(1)),
                                        2: _fresh(_provider(2))},
                                       usable=has_a)
        self.assertEqual({1: None, 2: None}.keys(),
                         {p.id: inv for p, inv, t in found}.keys())
        self.assertEqual([None], [inv for p, inv, t in found if p.id == 2])
        self.assertEqual({}, unknown)
        for usable in (None, lambda provider: True):
            found, unknown = states.recall({2: _fresh(_provider(2))},
                                           usable=usable)
            self.assertEqual(([], [2]), (found, list(unknown)))
            self.assertEqual(set(), unknown[2].traits)

    def test_a_full_table_starts_again(self):
        states = tree_reads.ProviderStates(limit=3)
        states.remember({1: _provider(1), 2: _provider(2)}, None)
        states.remember({3: _provider(3), 4: _provider(4)}, None)
        self.assertEqual(2, len(states))
        self.assertEqual([1], list(states.recall(
            {1: _fresh(_provider(1))})[1]))
        self.assertEqual({}, states.recall({3: _fresh(_provider(3))})[1])

    def test_providers_remembered_again_do_not_fill_the_table(self):
        states = tree_reads.ProviderStates(limit=3)
        states.remember({1: _provider(1), 2: _provider(2)}, None)
        states.remember({2: _provider(2), 3: _provider(3)}, None)
        self.assertEqual(3, len(states))
        self.assertEqual({}, states.recall({1: _fresh(_provider(1))})[1])
