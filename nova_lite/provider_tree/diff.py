"""What to send placement to turn the flushed tree into the wanted one.

The resource tracker keeps the provider tree as placement last confirmed it
(``flushed``) and the tree the virt driver just edited (``wanted``).
:func:`diff_trees` compares them and returns a :class:`TreeChanges`, the
minimal list of placement writes, in an order placement accepts:

1. ``creates``: new providers, parents before children
   (``POST /resource_providers``);
2. ``renames``: providers whose name changed (``PUT
   /resource_providers/{uuid}``);
3. ``inventories``, ``traits``, ``aggregates``: one full replacement per
   provider whose set changed (``PUT .../inventories``, ``.../traits``,
   ``.../aggregates``, each with the provider generation), parents first;
4. ``deletes``: providers gone from the wanted tree, children before
   parents (``DELETE /resource_providers/{uuid}``).

A periodic run where nothing changed yields an empty TreeChanges: zero
writes. After a 409 generation conflict the caller re-reads the provider
into ``flushed`` and diffs again, so only what is still missing is sent.

Everything here is a pure function of its arguments.
"""

from nova_lite.provider_tree import tree as pt


class TreeChanges:
    """The writes that take placement from one tree to another."""

    def __init__(self):
        self.creates = []
        self.renames = []
        self.inventories = []
        self.traits = []
        self.aggregates = []
        self.deletes = []

    @property
    def is_empty(self):
        """True when placement already holds the wanted state."""
        return not self.write_count

    @property
    def write_count(self):
        """Number of placement write requests these changes need."""
        return (len(self.creates) + len(self.renames) +
                len(self.inventories) + len(self.traits) +
                len(self.aggregates) + len(self.deletes))

    def __repr__(self):
        return ('<TreeChanges creates=%d renames=%d inventories=%d '
                'traits=%d aggregates=%d deletes=%d>' % (
                    len(self.creates), len(self.renames),
                    len(self.inventories), len(self.traits),
                    len(self.aggregates), len(self.deletes)))


def diff_trees(flushed, wanted):
    """Return the :class:`TreeChanges` from ``flushed`` to ``wanted``.

    :param flushed: ProviderTree as placement last confirmed it.
    :param wanted: ProviderTree as it should be.
    :returns: TreeChanges. ``creates`` holds ProviderData snapshots;
        the other lists hold ``(uuid, value)`` pairs, ``deletes`` uuids.
    :raises ValueError: a provider changed parent (placement before 1.37
        cannot re-parent; nova_lite does not try).
    """
    before = {p.uuid: p for p in flushed.all_data()}
    after = wanted.all_data()
    changes = TreeChanges()
    for provider in after:
        old = before.get(provider.uuid)
        if old is None:
            _record_new(changes, provider)
        else:
            _record_update(changes, old, provider)
    after_uuids = {p.uuid for p in after}
    for provider in reversed(list(before.values())):
        if provider.uuid not in after_uuids:
            changes.deletes.append(provider.uuid)
    return changes


def _record_new(changes, provider):
    changes.creates.append(provider)
    if provider.inventory:
        changes.inventories.append((provider.uuid, provider.inventory))
    if provider.traits:
        changes.traits.append((provider.uuid, provider.traits))
    if provider.aggregates:
        changes.aggregates.append((provider.uuid, provider.aggregates))


def _record_update(changes, old, new):
    if old.parent_uuid != new.parent_uuid:
        raise ValueError('Provider %s moved from parent %s to %s' % (
            new.uuid, old.parent_uuid, new.parent_uuid))
    if old.name != new.name:
        changes.renames.append((new.uuid, new.name))
    if pt.inventory_changed(old.inventory, new.inventory):
        changes.inventories.append((new.uuid, new.inventory))
    if old.traits != new.traits:
        changes.traits.append((new.uuid, new.traits))
    if old.aggregates != new.aggregates:
        changes.aggregates.append((new.uuid, new.aggregates))


def reshaper_body(changes, generations, allocations):
    """The ``POST /reshaper`` body for a reshape.

    :param changes: TreeChanges of the reshaped tree; its ``inventories``
        become the reshaper's inventories. Create the new providers first.
    :param generations: mapping of provider uuid to its current generation
        (new providers included).
    :param allocations: ``{consumer_uuid: {"allocations": {rp_uuid:
        {"resources": {...}}}, "project_id", "user_id",
        "consumer_generation"}}`` as the driver left them; per-provider
        ``generation`` keys are dropped, placement does not take them here.
    """
    inventories = {
        rp_uuid: {'resource_provider_generation': generations[rp_uuid],
                  'inventories': inventory}
        for rp_uuid, inventory in changes.inventories}
    return {'inventories': inventories,
            'allocations': _strip_allocations(allocations)}


def _strip_allocations(allocations):
    result = {}
    for consumer, record in allocations.items():
        clean = {key: value for key, value in record.items()
                 if key != 'allocations'}
        clean['allocations'] = {
            rp_uuid: {'resources': dict(entry['resources'])}
            for rp_uuid, entry in record['allocations'].items()
            if entry.get('resources')}
        result[consumer] = clean
    return result
