"""Cold migrate and resize in the conductors (NOVA_FACTS §5.1).

The API casts ``migrate_server`` to the super conductor, which:

1. creates the Migration in the instance's cell (``pre-migrating``,
   ``resize`` when the flavor changes, else ``migration``);
2. moves the instance's source allocation to the migration's consumer,
   so the instance consumer is free to claim the destination;
3. asks the scheduler for a host with alternates, restricted to the
   instance's cell by the request spec; the scheduler claims the new
   flavor on the chosen host for the instance;
4. casts ``prep_resize`` to the chosen compute over the cell's bus with
   the alternates and the Selection's availability zone.

A destination whose ``prep_resize`` fails gives the source allocation back
to the instance (dropping its own claim) and calls its cell conductor with
the alternates left: the same task then runs in the cell, re-moves the
allocation to the migration (as the first time) and claims the next
alternate's stored allocation request, with no scheduler, super conductor
or API database involved. Whatever fails along the way leaves the
instance's source allocation on the instance and no claim on any target:
the migration goes to ``error``; the instance keeps its state with a fault
when nothing was found at all (NoValidHost from the scheduler), or goes
to ERROR when the retries ran out. An instance deleted meanwhile (gone
from its cell, or being deleted) gets nothing back: the allocations of
both consumers are deleted and the move stops.

Which path runs depends on the conductor's role, not on the arguments
alone: a cell conductor (``--cell``, or a service given its cell's
database) only reschedules; the super conductor schedules, and runs a
reschedule that reached it (one conductor serving a single-cell
deployment) in the instance's cell.
"""


from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import cells
from nova_lite.clients import allocation_moves
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor import decisions
from nova_lite.conductor.tasks import common
from nova_lite.conductor.tasks import reschedule
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import notifications
from nova_lite import objects
from nova_lite.objects import instance_fault as fault_obj
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

MIGRATE_EVENT = 'conductor_migrate_server'
EXHAUSTED = ('Exhausted all hosts available for retrying build failures '
             'for instance %s.')


def is_resize(instance, flavor):
    """True when ``flavor`` differs from the instance's current one."""
    current = (instance.flavor or {}).get('flavorid')
    return str(current) != str(flavor.get('flavorid'))


