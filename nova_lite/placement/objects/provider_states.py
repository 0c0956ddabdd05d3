"""What a placement worker remembers of providers between candidate
searches: each provider's inventories (capacity and unit limits, not the
usage) and traits, as they were at one version of the provider.

Why: reading and converting those rows is most of a large search's SQL
cost (thousands of inventory rows at 1,000 providers on SQLite; on
MariaDB the packed read of inventories and traits is the slowest
statement), and they change far less often than they are read. The
effect on each query is in doc/benchmarks.md. The usage, which every
claim and every delete changes, is still read on every request.

Why a version is enough: every write to a provider's inventories or
traits bumps its generation in the same transaction, and writes
``updated_at`` with it (``common.increment_generation``). A provider is
known by its id and uuid; the version is its generation and that
``updated_at``, so a provider deleted and created again with the same
uuid (and, on SQLite, the same reused id) is not mistaken for the old
one when it reaches the same generation. The generation is read with
the provider's row, before its inventories and traits are, so a write
landing between the two reads leaves an entry under the older version,
which no later read matches.

What is not remembered: aggregates (an aggregate change before
microversion 1.19 does not bump the generation) and usage. The states
are per database engine (a test's fresh database is another engine) and
per process (each worker learns them on its own first search).
"""

import threading
import weakref

# More entries than this and the states are dropped whole and learnt
# again (about 0.5 KB each: 50,000 providers ~25 MB per worker).
MAX_ENTRIES = 50000

_BY_ENGINE = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class ProviderStates:
    """{provider id: (uuid, version, inventories or None, traits)} of
    one database, filled by full reads and used when a search's
    providers are all known."""

    def __init__(self, limit=MAX_ENTRIES):
        self.limit = limit
        self._entries = {}

    def __len__(self):
        return len(self._entries)

    def clear(self):
        self._entries.clear()

    def recall(self, providers, usable=None):
        """([(provider, inventories or None, traits)] of the providers of
        ``providers`` ({id: Provider}) known at their version, {id:
        Provider} of the others).

        An entry without inventories (its provider was left unread by a
        narrowed read) serves only when ``usable`` rejects the provider
        by its traits: that provider is then left without inventories,
        as the narrowed read leaves it; otherwise it is unknown."""
        entries = self._entries
        found, unknown = [], {}
        for rp_id, provider in providers.items():
            entry = entries.get(rp_id)
            if (entry is None or entry[0] != provider.uuid or
                    entry[1] != provider.version or
                    (entry[2] is None and (
                        usable is None or
                        _usable_with(provider, entry[3], usable)))):
                unknown[rp_id] = provider
            else:
                found.append((provider, entry[2], entry[3]))
        return found, unknown

    def remember(self, providers, read):
        """Keep the inventories and traits of ``providers`` as just read;
        ``read``: the ids whose inventories were read, None for all (the
        others are kept with their traits only). The inventories are kept
        with no usage, the tuples a provider without allocations gets
        as they are."""
        entries = self._entries
        new = sum(1 for rp_id in providers if rp_id not in entries)
        if len(entries) + new > self.limit:
            entries.clear()
        for rp_id, provider in providers.items():
            inventories = None
            if read is None or rp_id in read:
                inventories = {rc: values[:4] + (0,)
                               for rc, values in provider.inv.items()}
            entries[rp_id] = (provider.uuid, provider.version, inventories,
                              frozenset(provider.traits))


def _usable_with(provider, traits, usable):
    """``usable(provider)`` as it answers with ``traits`` filled in."""
    provider.traits = traits
    try:
        return usable(provider)
    finally:
        provider.traits = set()


def of(session):
    """The :class:`ProviderStates` of ``session``'s database engine."""
    bind = session.get_bind()
    engine = getattr(bind, 'engine', bind)
    states = _BY_ENGINE.get(engine)
    if states is None:
        with _LOCK:
            states = _BY_ENGINE.get(engine)
            if states is None:
                states = _BY_ENGINE[engine] = ProviderStates()
    return states


def clear_all():
    """Forget every engine's states (a test comparing cold reads)."""
    for states in list(_BY_ENGINE.values()):
        states.clear()
