"""Reshape: replace the inventories of several providers and the
allocations of several consumers in one transaction.

Used when inventory moves inside a tree (a root's VGPU to new child
providers) while it is in use, or back. The steps are Placement's, and so
are the provider generations a reshape leaves (clients read them back):

1. the provider generations the caller sent for ``inventories`` are
   checked (a mismatch is a 409 and nothing is written);
2. *interim* inventories: each provider with new inventories keeps its old
   classes too, with the new ones added or updated over them (generation
   +1), so allocations can move in either direction;
3. the allocations of every consumer named are replaced (a consumer given
   no allocations loses its old ones and goes away); the new ones are
   checked against capacity and unit constraints, and every provider they
   land on, or that an emptied consumer left, gets generation +1;
4. *final* inventories: exactly those sent (generation +1); a class that
   goes while allocations still use it is a 409 ``inventory.inuse``.
"""

from oslo_log import log as logging

from nova_lite.placement.db import api as db_api
from nova_lite.placement import exception
from nova_lite.placement.objects import allocation as alloc_obj
from nova_lite.placement.objects import common
from nova_lite.placement.objects import inventory as inv_obj

LOG = logging.getLogger(__name__)


class InventoryProviderNotFound(exception.ResourceProviderNotFound):
    """A provider named in ``inventories`` does not exist."""


class ProviderGenerationConflict(exception.ConcurrentUpdateDetected):
    msg_fmt = ('resource provider generation conflict for provider '
               '%(uuid)s: actual: %(actual)s, given: %(given)s')


def _check_inventory_providers(context, inventories):
    try:
        providers = alloc_obj._providers(context, set(inventories))
    except exception.ResourceProviderNotFound as exc:
        raise InventoryProviderNotFound(uuid=exc.kwargs['uuid'])
    for rp_uuid, (given, _) in sorted(inventories.items()):
        actual = providers[rp_uuid].generation
        if given != actual:
            raise ProviderGenerationConflict(uuid=rp_uuid, actual=actual,
                                             given=given)
    return providers


class _Generations:
    """The generation of each provider touched, bumped as Placement does."""

    def __init__(self, providers):
        self.providers = providers
        self.current = {u: rp.generation for u, rp in providers.items()}

    def bump(self, context, rp_uuid):
        rp = self.providers[rp_uuid]
        self.current[rp_uuid] = common.bump_internal(
            context, rp.id, rp_uuid, self.current[rp_uuid])

    def bump_all(self, context, rp_uuids):
        """:meth:`bump` each of ``rp_uuids``, in one statement."""
        by_id = {self.providers[u].id: u for u in rp_uuids}
        bumped = common.bump_internal_many(context, {
            rp_id: (u, self.current[u]) for rp_id, u in by_id.items()})
        for rp_id, generation in bumped.items():
            self.current[by_id[rp_id]] = generation


def _visited(context, specs):
    """Providers whose generation the allocation step bumps: those the new
    allocations land on, and those a consumer given none leaves."""
    visited = set()
    for spec in specs:
        if spec.allocations:
            visited |= set(spec.allocations)
        else:
            visited |= alloc_obj._old_provider_uuids(context,
                                                     spec.consumer_uuid)
    return visited


def _replace_allocations(context, specs, providers, generations):
    visited = _visited(context, specs)
    rc_ids = common.rc_ids(context, {
        rc for spec in specs for res in spec.allocations.values()
        for rc in res})
    for spec in specs:
        alloc_obj._write_consumer(context, spec, providers, rc_ids,
                                  alloc_obj.checked_consumer(context, spec))
    # NOTE(nova_lite): only the providers allocated against are checked,
    # so their inventories only are read (in one query): a compute
    # writing the inventories of hundreds of new nodes in one reshape
    # allocates nothing and so reads none.
    allocated = {u for spec in specs for u in spec.allocations}
    if allocated:
        alloc_obj._check_capacity(
            context, {u: providers[u] for u in allocated}, specs)
    for rp_uuid in sorted(visited):
        generations.bump(context, rp_uuid)


@common.write_transaction
@db_api.writer
def reshape(context, inventories, specs):
    """Apply a reshape atomically.

    :param inventories: {rp uuid: (generation, {rc: inventory dict})}
    :param specs: [allocation.ConsumerAllocations]
    :raises InventoryProviderNotFound: a provider of ``inventories``.
    :raises ProviderGenerationConflict: a generation sent is not current.
    """
    inventory_providers = _check_inventory_providers(context, inventories)
    touched = set(inventories)
    for spec in specs:
        touched |= set(spec.allocations)
        touched |= alloc_obj._old_provider_uuids(context, spec.consumer_uuid)
    providers = dict(inventory_providers)
    providers.update(alloc_obj._providers(context, touched - set(providers)))
    generations = _Generations(providers)
    # NOTE(nova_lite): each step writes every provider in a few statements
    # (a compute registering many nodes sends hundreds at once); errors
    # are found in the order of the uuids, as one by one.
    interim = {u: wanted for u, (_, wanted) in inventories.items() if wanted}
    inv_obj.write_many(context, providers, interim, replace_all=False)
    generations.bump_all(context, interim)
    _replace_allocations(context, specs, providers, generations)
    final = {u: wanted for u, (_, wanted) in inventories.items()}
    inv_obj.write_many(context, providers, final, replace_all=True)
    generations.bump_all(context, final)
    LOG.info('Reshaped inventories of %d providers and allocations of %d '
             'consumers', len(inventories), len(specs))