class MigrationTask:
    """One cold migrate or resize attempt of one instance.

    :param cctxt: a context targeted at the instance's cell.
    :param host_list: None in the super conductor (schedule); the
        alternates left (Selections) in a cell conductor (reschedule).
    :param migration: the existing Migration on a reschedule.
    :param scheduler_api: the scheduler client (super conductor only).
    """

    def __init__(self, cctxt, instance, flavor, request_spec, compute_api,
                 placement, host_list=None, migration=None,
                 scheduler_api=None, clean_shutdown=True, exc_reason=None):
        self.cctxt = cctxt
        self.instance = instance
        self.flavor = flavor
        self.request_spec = request_spec
        self.compute_api = compute_api
        self.placement = placement
        self.host_list = None if host_list is None else list(host_list)
        # NOTE(nova_lite): the copy that came over RPC is bound to the
        # caller's context; re-read it in this cell to write it.
        self.migration = None if migration is None else \
            objects.Migration.get_by_uuid(cctxt, migration.uuid)
        self.scheduler_api = scheduler_api
        self.clean_shutdown = clean_shutdown
        self.exc_reason = exc_reason

    @property
    def rescheduling(self):
        return self.host_list is not None

    def execute(self):
        """Run the task; False when the move failed (already rolled back
        and recorded).

        The conductor's event ends before the cast to the destination:
        from there on the computes record the move.
        """
        try:
            with common.action_events().step(
                    self.cctxt, self.instance.uuid, MIGRATE_EVENT,
                    undo=self._rollback):
                self._check_instance_not_deleted()
                if self.migration is None:
                    self.migration = self._create_migration()
                self._preallocate_migration()
                selection, alternates = (self._claim_alternate()
                                         if self.rescheduling
                                         else self._schedule())
                self._aim_at(selection)
        except Exception:  # noqa: BLE001 - rolled back, recorded
            return False
        decisions.describe_event(self.cctxt, self.instance.uuid,
                                 MIGRATE_EVENT)
        try:
            self._cast_prep_resize(selection, alternates)
        except Exception as error:  # noqa: BLE001 - rolled back, recorded
            self._rollback(error)
            return False
        return True

    # -- steps ---------------------------------------------------------------

    def _instance_gone(self):
        """True when the instance was deleted, or is being deleted, in
        its cell (read fresh: the copy handed down is older)."""
        try:
            instance = objects.Instance.get_by_uuid(self.cctxt,
                                                    self.instance.uuid)
        except exception.InstanceNotFound:
            return True
        return instance.task_state == task_states.DELETING

    def _check_instance_not_deleted(self):
        """A server deleted before its move started is not moved (nor
        claimed for on any host)."""
        if self._instance_gone():
            raise exception.InstanceNotFound(instance_id=self.instance.uuid)

    def _create_migration(self):
        instance = self.instance
        migration = objects.Migration(
            self.cctxt, uuid=uuidutils.generate_uuid(),
            instance_uuid=instance.uuid,
            migration_type=('resize' if is_resize(instance, self.flavor)
                            else 'migration'),
            status='pre-migrating', source_compute=instance.host,
            source_node=instance.node,
            old_instance_type_id=instance.instance_type_id,
            new_instance_type_id=self.flavor.get('id'),
            project_id=instance.project_id, user_id=instance.user_id)
        migration.create()
        LOG.info('Migration %s (%s) of instance %s from %s/%s created',
                 migration.uuid, migration.migration_type, instance.uuid,
                 instance.host, instance.node)
        return migration

    def _preallocate_migration(self):
        """The migration consumer takes the instance's source allocation
        (again, on a reschedule: the failed destination gave it back)."""
        moved = allocation_moves.move_allocations(
            self.placement, self.instance.uuid, self.migration.uuid,
            target_type=allocation_moves.MIGRATION)
        if not moved:
            LOG.warning('Instance %s had no allocation to hand to migration '
                        '%s', self.instance.uuid, self.migration.uuid)

    def _schedule(self):
        """Super conductor: the chosen host (claimed) and alternates."""
        kind = ('resize' if self.migration.migration_type == 'resize'
                else 'migrate')
        try:
            host_lists = self.scheduler_api.select_destinations(
                self.cctxt, self.request_spec, [self.instance.uuid],
                return_alternates=True)
        except exception.NoValidHost as error:
            decisions.store(self.cctxt, self.instance.uuid,
                            decisions.attempt_of_error(error), kind)
            raise
        if not host_lists or not host_lists[0]:
            raise exception.NoValidHost(
                reason='the scheduler answered no destination')
        host_list = list(host_lists[0])
        decisions.store_selection(self.cctxt, self.instance.uuid,
                                  host_list[0], kind)
        return host_list[0], host_list[1:]

    def _claim_alternate(self):
        """Cell conductor: the first alternate whose stored allocation
        request placement accepts; MaxRetriesExceeded when none does."""
        instance = self.instance
        refused = []
        while self.host_list:
            selection = self.host_list.pop(0)
            if common.claim_alternate(self.placement, instance.uuid,
                                      selection, instance.project_id,
                                      instance.user_id):
                self._record_reschedule(refused, selection)
                return selection, self.host_list
            refused.append(selection)
        self._record_reschedule(refused, None)
        reason = EXHAUSTED % instance.uuid
        if self.exc_reason:
            reason = '%s Last error: %s' % (reason, self.exc_reason)
        raise reschedule.MaxRetriesExceeded(reason=reason)

    def _record_reschedule(self, refused, picked):
        decisions.append(self.cctxt, self.instance.uuid,
                         decisions.reschedule_attempt(
                             None, self.exc_reason, refused, picked,
                             self.host_list or []))

    def _aim_at(self, selection):
        """Record the destination on the migration; the instance takes
        the Selection's zone (saved when the move finishes)."""
        migration = self.migration
        migration.dest_compute = selection.service_host
        migration.dest_node = selection.nodename
        migration.save()
        if selection.obj_attr_is_set('availability_zone') and \
                selection.availability_zone:
            # NOTE(nova_lite): the zone travels in the Selection (bug
            # 1781286): a cell conductor cannot read the API database.
            self.instance.availability_zone = selection.availability_zone

    def _cast_prep_resize(self, selection, alternates):
        LOG.info('%s of instance %s: prep_resize on %s/%s (%d alternates '
                 'left)', 'Reschedule' if self.rescheduling else 'Move',
                 self.instance.uuid, selection.service_host,
                 selection.nodename, len(alternates))
        self.compute_api.prep_resize(
            self.cctxt, self.instance, self.flavor, self.migration,
            selection.service_host, selection.nodename,
            request_spec=self.request_spec, host_list=alternates,
            clean_shutdown=self.clean_shutdown)

    # -- failure --------------------------------------------------------------

    def _rollback(self, error):
        """Source allocation back on the instance (a destination claim is
        overwritten), migration ``error``, instance state and fault."""
        uuid = self.instance.uuid
        LOG.warning('Cold migrate/resize of instance %s failed: %s', uuid,
                    error)
        gone = self._instance_gone()
        if self.migration is not None:
            allocation_moves.give_back_source(
                self.placement, self.migration.uuid, uuid,
                instance_gone=gone)
            self.migration.status = 'error'
            self.migration.save()
        if gone:
            LOG.info('Instance %s was deleted during its move: nothing '
                     'kept for it', uuid)
            return
        notifications.compute_task_error(
            self.cctxt, 'migrate_server', uuid, self.request_spec, error,
            CONF.host, state='error' if self.rescheduling
            else self.instance.vm_state)
        if self.rescheduling:
            common.set_error_with_fault(self.cctxt, uuid, error)
            return
        self._restore_instance(error)

    def _restore_instance(self, error):
        """No host found: the instance stays as it was, with a fault."""
        uuid = self.instance.uuid
        try:
            instance = objects.Instance.get_by_uuid(self.cctxt, uuid)
            instance.task_state = None
            instance.save(expected_task_state=[task_states.RESIZE_PREP])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s changed during its failed move: %s',
                     uuid, changed)
            return
        if instance.vm_state not in (vm_states.ACTIVE, vm_states.STOPPED):
            LOG.info('Instance %s is %s after its failed move', uuid,
                     instance.vm_state)
        objects.InstanceFault(self.cctxt, **fault_obj.fault_values(
            uuid, error)).create()


