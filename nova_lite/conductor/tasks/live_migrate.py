"""The super conductor's live migration: find a destination, hand over.

One ``live_migrate_instance`` request (NOVA_FACTS 5.4):

1. record a Migration (``live-migration``, status ``accepted``) in the
   instance's cell; its uuid becomes the placement consumer of the
   source allocation;
2. check the source compute is up, then move the instance's source
   allocation to the migration consumer;
3. find a destination:

   * a forced host (API < 2.68 ``force``): copy the source allocation to
     that host's node for the instance, no scheduler;
   * otherwise ask the scheduler (no alternates: a live migration asks
     again instead), restricted to the instance's cell, leaving out the
     source and every host tried so far, for the requested host if any;
     the scheduler claims the destination for the instance consumer;
   * ask the destination whether it can take the guest; a refusal drops
     the claim just made and tries again, at most
     ``[DEFAULT] migrate_max_retries`` more times (-1: until no host is
     left);

4. cast ``live_migration`` to the source compute, which drives the rest.

Any failure here, the cast to the source included, gives the source
allocation back to the instance (dropping a destination claim; both are
freed when the instance was deleted meanwhile), sets the migration to
``error`` and the instance back to its state with no task, with a fault
saying why.
"""

from oslo_log import log as logging

from nova_lite import cells
from nova_lite.clients import allocation_moves
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import task_states
from nova_lite.conductor import decisions
from nova_lite.conductor.tasks import common
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite import servicegroup

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

EVENT = 'conductor_live_migrate_instance'


class MaxRetriesExceeded(exception.NoValidHost):
    msg_fmt = ('Exceeded maximum number of retries. %(reason)s')


def cell_of(context, instance_uuid):
    """The CellMapping the instance lives in (InstanceMappingNotFound)."""
    return objects.InstanceMapping.get_by_instance_uuid(
        context, instance_uuid).cell_mapping


def require_compute_up(cctxt, host):
    """common.MigrationPreCheckError unless the compute of ``host`` is up."""
    if not servicegroup.compute_is_up(cctxt, host):
        raise common.MigrationPreCheckError(
            reason='Compute service of %s is unavailable at this time.'
            % host)


