"""nova-lite-manage placement: repair and audit compute allocations.

``heal_allocations`` and ``audit``, with nova-manage's options and exit
codes (see :mod:`nova_lite.cmd.manage`). Both read the cells through the
API database's cell mappings and talk to placement through ``[placement]``
(the client options every service uses).

* ``heal_allocations``: an instance that runs on a node (host and node
  set, not building, not shelved-offloaded, no task in progress) and holds
  no allocation gets its flavor's VCPU, MEMORY_MB and DISK_GB (root +
  ephemeral + swap) on its node's provider, owned by its project and user.
  0: something was healed; 1: ``--max-count`` reached with more to heal;
  2: an instance's node has no compute_nodes row; 3: placement refused an
  allocation; 4: nothing to heal (always with ``--dry-run``); 127: bad
  input.
* ``audit``: an allocation is orphaned unless its consumer is a live
  instance on that provider's node (or a node one of its unfinished
  migrations comes from or goes to, or evacuated from), an instance still
  being scheduled or moving between nodes, or an unfinished migration
  from or to that node. Finished migrations' leftovers are orphans. 0:
  none found; 3: found; 4: found and all deleted (``--delete``); 127:
  bad input.
"""

import math

from oslo_utils import uuidutils

from nova_lite.clients import allocation_moves
from nova_lite.clients import placement as placement_client
from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite.compute import vm_states
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from nova_lite.db.cell import migration_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import migration as migration_obj

INVALID_INPUT = 127
_NOT_HEALABLE_STATES = (vm_states.BUILDING, vm_states.SHELVED_OFFLOADED,
                        vm_states.DELETED)


def _placement():
    return placement_client.PlacementClient()


def _cells(ctx, include_cell0=False):
    return [c for c in api_db.cell_mapping_get_all(ctx)
            if include_cell0 or c.uuid != common.CELL0_UUID]


def _node_uuids(cctxt):
    """{(host, node name): provider uuid} of a cell's compute nodes."""
    return {(n.host, n.hypervisor_hostname): n.uuid
            for n in cell_db.compute_node_get_all(cctxt)}


def flavor_resources(flavor):
    """The placement resources of a flavor dict (zeros left out)."""
    flavor = flavor or {}
    swap_gb = int(math.ceil((flavor.get('swap') or 0) / 1024.0))
    amounts = {'VCPU': flavor.get('vcpus') or 0,
               'MEMORY_MB': flavor.get('memory_mb') or 0,
               'DISK_GB': (flavor.get('root_gb') or 0) +
               (flavor.get('ephemeral_gb') or 0) + swap_gb}
    return {rc: amount for rc, amount in amounts.items() if amount}


# -- heal_allocations ---------------------------------------------------------

class _Healer:
    """One heal_allocations run: counts what it healed."""

    def __init__(self, placement, dry_run, verbose, max_count):
        self.placement = placement
        self.dry_run = dry_run
        self.verbose = verbose
        self.max_count = max_count
        self.healed = 0

    def say(self, message):
        if self.verbose:
            print(message)

    def needs_healing(self, instance):
        """Whether the instance should hold an allocation and holds none.
        """
        if not instance.host or not instance.node:
            self.say('Instance %s is not on a compute node: skipped.'
                     % instance.uuid)
            return False
        if instance.vm_state in _NOT_HEALABLE_STATES:
            self.say('Instance %s is %s: skipped.' % (instance.uuid,
                                                      instance.vm_state))
            return False
        if instance.task_state is not None:
            self.say('Instance %s is undergoing a task state transition '
                     '(%s): skipped.' % (instance.uuid, instance.task_state))
            return False
        try:
            held = self.placement.get_allocations(instance.uuid)
        except placement_client.PlacementClientError as exc:
            raise CommandError('Unable to read the allocations of instance '
                               '%s: %s' % (instance.uuid, exc), code=3)
        if held.get('allocations'):
            self.say('Instance %s already has allocations.'
                     % instance.uuid)
            return False
        return True

    def heal(self, instance, nodes):
        rp_uuid = nodes.get((instance.host, instance.node))
        if rp_uuid is None:
            raise CommandError(
                'Unable to find the compute node of instance %s (host %s, '
                'node %s).' % (instance.uuid, instance.host, instance.node),
                code=2)
        resources = flavor_resources(instance.flavor)
        if self.dry_run:
            print('[dry-run] Would create allocations for instance %s '
                  'against resource provider %s: %s'
                  % (instance.uuid, rp_uuid, resources))
            self.healed += 1
            return
        try:
            self.placement.put_allocations(
                instance.uuid, {rp_uuid: {'resources': resources}},
                instance.project_id, instance.user_id,
                consumer_generation=None)
        except placement_client.PlacementClientError as exc:
            raise CommandError(
                'Unable to create allocations for instance %s against '
                'resource provider %s: %s' % (instance.uuid, rp_uuid, exc),
                code=3)
        print('Successfully created allocations for instance %s against '
              'resource provider %s.' % (instance.uuid, rp_uuid))
        self.healed += 1


