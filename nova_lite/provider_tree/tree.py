"""An in-memory forest of resource providers, as placement sees them.

The resource tracker keeps, per node, the tree it last flushed to
placement, hands the virt driver a copy of it to edit
(``ComputeDriver.update_provider_tree``), and sends placement only the
difference between the two (:mod:`nova_lite.provider_tree.diff`).

Each provider carries what placement stores about it: uuid, name,
generation, parent, inventory (``{resource_class: record}``), traits and
aggregates (sets). A record holds ``total, reserved, min_unit, max_unit,
step_size, allocation_ratio``; records may omit keys, which then take
placement's defaults.

Ownership and threads: one lock serialises every call, so a tree may be
shared between the periodic task and RPC handlers. Readers get
:class:`ProviderData` snapshots, never the live objects. Nothing here talks
to placement; ``update_*`` only record the new state (and the generation
when given), they never bump generations themselves.

Names and uuids are both unique across the forest (placement enforces both
globally), so every method taking ``name_or_uuid`` accepts either.
"""

import copy
import threading
import uuid as uuid_lib


class ProviderData:
    """A read-only snapshot of one provider; changing it changes nothing."""

    __slots__ = ('uuid', 'name', 'generation', 'parent_uuid', 'inventory',
                 'traits', 'aggregates', 'resources')

    def __init__(self, provider):
        self.uuid = provider.uuid
        self.name = provider.name
        self.generation = provider.generation
        self.parent_uuid = provider.parent_uuid
        self.inventory = _copy_inventory(provider.inventory)
        self.traits = frozenset(provider.traits)
        self.aggregates = frozenset(provider.aggregates)
        self.resources = _copy_resources(provider.resources)

    def __repr__(self):
        return '<ProviderData %s (%s) parent=%s gen=%s>' % (
            self.name, self.uuid, self.parent_uuid, self.generation)


class _Provider:
    """The mutable provider the tree keeps; never leaves the tree."""

    __slots__ = ('uuid', 'name', 'generation', 'parent_uuid', 'children',
                 'inventory', 'traits', 'aggregates', 'resources')

    def __init__(self, name, uuid, generation=None, parent_uuid=None):
        self.uuid = uuid
        self.name = name
        self.generation = generation
        self.parent_uuid = parent_uuid
        self.children = {}
        self.inventory = {}
        self.traits = set()
        self.aggregates = set()
        self.resources = {}

    def clone(self):
        other = _Provider(self.name, self.uuid, self.generation,
                          self.parent_uuid)
        other.inventory = _copy_inventory(self.inventory)
        other.traits = set(self.traits)
        other.aggregates = set(self.aggregates)
        other.resources = _copy_resources(self.resources)
        return other


def _copy_inventory(inventory):
    """A copy of ``{resource class: {field: number}}``: two levels are
    all there is (``copy.deepcopy`` costs several times more, and a
    compute with 1,000 nodes copies every tree a few times a flush)."""
    return {rc: dict(record) for rc, record in inventory.items()}


def _copy_resources(resources):
    return copy.deepcopy(resources) if resources else {}


def inventory_changed(current, new):
    """Whether ``new`` inventory differs from ``current``.

    Resource classes added or removed count as a change; within a record
    only the keys present in ``new`` are compared, so a driver that leaves
    out ``min_unit`` does not rewrite what placement filled in.
    """
    if set(current) != set(new):
        return True
    for rc, record in new.items():
        old = current[rc]
        for key, value in record.items():
            if old.get(key) != value:
                return True
    return False