class LiveMigrationTask:
    """One live migration request, up to the cast to the source."""

    def __init__(self, context, instance, host, block_migration, force,
                 scheduler_api, placement, compute_api=None):
        self.context = context
        self.instance = instance
        self.requested_host = host
        self.block_migration = block_migration
        self.force = bool(force)
        self.scheduler_api = scheduler_api
        self.placement = placement
        self.compute_api = compute_api or compute_rpcapi.ComputeAPI()
        self.migration = None
        # None: the source allocation was not (successfully) moved yet;
        # False: the instance had none to move; True: the migration holds it.
        self.moved_source = None
        self.cell = None

    def execute(self):
        uuid = self.instance.uuid
        try:
            self.cell = cell_of(self.context, uuid)
        except exception.InstanceMappingNotFound:
            LOG.info('Instance %s was deleted before its live migration',
                     uuid)
            return
        with cells.target_cell(self.context, self.cell) as cctxt:
            try:
                with common.action_events().step(
                        cctxt, uuid, EVENT, fault=True,
                        undo=lambda error: self._rollback(cctxt, error),
                        revert={'task_state': None},
                        expected_task_state=[task_states.MIGRATING]):
                    self._hand_over(cctxt, uuid)
            except Exception:  # noqa: BLE001 - recorded, rolled back
                return
            decisions.describe_event(cctxt, uuid, EVENT)

    def _hand_over(self, cctxt, uuid):
        self.instance = objects.Instance.get_by_uuid(cctxt, uuid)
        self.migration = self._create_migration(cctxt)
        dest_host, dest_node = self._prepare(cctxt)
        LOG.info('Live migration %s of instance %s: %s -> %s/%s',
                 self.migration.uuid, uuid, self.instance.host,
                 dest_host, dest_node)
        self.compute_api.live_migration(
            cctxt, self.instance, dest_host, self.migration)

    def _create_migration(self, cctxt):
        instance = self.instance
        flavor_id = instance.instance_type_id
        migration = objects.Migration(
            cctxt, instance_uuid=instance.uuid,
            migration_type='live-migration', status='accepted',
            source_compute=instance.host, source_node=instance.node,
            dest_compute=self.requested_host, dest_host=None,
            old_instance_type_id=flavor_id, new_instance_type_id=flavor_id,
            project_id=instance.project_id, user_id=instance.user_id)
        migration.create()
        LOG.info('Migration %s (live-migration) of instance %s accepted',
                 migration.uuid, instance.uuid)
        return migration

    def _prepare(self, cctxt):
        """Checks, allocation moves and the destination: (host, node)."""
        instance = self.instance
        require_compute_up(cctxt, instance.host)
        if self.requested_host == instance.host:
            raise common.MigrationPreCheckError(
                reason='The target host %s is the host the instance runs '
                       'on.' % instance.host)
        self.moved_source = allocation_moves.move_allocations(
            self.placement, instance.uuid, self.migration.uuid,
            target_type=allocation_moves.MIGRATION)
        if self.requested_host and self.force:
            host, node = self._claim_forced_host(cctxt)
        else:
            host, node = self._find_destination(cctxt)
        self.migration.dest_compute = host
        self.migration.dest_node = node
        self.migration.dest_host = host
        self.migration.save()
        return host, node

    def _claim_forced_host(self, cctxt):
        """Copy the source allocation to the forced host's node."""
        host = self.requested_host
        require_compute_up(cctxt, host)
        source = (self.migration.uuid if self.moved_source
                  else self.instance.uuid)
        node = common.claim_forced_host(cctxt, self.placement,
                                        self.instance, host, source)
        self._check_destination(cctxt, host, node)
        return host, node

    def _find_destination(self, cctxt):
        attempted = {self.instance.host}
        retries = CONF.migrate_max_retries
        rejections = []
        while True:
            spec = objects.RequestSpec.for_move(
                self.context, self.instance, self.cell.uuid,
                host=self.requested_host, ignore_hosts=attempted)
            try:
                selection = common.first_selection(
                    decisions.select_and_store(
                        self.scheduler_api, self.context, cctxt, spec,
                        self.instance.uuid, 'live-migrate'))
            except exception.NoValidHost as error:
                if rejections:
                    raise MaxRetriesExceeded(reason='%s Rejected: %s' % (
                        error, '; '.join(rejections)))
                raise
            host, node = selection.service_host, selection.nodename
            try:
                self._check_destination(cctxt, host, node)
                return host, node
            except common.MigrationPreCheckError as error:
                LOG.info('Destination %s rejected the live migration of %s:'
                         ' %s', host, self.instance.uuid, error)
                rejections.append('%s: %s' % (host, error))
                self._drop_destination_claim()
                attempted.add(host)
            if retries >= 0 and len(rejections) > retries:
                raise MaxRetriesExceeded(
                    reason='Live migration of %s: %d destination(s) '
                           'rejected it: %s' % (
                               self.instance.uuid, len(rejections),
                               '; '.join(rejections)))

    def _drop_destination_claim(self):
        """The instance consumer holds only the refused destination's
        claim (the migration holds the source): delete it."""
        common.delete_allocations(self.placement, self.instance.uuid)

    def _check_destination(self, cctxt, host, node):
        require_compute_up(cctxt, host)
        try:
            self.compute_api.check_can_live_migrate_destination(
                cctxt, self.instance, host, node, self.migration,
                block_migration=self.block_migration)
        except exception.NovaLiteException as error:
            raise common.MigrationPreCheckError(
                reason=error.kwargs.get('reason') or str(error))
        except Exception as error:  # noqa: BLE001 - RPC timeout and such
            raise common.MigrationPreCheckError(
                reason='%s did not answer the check: %s' % (
                    host, type(error).__name__))

    # -- failure --------------------------------------------------------------

    def _rollback(self, cctxt, error):
        """Allocations as before the task, the migration ``error``."""
        uuid = self.instance.uuid
        LOG.warning('Live migration of instance %s failed in the conductor: '
                    '%s', uuid, error)
        self._undo_allocations(cctxt)
        if self.migration is not None:
            try:
                self.migration.status = 'error'
                self.migration.save()
            except exception.MigrationNotFound:
                LOG.info('Migration %s vanished before it became error',
                         self.migration.uuid)

    def _undo_allocations(self, cctxt):
        """Placement as before the task: the source allocation back on
        the instance (a destination claim is overwritten), or nothing at
        all when the instance is gone or is being deleted."""
        uuid = self.instance.uuid
        if self.moved_source is None:
            # Failed before (or while) moving the source: nothing claimed.
            return
        gone = common.instance_gone(cctxt, uuid)
        if self.moved_source:
            allocation_moves.give_back_source(
                self.placement, self.migration.uuid, uuid,
                instance_gone=gone)
        else:
            # The instance held nothing before: any claim is this task's.
            common.delete_allocations(self.placement, uuid)
