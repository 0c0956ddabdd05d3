"""The provider tree a fake node reports, and how it reshapes.

Layout of one node (``N`` = node name):

* root ``N``: DISK_GB; VCPU and MEMORY_MB unless the node has NUMA cells;
  VGPU (``pgpus * vgpus_per_pgpu``) when ``vgpu_on_children`` is false;
  traits: a few ``HW_CPU_X86_*``, the driver's capability traits,
  ``HW_NUMA_ROOT`` with NUMA cells.
* nested nodes only (``nested_nodes``):

  - ``N_numa<i>`` for ``i < numa_nodes``: VCPU and MEMORY_MB, split evenly
    (the first cells take the remainder), reserved amounts split the same
    way. Splitting, rather than keeping VCPU on the root, lets scheduler
    tests exercise resources spread over a tree;
  - ``N_pf<i>`` for ``i < sriov_pfs``: SRIOV_NET_VF ``vfs_per_pf``, traits
    ``HW_NIC_SRIOV`` and ``CUSTOM_PHYSNET_<NAME>`` of ``physnets[i % len]``;
  - ``N_pgpu<i>`` for ``i < pgpus`` when ``vgpu_on_children``: VGPU
    ``vgpus_per_pgpu``.

Provider uuids are ``uuid5(FAKE_NAMESPACE, N)`` for the root and
``uuid5(FAKE_NAMESPACE, "N/<kind><i>")`` for children, so they are the same
after a restart and on every host that computes them. Inventories of total
0 are left out (placement refuses them).

A *reshape* is needed when a resource class leaves a provider that carried
it while it stays elsewhere in the node's tree (VGPU from the root to the
pGPUs, VCPU into NUMA cells, fewer pGPUs...): the allocations against the
old provider must move in the same placement call.
"""

import collections
import re
import uuid as uuid_lib

import os_traits

from nova_lite.virt import driver
from nova_lite.virt import exception as virt_exc

FAKE_NAMESPACE = uuid_lib.UUID('6c1e4bd0-3f55-5b0a-9d8b-6e6f76616c69')

CPU_TRAITS = frozenset([os_traits.HW_CPU_X86_SSE42, os_traits.HW_CPU_X86_AVX,
                        os_traits.HW_CPU_X86_AVX2])
PF_TRAIT = os_traits.HW_NIC_SRIOV
PHYSNET_PREFIX = 'CUSTOM_PHYSNET_'
ROOT_OWNED_TRAITS = (CPU_TRAITS | {os_traits.HW_NUMA_ROOT} |
                     frozenset(driver.CAPABILITY_TRAITS.values()))

ProviderSpec = collections.namedtuple(
    'ProviderSpec', ['name', 'uuid', 'inventory', 'traits'])


def node_uuid(nodename):
    """The stable provider uuid of a node's root."""
    return str(uuid_lib.uuid5(FAKE_NAMESPACE, nodename))


def child_uuid(nodename, kind, index):
    """The stable provider uuid of a node's child ``<kind><index>``."""
    return str(uuid_lib.uuid5(FAKE_NAMESPACE,
                              '%s/%s%d' % (nodename, kind, index)))


def physnet_trait(physnet):
    """``CUSTOM_PHYSNET_<NAME>`` for a physical network name."""
    return os_traits.normalize_name('PHYSNET_' + physnet)


_OWNED_SUFFIX = re.compile(r'(numa|pf|pgpu)\d+')


def is_owned_child_name(nodename, name):
    """Whether ``name`` is that of a child the driver creates for
    ``nodename`` (``<nodename>_numa0``, ``_pf1``, ``_pgpu0``...).

    Not one regex per node: 1,000 nodes overflow ``re``'s cache, so every
    call would compile its pattern again.
    """
    prefix = nodename + '_'
    return name.startswith(prefix) and _OWNED_SUFFIX.fullmatch(
        name, len(prefix)) is not None


def split(total, parts):
    """``total`` split into ``parts`` near-equal integers, larger first."""
    base, remainder = divmod(total, parts)
    return [base + 1 if i < remainder else base for i in range(parts)]