class ProviderTree:
    """A thread-safe forest of providers, indexed by uuid and by name."""

    def __init__(self):
        self._lock = threading.RLock()
        self._by_uuid = {}
        self._by_name = {}
        self._roots = {}

    # -- lookups -------------------------------------------------------

    def _find(self, name_or_uuid):
        provider = self._by_uuid.get(name_or_uuid)
        if provider is None:
            provider = self._by_name.get(name_or_uuid)
        if provider is None:
            raise ValueError('No such provider %s' % name_or_uuid)
        return provider

    def exists(self, name_or_uuid):
        """True if a provider with this name or uuid is in the tree."""
        with self._lock:
            return (name_or_uuid in self._by_uuid or
                    name_or_uuid in self._by_name)

    def data(self, name_or_uuid):
        """A :class:`ProviderData` snapshot; ValueError if unknown."""
        with self._lock:
            return ProviderData(self._find(name_or_uuid))

    @property
    def roots(self):
        """Snapshots of the root providers."""
        with self._lock:
            return [ProviderData(p) for p in self._roots.values()]

    def _walk(self, provider):
        """The provider and its descendants, parents before children."""
        order = [provider]
        index = 0
        while index < len(order):
            order.extend(order[index].children.values())
            index += 1
        return order

    def get_provider_uuids(self, name_or_uuid=None):
        """Uuids of a provider and its descendants, parents first.

        With no argument, every provider of the forest, each tree parents
        first.
        """
        with self._lock:
            if name_or_uuid is None:
                return [p.uuid for root in self._roots.values()
                        for p in self._walk(root)]
            return [p.uuid for p in self._walk(self._find(name_or_uuid))]

    def get_provider_uuids_in_tree(self, name_or_uuid):
        """Uuids of the whole tree that contains the provider."""
        with self._lock:
            provider = self._find(name_or_uuid)
            while provider.parent_uuid is not None:
                provider = self._by_uuid[provider.parent_uuid]
            return [p.uuid for p in self._walk(provider)]

    def all_data(self):
        """Snapshots of every provider, each tree parents first."""
        with self._lock:
            return [ProviderData(p) for root in self._roots.values()
                    for p in self._walk(root)]

    # -- structure -------------------------------------------------------

    def _add(self, name, uuid, generation, parent):
        if uuid in self._by_uuid:
            raise ValueError('Provider %s already exists' % uuid)
        if name in self._by_name:
            raise ValueError('Provider named %s already exists' % name)
        provider = _Provider(name, uuid, generation,
                             parent.uuid if parent else None)
        self._by_uuid[uuid] = provider
        self._by_name[name] = provider
        if parent is None:
            self._roots[uuid] = provider
        else:
            parent.children[uuid] = provider
        return provider

    def new_root(self, name, uuid, generation=None):
        """Add a root provider and return its uuid."""
        with self._lock:
            return self._add(name, uuid, generation, None).uuid

    def new_child(self, name, parent, uuid=None, generation=None):
        """Add a child of ``parent`` (name or uuid) and return its uuid.

        A random uuid is chosen when none is given.
        """
        with self._lock:
            parent_provider = self._find(parent)
            uuid = uuid or str(uuid_lib.uuid4())
            return self._add(name, uuid, generation, parent_provider).uuid

    def remove(self, name_or_uuid):
        """Remove a provider and all its descendants."""
        with self._lock:
            provider = self._find(name_or_uuid)
            for gone in self._walk(provider):
                del self._by_uuid[gone.uuid]
                del self._by_name[gone.name]
            if provider.parent_uuid is None:
                del self._roots[provider.uuid]
            else:
                parent = self._by_uuid[provider.parent_uuid]
                del parent.children[provider.uuid]

    def populate_from_iterable(self, provider_dicts):
        """Add or refresh providers from placement's provider listing.

        Takes dicts as ``GET /resource_providers?in_tree=`` returns them
        (``uuid``, ``name``, ``generation``, ``parent_provider_uuid``), in
        any order, optionally with ``inventories``, ``traits`` and
        ``aggregates`` read separately. A provider already in the tree gets
        the new name and generation (and whatever associations the dict
        carries); a new provider is added under its parent, which must be
        in the batch or already in the tree. Nothing is removed.
        """
        pending = {d['uuid']: d for d in provider_dicts}
        with self._lock:
            while pending:
                ready = [d for d in pending.values()
                         if self._parent_known(d)]
                if not ready:
                    raise ValueError(
                        'Providers %s have parents absent from the tree' %
                        sorted(pending))
                for record in ready:
                    self._populate_one(record)
                    del pending[record['uuid']]

    def _parent_known(self, record):
        parent = record.get('parent_provider_uuid')
        return parent is None or parent in self._by_uuid

    def _populate_one(self, record):
        provider = self._by_uuid.get(record['uuid'])
        if provider is None:
            parent_uuid = record.get('parent_provider_uuid')
            parent = self._by_uuid[parent_uuid] if parent_uuid else None
            provider = self._add(record['name'], record['uuid'],
                                 record.get('generation'), parent)
        else:
            self._rename(provider, record['name'])
            provider.generation = record.get('generation',
                                             provider.generation)
        if 'inventories' in record:
            provider.inventory = copy.deepcopy(record['inventories'])
        if 'traits' in record:
            provider.traits = set(record['traits'])
        if 'aggregates' in record:
            provider.aggregates = set(record['aggregates'])

    def _rename(self, provider, name):
        if name == provider.name:
            return
        if name in self._by_name:
            raise ValueError('Provider named %s already exists' % name)
        del self._by_name[provider.name]
        provider.name = name
        self._by_name[name] = provider

    def copy(self):
        """A deep copy, independent of this tree (and of its lock)."""
        other = ProviderTree()
        with self._lock:
            for root in self._roots.values():
                for provider in self._walk(root):
                    clone = provider.clone()
                    other._by_uuid[clone.uuid] = clone
                    other._by_name[clone.name] = clone
                    if clone.parent_uuid is None:
                        other._roots[clone.uuid] = clone
                    else:
                        parent = other._by_uuid[clone.parent_uuid]
                        parent.children[clone.uuid] = clone
        return other

    def __deepcopy__(self, memo):
        return self.copy()

    # -- generations -----------------------------------------------------

    def update_generation(self, name_or_uuid, generation):
        """Record the generation placement last returned for a provider."""
        with self._lock:
            self._find(name_or_uuid).generation = generation

    # -- inventory -------------------------------------------------------

    def has_inventory(self, name_or_uuid):
        """True if the provider has any inventory."""
        with self._lock:
            return bool(self._find(name_or_uuid).inventory)

    def has_inventory_changed(self, name_or_uuid, inventory):
        """Whether ``inventory`` differs from the stored one.

        See :func:`inventory_changed` for what counts as a difference.
        """
        with self._lock:
            return inventory_changed(self._find(name_or_uuid).inventory,
                                     inventory)

    def update_inventory(self, name_or_uuid, inventory, generation=None):
        """Replace the provider's inventory; return True if it changed.

        ``generation``, when given, replaces the stored generation whether
        or not the inventory changed.
        """
        with self._lock:
            provider = self._find(name_or_uuid)
            if generation is not None:
                provider.generation = generation
            if not inventory_changed(provider.inventory, inventory):
                return False
            provider.inventory = _copy_inventory(inventory)
            return True

    # -- traits ------------------------------------------------------------

    def has_traits(self, name_or_uuid, traits):
        """True if the provider has every trait in ``traits``."""
        with self._lock:
            return set(traits) <= self._find(name_or_uuid).traits

    def have_traits_changed(self, name_or_uuid, traits):
        """True if ``traits`` is not exactly the provider's trait set."""
        with self._lock:
            return set(traits) != self._find(name_or_uuid).traits

    def update_traits(self, name_or_uuid, traits, generation=None):
        """Replace the provider's traits; return True if they changed."""
        with self._lock:
            provider = self._find(name_or_uuid)
            if generation is not None:
                provider.generation = generation
            new = set(traits)
            if new == provider.traits:
                return False
            provider.traits = new
            return True

    def add_traits(self, name_or_uuid, *traits):
        """Add traits to the provider (no generation change)."""
        with self._lock:
            self._find(name_or_uuid).traits.update(traits)

    def remove_traits(self, name_or_uuid, *traits):
        """Remove traits from the provider; absent ones are ignored."""
        with self._lock:
            self._find(name_or_uuid).traits.difference_update(traits)

    # -- aggregates ------------------------------------------------------

    def in_aggregates(self, name_or_uuid, aggregates):
        """True if the provider is in every aggregate of ``aggregates``."""
        with self._lock:
            return set(aggregates) <= self._find(name_or_uuid).aggregates

    def have_aggregates_changed(self, name_or_uuid, aggregates):
        """True if ``aggregates`` is not exactly the provider's set."""
        with self._lock:
            return set(aggregates) != self._find(name_or_uuid).aggregates

    def update_aggregates(self, name_or_uuid, aggregates, generation=None):
        """Replace the provider's aggregates; return True if changed."""
        with self._lock:
            provider = self._find(name_or_uuid)
            if generation is not None:
                provider.generation = generation
            new = set(aggregates)
            if new == provider.aggregates:
                return False
            provider.aggregates = new
            return True

    def add_aggregates(self, name_or_uuid, *aggregates):
        """Add the provider to aggregates (no generation change)."""
        with self._lock:
            self._find(name_or_uuid).aggregates.update(aggregates)

    def remove_aggregates(self, name_or_uuid, *aggregates):
        """Remove the provider from aggregates; absent ones are ignored."""
        with self._lock:
            self._find(name_or_uuid).aggregates.difference_update(aggregates)

    # -- assigned resources ----------------------------------------------

    def update_resources(self, name_or_uuid, resources):
        """Record resources assigned from this provider (driver-defined).

        Kept for drivers that track individual devices; placement never
        sees this field. Returns True if it changed.
        """
        with self._lock:
            provider = self._find(name_or_uuid)
            if provider.resources == resources:
                return False
            provider.resources = copy.deepcopy(resources)
            return True