def migrate_server(context, manager, placement, instance, flavor,
                   request_spec, host_list=None, migration=None,
                   clean_shutdown=True, exc_reason=None):
    """Run a :class:`MigrationTask` where this conductor lives.

    The super conductor schedules (no ``host_list``): the instance's cell
    comes from its mapping in the API database and the scheduler is
    asked. A cell conductor only claims the alternates it was handed
    (``host_list``) and refuses to schedule: it has neither the API
    database nor the right to call the scheduler.
    """
    if manager.is_cell_conductor:
        if host_list is None:
            LOG.error('Move of instance %s reached a cell conductor without '
                      'alternates: only the super conductor schedules',
                      instance.uuid)
            raise exception.Invalid(
                reason='the conductor of a cell cannot schedule the move '
                       'of instance %s' % instance.uuid)
        return MigrationTask(
            manager.cell_context(context), instance, flavor, request_spec,
            compute_rpcapi.ComputeAPI(transport=manager.transport),
            placement, host_list=host_list, migration=migration,
            clean_shutdown=clean_shutdown, exc_reason=exc_reason).execute()
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           instance.uuid)
    with cells.target_cell(context, mapping.cell_mapping) as cctxt:
        if host_list is not None:
            return MigrationTask(
                cctxt, instance, flavor, request_spec,
                compute_rpcapi.ComputeAPI(), placement,
                host_list=host_list, migration=migration,
                clean_shutdown=clean_shutdown,
                exc_reason=exc_reason).execute()
        return MigrationTask(
            cctxt, instance, flavor, request_spec,
            compute_rpcapi.ComputeAPI(), placement,
            scheduler_api=scheduler_rpcapi.SchedulerAPI(
                transport=manager.transport),
            clean_shutdown=clean_shutdown).execute()