def record(total, reserved=0, ratio=1.0):
    """An inventory record; reserved is capped at the total."""
    return {'total': total, 'reserved': min(reserved, total), 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': ratio}


class NodeLayout:
    """The wanted providers of one node, root first.

    :param settings: FakeSettings.
    :param nodename: the node.
    :param reserved: ``{rc: amount}`` reserved on the whole node.
    :param ratios_for: callable(provider uuid) -> ``{rc: ratio}``.
    :param root_traits: capability-derived traits the root should have.
    """

    def __init__(self, settings, nodename, reserved, ratios_for,
                 root_traits):
        self.settings = settings
        self.nodename = nodename
        self.reserved = reserved
        self.ratios_for = ratios_for
        self.nested = settings.is_nested(nodename)
        self.numa = self.nested and settings.numa_nodes > 0
        self.providers = [self._root(root_traits)]
        if self.numa:
            self.providers.extend(self._numa_cells())
        if self.nested:
            self.providers.extend(self._pfs())
            if settings.vgpu_on_children:
                self.providers.extend(self._pgpus())

    def _inventory(self, uuid, amounts, reserved):
        ratios = self.ratios_for(uuid)
        return {rc: record(total, reserved.get(rc, 0), ratios.get(rc, 1.0))
                for rc, total in amounts.items() if total > 0}

    def _root(self, root_traits):
        s = self.settings
        uuid = node_uuid(self.nodename)
        amounts = {'DISK_GB': s.disk_gb}
        if not self.numa:
            amounts.update(VCPU=s.vcpus, MEMORY_MB=s.memory_mb)
        if self.nested and not s.vgpu_on_children:
            amounts['VGPU'] = s.pgpus * s.vgpus_per_pgpu
        traits = set(CPU_TRAITS) | set(root_traits)
        if self.numa:
            traits.add(os_traits.HW_NUMA_ROOT)
        return ProviderSpec(self.nodename, uuid,
                            self._inventory(uuid, amounts, self.reserved),
                            frozenset(traits))

    def _numa_cells(self):
        s = self.settings
        n = s.numa_nodes
        cells = zip(split(s.vcpus, n), split(s.memory_mb, n),
                    split(self.reserved.get('VCPU', 0), n),
                    split(self.reserved.get('MEMORY_MB', 0), n), strict=True)
        for i, (vcpus, memory, r_vcpus, r_memory) in enumerate(cells):
            uuid = child_uuid(self.nodename, 'numa', i)
            yield ProviderSpec(
                '%s_numa%d' % (self.nodename, i), uuid,
                self._inventory(uuid, {'VCPU': vcpus, 'MEMORY_MB': memory},
                                {'VCPU': r_vcpus, 'MEMORY_MB': r_memory}),
                frozenset())

    def _pfs(self):
        s = self.settings
        for i in range(s.sriov_pfs):
            traits = {PF_TRAIT}
            if s.physnets:
                traits.add(physnet_trait(s.physnets[i % len(s.physnets)]))
            uuid = child_uuid(self.nodename, 'pf', i)
            yield ProviderSpec(
                '%s_pf%d' % (self.nodename, i), uuid,
                self._inventory(uuid, {'SRIOV_NET_VF': s.vfs_per_pf}, {}),
                frozenset(traits))

    def _pgpus(self):
        s = self.settings
        for i in range(s.pgpus):
            uuid = child_uuid(self.nodename, 'pgpu', i)
            yield ProviderSpec(
                '%s_pgpu%d' % (self.nodename, i), uuid,
                self._inventory(uuid, {'VGPU': s.vgpus_per_pgpu}, {}),
                frozenset())


def current_carriers(provider_tree, uuids):
    """``{rc: [uuid, ...]}`` of providers in ``uuids`` carrying each rc."""
    carriers = collections.defaultdict(list)
    for uuid in uuids:
        for rc in provider_tree.data(uuid).inventory:
            carriers[rc].append(uuid)
    return carriers


def moving_classes(old_carriers, providers):
    """Resource classes that leave a provider but stay in the tree.

    :param old_carriers: ``{rc: [uuid]}`` in the tree now.
    :param providers: the wanted ProviderSpecs.
    :returns: ``{rc: (lost_uuids, new_carrier_specs)}``.
    """
    moving = {}
    for rc, old in old_carriers.items():
        new = [p for p in providers if rc in p.inventory]
        new_uuids = {p.uuid for p in new}
        lost = [u for u in old if u not in new_uuids]
        if lost and new:
            moving[rc] = (lost, new)
    return moving


def move_allocations(nodename, allocations, moving):
    """Move allocations of moving classes to their new carriers, in place.

    Each consumer's amount goes whole to the first new carrier with room,
    else it is spread over several; consumers are handled in uuid order so
    the result is repeatable.

    :raises ReshapeFailed: the new carriers cannot hold the allocations.
    """
    for rc, (lost, carriers) in sorted(moving.items()):
        free = _free_capacity(rc, carriers, allocations, set(lost))
        for consumer in sorted(allocations):
            by_rp = allocations[consumer]['allocations']
            amount = _take(by_rp, lost, rc)
            if amount:
                _place(nodename, rc, consumer, amount, by_rp, free)


def _capacity(inventory):
    return int((inventory['total'] - inventory['reserved']) *
               inventory['allocation_ratio'])


def _free_capacity(rc, carriers, allocations, lost):
    free = collections.OrderedDict(
        (p.uuid, _capacity(p.inventory[rc])) for p in carriers)
    for record_ in allocations.values():
        for rp_uuid, entry in record_['allocations'].items():
            if rp_uuid in free and rp_uuid not in lost:
                free[rp_uuid] -= entry.get('resources', {}).get(rc, 0)
    return free


def _take(by_rp, lost, rc):
    amount = 0
    for rp_uuid in lost:
        resources = by_rp.get(rp_uuid, {}).get('resources', {})
        amount += resources.pop(rc, 0)
        if rp_uuid in by_rp and not resources:
            del by_rp[rp_uuid]
    return amount


def _place(nodename, rc, consumer, amount, by_rp, free):
    whole = next((u for u, room in free.items() if room >= amount), None)
    shares = ({whole: amount} if whole else
              _spread(nodename, rc, consumer, amount, free))
    for rp_uuid, share in shares.items():
        free[rp_uuid] -= share
        resources = by_rp.setdefault(rp_uuid, {}).setdefault('resources', {})
        resources[rc] = resources.get(rc, 0) + share


def _spread(nodename, rc, consumer, amount, free):
    shares = {}
    for rp_uuid, room in free.items():
        share = min(room, amount - sum(shares.values()))
        if share > 0:
            shares[rp_uuid] = share
    if sum(shares.values()) < amount:
        raise virt_exc.ReshapeFailed(
            node=nodename, reason='no room for %d %s of consumer %s' % (
                amount, rc, consumer))
    return shares
