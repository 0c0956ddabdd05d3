"""The compute's report client: provider trees and allocations in placement.

Built on :class:`nova_lite.clients.placement.PlacementClient`, it gives the
resource tracker and the compute manager what they need from placement:

* :meth:`ReportClient.read_trees` / :meth:`ReportClient.read_tree`: the
  provider trees as placement holds them (at start, and after a conflict);
* :meth:`ReportClient.check_generations`: one ``GET
  /resource_providers?in_tree=`` per tree, re-reading only providers whose
  generation moved (someone else changed them);
* :meth:`ReportClient.flush`: send the difference between the tree placement
  last confirmed (``flushed``) and the wanted one, nothing when they are
  equal. A 409 generation conflict re-reads that provider into ``flushed``
  and diffs again, so only what is still missing is re-sent, at most
  ``MAX_FLUSH_ATTEMPTS`` times;
* :meth:`ReportClient.reshape`: new providers first, then every inventory
  change with the moved allocations in one ``POST /reshaper``;
* allocations: read one consumer's, every consumer's of a tree, delete.

``flushed`` trees are updated in place as each write succeeds (with the
generation placement answered), so an error half-way leaves a tree that
still says exactly what placement holds. Errors: the placement client's
(``PlacementUnreachable`` when it cannot be reached, ``PlacementError``
for answers it did not expect) plus :class:`FlushConflict` when conflicts
persist.
"""

from oslo_log import log as logging

import concurrent.futures

from nova_lite.clients import placement as placement_client
from nova_lite.clients import report_batch
from nova_lite import conf as nl_conf
from nova_lite.provider_tree import diff as provider_tree_diff
from nova_lite.provider_tree import tree as pt

LOG = logging.getLogger(__name__)
CONF = nl_conf.CONF

MAX_FLUSH_ATTEMPTS = 4
RESHAPER_MICROVERSION = '1.30'
_STANDARD_TRAIT_PREFIX = 'CUSTOM_'


class FlushConflict(placement_client.PlacementClientError):
    """Generation conflicts went on after every retry."""


class _Retry(Exception):
    """A provider was re-read after a conflict: diff again."""


def _provider_record(provider):
    return {'uuid': provider['uuid'], 'name': provider['name'],
            'generation': provider['generation'],
            'parent_provider_uuid': provider.get('parent_provider_uuid')}