def _instance_cell(ctx, instance_uuid):
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            ctx, instance_uuid)
    except exception.InstanceMappingNotFound:
        mapping = None
    if mapping is None or mapping.cell_mapping is None:
        raise CommandError('Unable to find the cell of instance %s: is it '
                           'mapped?' % instance_uuid, code=INVALID_INPUT)
    return mapping.cell_mapping


def heal_allocations(args):
    objects.register_all()
    if args.max_count is not None and args.max_count < 1:
        raise CommandError('Must supply a positive integer for --max-count.',
                           code=INVALID_INPUT)
    if args.instance and args.cell:
        raise CommandError('--instance and --cell are mutually exclusive.',
                           code=INVALID_INPUT)
    ctx = common.admin_context()
    if args.instance:
        cells = [_instance_cell(ctx, args.instance)]
    elif args.cell:
        cells = [common.get_cell(ctx, args.cell)]
    else:
        cells = _cells(ctx)
    max_count = None if args.instance else args.max_count
    healer = _Healer(_placement(), args.dry_run, args.verbose, max_count)
    for cell in cells:
        cctxt = common.cell_context(cell)
        filters = {'uuid': args.instance} if args.instance else {}
        instances = instance_api.instance_get_all_by_filters(
            cctxt, filters, sort_keys=['id'])
        if args.instance and not instances:
            raise CommandError('Instance %s was not found in its cell.'
                               % args.instance, code=INVALID_INPUT)
        nodes = _node_uuids(cctxt)
        for instance in instances:
            if not healer.needs_healing(instance):
                continue
            if max_count is not None and healer.healed >= max_count:
                print('Max count reached. Processed %d instances.'
                      % healer.healed)
                return 1
            healer.heal(instance, nodes)
    prefix = '[dry-run] ' if args.dry_run else ''
    if not healer.healed:
        print('%sNo allocations were created: nothing to heal.' % prefix)
        return 4
    print('%sProcessed %d instances.' % (prefix, healer.healed))
    return 4 if args.dry_run else 0


# -- audit --------------------------------------------------------------------

def _migration_in_flight(migration):
    """Whether a migration may still hold or justify allocations (an
    evacuation stays so until the source host cleans up)."""
    if migration.migration_type == 'evacuation':
        return migration.status not in ('completed', 'error', 'failed',
                                         'cancelled')
    return migration.status not in migration_obj.DONE_STATUSES


class _CloudState:
    """Instances, migrations and nodes of every cell, read once."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.instances = {}
        self.migrations = {}
        self.node_uuids = {}
        self.moves_of = {}
        for cell in _cells(ctx, include_cell0=True):
            cctxt = common.cell_context(cell)
            for node in cell_db.compute_node_get_all(cctxt):
                self.node_uuids[node.hypervisor_hostname] = node.uuid
            for instance in instance_api.instance_get_all_by_filters(
                    cctxt, {}, sort_keys=['id']):
                self.instances[instance.uuid] = instance
            for migration in migration_api.migration_get_all_by_filters(
                    cctxt):
                if _migration_in_flight(migration):
                    self.migrations[migration.uuid] = migration
                    self.moves_of.setdefault(migration.instance_uuid,
                                             []).append(migration)

    def _migration_nodes(self, migration):
        return {self.node_uuids.get(name) for name in
                (migration.source_node, migration.dest_node)} - {None}

    def _being_scheduled(self, consumer):
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                self.ctx, consumer)
        except exception.InstanceMappingNotFound:
            return False
        return mapping.cell_mapping is None

    def why_legit(self, consumer, root_uuid):
        """What justifies ``consumer``'s allocation on the tree of
        ``root_uuid``; None when nothing does (orphaned)."""
        instance = self.instances.get(consumer)
        if instance is not None:
            if not instance.node and instance.task_state is not None:
                return 'instance %s (%s, between nodes)' % (
                    consumer, instance.task_state)
            allowed = {self.node_uuids.get(instance.node)}
            for migration in self.moves_of.get(consumer, []):
                allowed |= self._migration_nodes(migration)
            if root_uuid in allowed:
                return 'instance %s' % consumer
            return None
        migration = self.migrations.get(consumer)
        if migration is not None:
            if root_uuid in self._migration_nodes(migration):
                return 'migration %s (%s)' % (consumer, migration.status)
            return None
        if self._being_scheduled(consumer):
            return 'instance %s being scheduled' % consumer
        return None


def _providers(placement, rp_uuid):
    if not rp_uuid:
        return placement.list_providers()
    try:
        return [placement.get_provider(rp_uuid)]
    except placement_client.PlacementNotFound:
        raise CommandError('Resource provider with UUID %s does not exist.'
                           % rp_uuid, code=INVALID_INPUT)


def _delete_orphan(placement, consumer, rp_uuids):
    """Remove the consumer's allocations on ``rp_uuids`` (all of them:
    the consumer goes)."""
    held = placement.get_allocations(consumer).get('allocations') or {}
    if set(held) <= set(rp_uuids):
        allocation_moves.delete_allocation(placement, consumer)
    else:
        allocation_moves.remove_providers_from_allocation(
            placement, consumer, rp_uuids)


def audit(args):
    objects.register_all()
    if args.resource_provider and not uuidutils.is_uuid_like(
            args.resource_provider):
        raise CommandError('--resource_provider %s is not a UUID.'
                           % args.resource_provider, code=INVALID_INPUT)
    placement = _placement()
    providers = _providers(placement, args.resource_provider)
    state = _CloudState(common.admin_context())
    orphans = {}
    checked = 0
    for provider in providers:
        rp_uuid = provider['uuid']
        root = provider.get('root_provider_uuid') or rp_uuid
        if args.verbose:
            print('Checking resource provider %s (%s)' % (rp_uuid,
                                                         provider['name']))
        allocations = placement.get_provider_allocations(rp_uuid).get(
            'allocations') or {}
        for consumer, entry in sorted(allocations.items()):
            checked += 1
            reason = state.why_legit(consumer, root)
            if reason is not None:
                if args.verbose:
                    print('  consumer %s: %s' % (consumer, reason))
                continue
            print('Allocations for consumer %s on resource provider %s: '
                  'orphaned %s' % (consumer, rp_uuid,
                                   dict(entry.get('resources') or {})))
            orphans.setdefault(consumer, []).append(rp_uuid)
    if args.verbose:
        print('Checked %d allocations on %d resource providers.'
              % (checked, len(providers)))
    if not orphans:
        print('No orphaned allocations were found.')
        return 0
    if not args.delete:
        print('%d consumers have orphaned allocations; run with --delete '
              'to remove them.' % len(orphans))
        return 3
    for consumer, rp_uuids in sorted(orphans.items()):
        _delete_orphan(placement, consumer, rp_uuids)
        print('Deleted allocations for consumer %s on resource providers '
              '%s.' % (consumer, ', '.join(rp_uuids)))
    return 4


# -- parser -------------------------------------------------------------------

def build_parser(placement_actions):
    """Add heal_allocations and audit to the ``placement`` category."""
    heal = placement_actions.add_parser(
        'heal_allocations', help='create missing allocations of instances')
    heal.add_argument('--max-count', '--max_count', dest='max_count',
                      type=int, metavar='N',
                      help='heal at most N instances (exit 1 if more are '
                      'left)')
    heal.add_argument('--instance', metavar='UUID',
                      help='only this instance (--max-count ignored)')
    heal.add_argument('--cell', metavar='UUID', help='only this cell')
    heal.add_argument('--dry-run', '--dry_run', dest='dry_run',
                      action='store_true',
                      help='print what would be done, change nothing')
    heal.add_argument('--verbose', action='store_true',
                      help='say why each instance is skipped')
    heal.set_defaults(func=heal_allocations)

    check = placement_actions.add_parser(
        'audit', help='find (and delete) orphaned allocations')
    check.add_argument('--resource_provider', '--resource-provider',
                       dest='resource_provider', metavar='UUID',
                       help='only this resource provider')
    check.add_argument('--delete', action='store_true',
                       help='delete the orphaned allocations found')
    check.add_argument('--verbose', action='store_true',
                       help='print every allocation checked')
    check.set_defaults(func=audit)