class ReportClient:
    """Provider tree sync and allocations for one compute process."""

    def __init__(self, client, concurrency=None):
        self.client = client
        self.concurrency = (concurrency if concurrency is not None else
                            CONF.placement.max_parallel_requests)
        self._known_custom = set()

    # -- reading ---------------------------------------------------------

    def read_trees(self, root_uuids):
        """``{root_uuid: ProviderTree}`` for each root, as placement holds
        it; an empty tree for a root placement does not know.

        One listing of every provider, then inventories, traits and
        aggregates of each provider of these trees.
        """
        wanted = set(root_uuids)
        listing = self.client.list_providers()
        by_root = {root: [] for root in wanted}
        for provider in listing:
            root = provider.get('root_provider_uuid') or provider['uuid']
            if root in wanted:
                by_root[root].append(_provider_record(provider))
        self._read_associations([record for records in by_root.values()
                                 for record in records])
        result = {}
        for root, records in by_root.items():
            tree = pt.ProviderTree()
            tree.populate_from_iterable(records)
            result[root] = tree
        return result

    def read_tree(self, root_uuid):
        """The tree of ``root_uuid`` (empty when placement lacks it)."""
        listing = self.client.list_providers(in_tree=root_uuid)
        return self._build_tree([_provider_record(p) for p in listing])

    def _build_tree(self, records):
        self._read_associations(records)
        tree = pt.ProviderTree()
        tree.populate_from_iterable(records)
        return tree

    def _read_associations(self, records):
        """Add inventories, traits and aggregates to each provider record
        (three reads each, ``concurrency`` records at a time)."""
        def read(record):
            record.update(self._associations(record['uuid']))

        if self.concurrency <= 1 or len(records) <= 1:
            for record in records:
                read(record)
            return
        with concurrent.futures.ThreadPoolExecutor(
                max_workers=min(self.concurrency, len(records)),
                thread_name_prefix='placement-read') as pool:
            for _ in pool.map(read, records):
                pass

    def _associations(self, rp_uuid):
        inventories = self.client.get_inventories(rp_uuid)
        traits = self.client.get_traits(rp_uuid)
        aggregates = self.client.get_aggregates(rp_uuid)
        return {'inventories': inventories['inventories'],
                'traits': traits['traits'],
                'aggregates': aggregates['aggregates'],
                'generation': aggregates.get(
                    'resource_provider_generation',
                    traits['resource_provider_generation'])}

    def refresh_provider(self, tree, rp_uuid):
        """Re-read one provider of ``tree`` (generation and associations);
        remove it (and its children) from ``tree`` when placement lost it.
        """
        try:
            provider = self.client.get_provider(rp_uuid)
            record = _provider_record(provider)
            record.update(self._associations(rp_uuid))
        except placement_client.PlacementNotFound:
            if tree.exists(rp_uuid):
                tree.remove(rp_uuid)
            return
        tree.populate_from_iterable([record])

    def list_providers(self):
        """Every provider placement holds (one read), for
        :meth:`check_generations` of many trees at once."""
        return self.client.list_providers()

    def check_generations(self, tree, root_uuid, listing=None):
        """Re-read the providers of ``tree`` that others changed.

        :param listing: providers as :meth:`list_providers` returned them
            (shared by many trees); None reads this tree's (one ``GET
            ?in_tree=``).
        :returns: the number of providers re-read (0 when nothing moved).
        """
        if listing is None:
            listing = self.client.list_providers(in_tree=root_uuid)
        current = {p['uuid']: p for p in listing
                   if (p.get('root_provider_uuid') or p['uuid']) ==
                   root_uuid}
        stale = [u for u in tree.get_provider_uuids()
                 if u not in current or
                 current[u]['generation'] != tree.data(u).generation or
                 current[u]['name'] != tree.data(u).name]
        new = [p for u, p in current.items() if not tree.exists(u)]
        for rp_uuid in stale:
            if tree.exists(rp_uuid):
                self.refresh_provider(tree, rp_uuid)
        if new:
            self._add_new(tree, new)
        return len(stale) + len(new)

    def _add_new(self, tree, providers):
        records = [_provider_record(p) for p in providers]
        self._read_associations(records)
        tree.populate_from_iterable(records)

    # -- writing ---------------------------------------------------------

    def flush(self, flushed, wanted, rebuild=None):
        """Make placement hold ``wanted``; update ``flushed`` to match.

        :param flushed: the tree placement last confirmed (updated in
            place).
        :param wanted: the tree placement should hold.
        :param rebuild: callable(flushed) -> wanted tree, called after a
            conflict re-read ``flushed``, so that what others changed
            (an operator's trait...) is kept; without it ``wanted`` is
            sent again as it is.
        :returns: the number of write requests sent (0: nothing changed).
        :raises FlushConflict: conflicts persisted past the retries.
        """
        writes = 0
        for _attempt in range(MAX_FLUSH_ATTEMPTS):
            changes = provider_tree_diff.diff_trees(flushed, wanted)
            if changes.is_empty:
                return writes
            try:
                writes += self._apply(flushed, changes)
                return writes
            except _Retry as retry:
                writes += retry.args[0]
            if rebuild is not None:
                wanted = rebuild(flushed)
        raise FlushConflict('provider tree %s: generation conflicts after %d '
                            'attempts' % (wanted.get_provider_uuids()[:1],
                                          MAX_FLUSH_ATTEMPTS))

    def flush_many(self, jobs):
        """:meth:`flush` for many trees at once (one per node of a
        compute), in few round trips and ``concurrency`` requests at a
        time: see :mod:`nova_lite.clients.report_batch`.

        :param jobs: :class:`report_batch.FlushJob` list; each gets its
            ``writes`` and ``error`` (None: placement holds ``wanted``).
        :returns: the number of write requests sent.
        """
        return report_batch.flush_many(self, jobs, self.concurrency)

    def create_new_providers(self, flushed, wanted):
        """Create the providers of ``wanted`` that ``flushed`` lacks
        (parents first) and add them to ``flushed``; the writes sent."""
        counter = [0]
        for provider in provider_tree_diff.diff_trees(flushed,
                                                      wanted).creates:
            self._create(flushed, provider, counter)
        return counter[0]

    def _apply(self, flushed, changes):
        counter = [0]
        try:
            for provider in changes.creates:
                self._create(flushed, provider, counter)
            self._apply_updates(flushed, changes, counter)
            for rp_uuid in changes.deletes:
                self._delete(flushed, rp_uuid, counter)
        except placement_client.PlacementConflict as conflict:
            if not conflict.is_generation_conflict:
                raise
            rp_uuid = getattr(conflict, 'rp_uuid', None)
            LOG.info('Generation conflict on provider %s; re-reading it',
                     rp_uuid)
            if rp_uuid is not None:
                self.refresh_provider(flushed, rp_uuid)
            raise _Retry(counter[0])
        return counter[0]

    def _apply_updates(self, flushed, changes, counter):
        for rp_uuid, name in changes.renames:
            self._write(counter, rp_uuid, self._rename, flushed, rp_uuid,
                        name)
        for rp_uuid, inventory in changes.inventories:
            self._write(counter, rp_uuid, self._set_inventory, flushed,
                        rp_uuid, inventory)
        for rp_uuid, traits in changes.traits:
            self._write(counter, rp_uuid, self._set_traits, flushed,
                        rp_uuid, traits)
        for rp_uuid, aggregates in changes.aggregates:
            self._write(counter, rp_uuid, self._set_aggregates, flushed,
                        rp_uuid, aggregates)

    @staticmethod
    def _write(counter, rp_uuid, func, *args):
        try:
            func(*args)
        except placement_client.PlacementConflict as conflict:
            conflict.rp_uuid = rp_uuid
            raise
        counter[0] += 1

    def _create(self, flushed, provider, counter):
        try:
            created = self.client.create_provider(
                provider.name, uuid=provider.uuid,
                parent_provider_uuid=provider.parent_uuid)
        except placement_client.PlacementConflict:
            # NOTE(nova_lite): created by an earlier attempt whose answer
            # was lost? Take placement's copy; a name taken by another
            # provider stays an error.
            created = self._existing(provider.uuid)
            if created is None:
                raise
        counter[0] += 1
        if provider.parent_uuid is None:
            flushed.new_root(created['name'], created['uuid'],
                             created['generation'])
        else:
            flushed.new_child(created['name'], provider.parent_uuid,
                              uuid=created['uuid'],
                              generation=created['generation'])

    def _existing(self, rp_uuid):
        try:
            return self.client.get_provider(rp_uuid)
        except placement_client.PlacementNotFound:
            return None

    def _rename(self, flushed, rp_uuid, name):
        answer = self.client.request(
            'PUT', '/resource_providers/%s' % rp_uuid,
            {'name': name,
             'parent_provider_uuid': flushed.data(rp_uuid).parent_uuid})
        flushed.populate_from_iterable([_provider_record(answer)])

    def _set_inventory(self, flushed, rp_uuid, inventory):
        self._ensure_resource_classes(inventory)
        generation = flushed.data(rp_uuid).generation
        answer = self.client.set_inventories(rp_uuid, generation, inventory)
        flushed.update_inventory(rp_uuid, inventory,
                                 answer['resource_provider_generation'])

    def _set_traits(self, flushed, rp_uuid, traits):
        self._ensure_traits(traits)
        generation = flushed.data(rp_uuid).generation
        answer = self.client.set_traits(rp_uuid, generation, sorted(traits))
        flushed.update_traits(rp_uuid, traits,
                              answer['resource_provider_generation'])

    def _set_aggregates(self, flushed, rp_uuid, aggregates):
        generation = flushed.data(rp_uuid).generation
        answer = self.client.set_aggregates(rp_uuid, generation,
                                            sorted(aggregates))
        flushed.update_aggregates(
            rp_uuid, aggregates,
            answer.get('resource_provider_generation'))

    def _delete(self, flushed, rp_uuid, counter):
        try:
            self.client.delete_provider(rp_uuid)
        except placement_client.PlacementNotFound:
            pass
        counter[0] += 1
        if flushed.exists(rp_uuid):
            flushed.remove(rp_uuid)

    def _ensure_traits(self, traits):
        for trait in traits:
            if trait.startswith(_STANDARD_TRAIT_PREFIX) and \
                    trait not in self._known_custom:
                self.client.ensure_trait(trait)
                self._known_custom.add(trait)

    def ensure_resource_classes(self, inventory):
        """Create the custom resource classes of ``inventory`` placement
        may not know yet (once per process)."""
        self._ensure_resource_classes(inventory)

    def _ensure_resource_classes(self, inventory):
        for rc in inventory:
            if rc.startswith(_STANDARD_TRAIT_PREFIX) and \
                    rc not in self._known_custom:
                self.client.ensure_resource_class(rc)
                self._known_custom.add(rc)

    # -- reshape ---------------------------------------------------------

    def reshape(self, flushed, wanted, allocations, rebuild=None):
        """Move inventory and ``allocations`` in one ``POST /reshaper``.

        New providers are created first; the reshaper then replaces the
        inventory of every provider whose inventory changed and the
        allocations of every consumer given; the rest of the diff
        (traits, aggregates, deletes) follows as a normal flush.

        :returns: number of write requests sent.
        """
        counter = [0]
        changes = provider_tree_diff.diff_trees(flushed, wanted)
        for provider in changes.creates:
            self._create(flushed, provider, counter)
        for _rp_uuid, inventory in changes.inventories:
            self._ensure_resource_classes(inventory)
        generations = {u: flushed.data(u).generation
                       for u, _inv in changes.inventories}
        body = provider_tree_diff.reshaper_body(changes, generations,
                                                allocations)
        self.client.request('POST', '/reshaper', body,
                            microversion=RESHAPER_MICROVERSION)
        counter[0] += 1
        LOG.info('Reshaped providers %s moving the allocations of %d '
                 'consumers', sorted(generations), len(allocations))
        for rp_uuid in generations:
            self.refresh_provider(flushed, rp_uuid)
        return counter[0] + self.flush(flushed, wanted, rebuild=rebuild)

    # -- allocations -----------------------------------------------------

    def get_allocations(self, consumer_uuid):
        """``GET /allocations/{consumer}``: ``allocations`` ({rp_uuid:
        {"resources", "generation"}}), project/user, consumer_generation.
        """
        return self.client.get_allocations(consumer_uuid)

    def get_allocations_for_tree(self, tree):
        """Every consumer's allocations against any provider of ``tree``,
        in the shape ``update_provider_tree`` and the reshaper take."""
        consumers = set()
        for rp_uuid in tree.get_provider_uuids():
            answer = self.client.get_provider_allocations(rp_uuid)
            consumers.update(answer.get('allocations', {}))
        result = {}
        for consumer in sorted(consumers):
            record = self.client.get_allocations(consumer)
            result[consumer] = {
                'allocations': {
                    rp: {'resources': dict(entry['resources'])}
                    for rp, entry in record['allocations'].items()},
                'project_id': record.get('project_id'),
                'user_id': record.get('user_id'),
                'consumer_generation': record.get('consumer_generation'),
            }
        return result

    def tree_has_allocations(self, tree):
        """True when any provider of ``tree`` has allocations."""
        for rp_uuid in tree.get_provider_uuids():
            try:
                answer = self.client.get_provider_allocations(rp_uuid)
            except placement_client.PlacementNotFound:
                continue
            if answer.get('allocations'):
                return True
        return False

    def delete_allocation(self, consumer_uuid):
        """Delete every allocation of the consumer; True if there were
        some."""
        try:
            self.client.delete_allocations(consumer_uuid)
        except placement_client.PlacementNotFound:
            return False
        return True

    def delete_tree(self, tree):
        """Delete every provider of ``tree`` from placement, children
        first. Providers already gone are skipped."""
        for rp_uuid in reversed(tree.get_provider_uuids()):
            try:
                self.client.delete_provider(rp_uuid)
            except placement_client.PlacementNotFound:
                pass
