"""Server side of the conductor RPC API.

The same manager runs as the super conductor (API bus) and as a cell
conductor (``--cell NAME``: that cell's bus and database). The record
methods are only meaningful in a cell conductor: they write the cell
database on behalf of computes, which have none. Each is one small
database operation; the decisions (what to create, when to delete) stay
in the compute.
"""

import copy

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_service import periodic_task

from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite.conductor import compute_task
from nova_lite.conductor import decisions
from nova_lite.conductor import reaper
from nova_lite import exception
from nova_lite import manager
from nova_lite import notifications
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj
from nova_lite.objects import db_transaction
from nova_lite.objects import task_log as task_log_obj

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# Seconds between two runs of the stuck-build reaper at most.
REAP_CHECK_MAX = 60
# Seconds between two prunes of the scheduling decision records.
DECISION_PRUNE_INTERVAL = 3600

# What a compute may change in its own service record.
SERVICE_FIELDS_FROM_COMPUTE = frozenset(['report_count', 'topic', 'version'])


class ConductorManager(manager.Manager):
    """Conductor endpoint (API version 1.0)."""

    target = messaging.Target(version='1.0')

    def __init__(self, host=None):
        super().__init__(host=host)
        # NOTE(nova_lite): builds are served in their own namespace.
        self.compute_task = compute_task.ComputeTaskManager(self)
        self.additional_endpoints.append(self.compute_task)

    @property
    def is_cell_conductor(self):
        """True for the conductor of one cell (``--cell NAME``, or a
        service built with its cell's database, as functional tests
        do); False for the super conductor, which has the API database
        and reaches every cell."""
        if self.service is not None and self.service.db_connection:
            return True
        # NOTE(nova_lite): ``cell`` is a command-line option of
        # nova-lite-conductor only: unregistered anywhere else.
        return bool(getattr(CONF, 'cell', None))

    @messaging.expected_exceptions(exception.NovaLiteException)
    def service_get_or_create(self, context, host, binary, topic):
        service = objects.Service.get_or_create(
            self.cell_context(context), host, binary, topic)
        LOG.debug('Service record %s of %s on %s served', service.id,
                  binary, host)
        return service

    @messaging.expected_exceptions(exception.NovaLiteException)
    def service_update(self, context, service_id, values):
        unknown = set(values) - SERVICE_FIELDS_FROM_COMPUTE
        if unknown:
            raise exception.Invalid(
                reason='service fields %s cannot be updated over RPC' %
                ', '.join(sorted(unknown)))
        service = objects.Service.get_by_id(self.cell_context(context),
                                            service_id)
        for name, value in values.items():
            setattr(service, name, value)
        service.save()
        return service

    # -- compute nodes ---------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def compute_node_get_all_by_host(self, context, host,
                                     include_deleted=False):
        cctxt = copy.copy(self.cell_context(context))
        cctxt.read_deleted = 'yes' if include_deleted else 'no'
        return objects.ComputeNodeList.get_all_by_host(cctxt, host).objects

    @messaging.expected_exceptions(exception.NovaLiteException)
    def compute_node_get_or_create(self, context, host, nodename, values):
        """The live node (host, nodename); a soft-deleted row with the
        same uuid is restored; otherwise a new row. ``values`` are written
        in every case (uuid included on create)."""
        cctxt = self.cell_context(context)
        node = self._live_node(cctxt, host, nodename)
        if node is None:
            node = self._restorable_node(cctxt, values.get('uuid'))
        if node is None:
            node = objects.ComputeNode(cctxt, host=host,
                                       hypervisor_hostname=nodename,
                                       **values)
            node.create()
            LOG.info('Compute node %s of %s created (%s)', nodename, host,
                     node.uuid)
            return node
        for name, value in dict(values, host=host).items():
            if name != 'uuid':
                setattr(node, name, value)
        node.save()
        return node

    @staticmethod
    def _live_node(cctxt, host, nodename):
        try:
            return objects.ComputeNode.get_by_host_and_nodename(
                cctxt, host, nodename)
        except exception.ComputeNodeNotFound:
            return None

    @staticmethod
    def _restorable_node(cctxt, node_uuid):
        if not node_uuid:
            return None
        rctxt = copy.copy(cctxt)
        rctxt.read_deleted = 'yes'
        try:
            node = objects.ComputeNode.get_by_uuid(rctxt, node_uuid)
        except exception.ComputeNodeNotFound:
            return None
        node._context = cctxt
        if node.deleted:
            node.restore()
            LOG.info('Compute node %s (%s) restored',
                     node.hypervisor_hostname, node.uuid)
        return node

    @messaging.expected_exceptions(exception.NovaLiteException)
    def compute_node_update(self, context, compute_id, values):
        cctxt = self.cell_context(context)
        node = _save_node_changes(cctxt, compute_id, values)
        if node is None:
            return objects.ComputeNode.get_by_id(cctxt, compute_id)
        return node

    @messaging.expected_exceptions(exception.NovaLiteException)
    def compute_node_delete(self, context, compute_id):
        node = objects.ComputeNode.get_by_id(self.cell_context(context),
                                             compute_id)
        node.destroy()
        LOG.info('Compute node %s (%s) soft-deleted',
                 node.hypervisor_hostname, node.uuid)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def compute_node_build_result(self, context, compute_id, succeeded):
        """Reset (success) or raise (failure) the node's failed_builds;
        returns the new count."""
        node = objects.ComputeNode.get_by_id(self.cell_context(context),
                                             compute_id)
        node.failed_builds = 0 if succeeded else node.failed_builds + 1
        node.save()
        return node.failed_builds

    @messaging.expected_exceptions(exception.NovaLiteException)
    def compute_nodes_save(self, context, host, nodes):
        """Many nodes of ``host`` created, restored or updated in one
        transaction (a compute registering or refreshing many nodes);
        ``nodes`` is ``{nodename: values}``, as compute_node_get_or_create
        takes them. Returns the nodes in that order."""
        saved = objects.ComputeNodeList.save_for_host(
            self.cell_context(context), host, nodes)
        LOG.info('%d compute nodes of %s saved', len(saved), host)
        return saved.objects

    # -- instances -------------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def instance_get_by_uuid(self, context, instance_uuid):
        return objects.Instance.get_by_uuid(self.cell_context(context),
                                            instance_uuid)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def instance_get_all_by_filters(self, context, filters):
        return objects.InstanceList.get_by_filters(
            self.cell_context(context), filters, sort_keys=['id']).objects

    @messaging.expected_exceptions(exception.NovaLiteException)
    def instance_update(self, context, instance_uuid, values,
                        expected_task_state=None, expected_vm_state=None):
        # One write transaction: the update locks and checks the row
        # itself (InstanceNotFound, Unexpected*StateError) and returns it
        # whole, so no read comes before it.
        instance = objects.Instance(self.cell_context(context),
                                    uuid=instance_uuid)
        if not _set_changes(instance, values):
            return objects.Instance.get_by_uuid(instance._context,
                                                instance_uuid)
        before = self._state_before(instance._context, instance_uuid,
                                    values)
        instance.save(expected_task_state=expected_task_state,
                      expected_vm_state=expected_vm_state)
        if before is not None:
            # NOTE(nova_lite): the compute asked for this save; Nova's
            # compute saves itself, so the notification is the compute's.
            notifications.instance_update(
                context, instance, instance.host or self.host,
                before.vm_state, before.task_state)
        return instance

    @staticmethod
    def _state_before(cctxt, instance_uuid, values):
        """The instance before an update that changes its states, when
        ``instance.update`` notifications are asked for (the extra read
        costs nothing otherwise); else None."""
        if not (CONF.notifications.notify_on_state_change and
                {'vm_state', 'task_state'} & set(values) and
                notifications.versioned_enabled()):
            return None
        try:
            return objects.Instance.get_by_uuid(cctxt, instance_uuid)
        except exception.InstanceNotFound:
            return None

    @messaging.expected_exceptions(exception.NovaLiteException)
    def instance_destroy(self, context, instance_uuid, values=None):
        """``values`` (if given) written first, in the same transaction
        (an instance's last state, then the delete)."""
        return _destroy_instance(self.cell_context(context), instance_uuid,
                                 values)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def terminate_start(self, context, instance_uuid, event, host):
        """The instance (InstanceNotFound), ``event`` started under the
        request's action (best effort, as a step's start) and the
        instance's unfinished migrations, in one transaction: what a
        compute's terminate reads and records before the guest goes."""
        return _start_terminate(self.cell_context(context), instance_uuid,
                                event, host)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def terminate_finish(self, context, instance_uuid, values, event,
                         node=None):
        """A terminate's last ``values`` written, the soft delete and
        ``event`` finished ``Success``, in one transaction (the compute
        has no use for the deleted row); then ``node``, the node's usage,
        if given (see :func:`_write_node_usage`); the ComputeNode
        written, or None."""
        cctxt = self.cell_context(context)
        _destroy_instance(cctxt, instance_uuid, values, event=event,
                          read_back=False)
        return _write_node_usage(cctxt, node)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def build_start(self, context, instance_uuid, values, expected_task_state,
                    expected_vm_state, event, host):
        """A build's first ``values`` (BUILDING/SPAWNING here) written
        if the instance is in the expected states, and ``event`` started
        as ``host``, in one transaction. The event is started even when
        the write is refused (Nova's build event wraps the state check:
        the compute then finishes it); the written Instance."""
        return _start_build(self.cell_context(context), instance_uuid,
                            values, expected_task_state, expected_vm_state,
                            event, host)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def build_finish(self, context, instance_uuid, values,
                     expected_task_state, event, node=None):
        """A build's last ``values`` (ACTIVE) written if the task
        state is still ``expected_task_state`` and ``event`` finished
        ``Success``, in one transaction (Nova's build event wraps the
        instance's last save); then ``node``, the node's usage (see
        :func:`_write_node_usage`). The ComputeNode written, or None."""
        cctxt = self.cell_context(context)
        _finish_build(cctxt, instance_uuid, values, expected_task_state,
                      event)
        return _write_node_usage(cctxt, node)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def instance_fault_create(self, context, values):
        fault = objects.InstanceFault(self.cell_context(context), **values)
        fault.create()
        return fault

    # -- instance actions ------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def action_start(self, context, instance_uuid, action):
        return objects.InstanceAction.action_start(
            self.cell_context(context), instance_uuid, action)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def action_finish(self, context, instance_uuid, message=None):
        return objects.InstanceAction.action_finish(
            self.cell_context(context), instance_uuid, message=message)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def action_event_start(self, context, instance_uuid, event, host=None):
        return objects.InstanceActionEvent.event_start(
            self.cell_context(context), instance_uuid, event, host=host)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def action_event_finish(self, context, instance_uuid, event,
                            result='Success', traceback=None, details=None):
        return objects.InstanceActionEvent.event_finish(
            self.cell_context(context), instance_uuid, event, result=result,
            traceback=traceback, details=details)

    # -- migrations ------------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def migration_create(self, context, values):
        migration = objects.Migration(self.cell_context(context), **values)
        migration.create()
        LOG.info('Migration %s (%s) of instance %s recorded: %s',
                 migration.uuid, migration.migration_type,
                 migration.instance_uuid, migration.status)
        return migration

    @messaging.expected_exceptions(exception.NovaLiteException)
    def migration_update(self, context, migration_uuid, values,
                         expected_status=None):
        migration = objects.Migration.get_by_uuid(
            self.cell_context(context), migration_uuid)
        for name, value in values.items():
            setattr(migration, name, value)
        migration.save(expected_status=expected_status)
        return migration

    @messaging.expected_exceptions(exception.NovaLiteException)
    def migration_get_by_uuid(self, context, migration_uuid):
        return objects.Migration.get_by_uuid(self.cell_context(context),
                                             migration_uuid)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def migration_get_all_by_filters(self, context, filters):
        return objects.MigrationList.get_by_filters(
            self.cell_context(context), filters).objects

    # -- periodic tasks (super conductor) --------------------------------

    @periodic_task.periodic_task(spacing=1)
    def _periodic_reap_stuck_builds(self, context):
        """Build requests never scheduled and instances that never got a
        host, past ``[compute] instance_build_timeout``: ERROR, claim
        deleted (:mod:`nova_lite.conductor.reaper`)."""
        timeout = CONF.compute.instance_build_timeout
        if not timeout or self.is_cell_conductor:
            return
        if self._due('reap_stuck_builds', min(timeout, REAP_CHECK_MAX)):
            self.reap_stuck_builds(context, timeout)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_reap_cell0_claims(self, context):
        """Claims the scheduler made late for instances buried since
        (:func:`nova_lite.conductor.reaper.reap_recent_cell0_claims`)."""
        if self.is_cell_conductor or \
                not self._due('reap_cell0_claims', reaper.CELL0_CLAIM_CHECK):
            return
        try:
            reaper.reap_recent_cell0_claims(context,
                                            self.compute_task.placement)
        except Exception as err:  # noqa: BLE001 - next period retries
            LOG.warning('Claims of instances in cell0 not checked: %s', err)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_prune_decisions(self, context):
        """Scheduling decision records past ``[conductor]
        scheduling_decision_max_age``: a cell conductor prunes its cell,
        the super conductor cell0."""
        if CONF.conductor.scheduling_decision_max_age and \
                self._due('prune_decisions', DECISION_PRUNE_INTERVAL):
            self.prune_decisions(context)

    def prune_decisions(self, context):
        """Prune now; how many records were deleted."""
        try:
            if self.is_cell_conductor:
                return decisions.prune(self.cell_context(context))
            cell0 = objects.CellMapping.get_by_uuid(
                context, cell_mapping_obj.CELL0_UUID)
            with cells.target_cell(context, cell0) as cctxt:
                return decisions.prune(cctxt)
        except Exception as err:  # noqa: BLE001 - next period retries
            LOG.warning('Pruning scheduling decisions failed: %s', err)
            return 0

    def reap_stuck_builds(self, context, timeout, now=None):
        """Run the reaper now; how many builds it ended."""
        return reaper.reap(context, self.compute_task.placement, timeout,
                           now=now)

    # -- the instance usage audit ----------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def instance_get_active_by_window(self, context, begin, end, host):
        begin, end = _times(begin, end)
        return objects.InstanceList.get_active_by_window(
            self.cell_context(context), begin, end, host=host).objects

    @messaging.expected_exceptions(exception.NovaLiteException)
    def task_log_get(self, context, task_name, begin, end, host):
        begin, end = _times(begin, end)
        logs = task_log_obj.TaskLogList.get_all(
            self.cell_context(context), task_name, begin, end, host=host)
        return logs.objects[0] if logs.objects else None

    @messaging.expected_exceptions(exception.NovaLiteException)
    def task_log_begin_task(self, context, task_name, begin, end, host,
                            task_items=None, message=None):
        begin, end = _times(begin, end)
        return task_log_obj.TaskLog.begin_task(
            self.cell_context(context), task_name, begin, end, host,
            task_items=task_items, message=message)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def task_log_end_task(self, context, task_name, begin, end, host,
                          errors, message=None):
        begin, end = _times(begin, end)
        return task_log_obj.TaskLog.end_task(
            self.cell_context(context), task_name, begin, end, host, errors,
            message=message)


@db_transaction.retry_on_transient
def _start_terminate(cctxt, instance_uuid, event, host):
    """[the instance, its unfinished migrations], ``event`` started."""
    with db_transaction.cell_writing(cctxt):
        instance = objects.Instance.get_by_uuid(cctxt, instance_uuid)
        _record_event(objects.InstanceActionEvent.event_start, cctxt,
                      instance_uuid, event, host=host, read_back=False)
        migrations = objects.MigrationList.get_by_filters(
            cctxt, {'instance_uuid': instance_uuid})
    return [instance, [m for m in migrations if not m.is_done]]


@db_transaction.retry_on_transient
def _destroy_instance(cctxt, instance_uuid, values, event=None,
                      read_back=True):
    """``values`` written with the soft delete (one read, one UPDATE; the
    UPDATE alone when not ``read_back``), then ``event`` finished (when
    given), in one transaction: a terminate's last state never shows on
    a live row without the delete, nor the delete without it. The
    deleted instance (as made from its uuid when not read back)."""
    instance = objects.Instance(cctxt, uuid=instance_uuid)
    with db_transaction.cell_writing(cctxt):
        instance.destroy(values=values, read_back=read_back)
        if event is not None:
            _record_event(objects.InstanceActionEvent.event_finish, cctxt,
                          instance_uuid, event, read_back=False)
    return instance


@db_transaction.retry_on_transient
def _start_build(cctxt, instance_uuid, values, expected_task_state,
                 expected_vm_state, event, host):
    instance = objects.Instance(cctxt, uuid=instance_uuid)
    _set_changes(instance, values)
    try:
        with db_transaction.cell_writing(cctxt):
            instance.save(expected_task_state=expected_task_state,
                          expected_vm_state=expected_vm_state)
            _record_event(objects.InstanceActionEvent.event_start, cctxt,
                          instance_uuid, event, host=host, read_back=False)
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError,
            exception.UnexpectedVMStateError):
        written = _written_earlier(cctxt, instance_uuid, values)
        if written is not None:
            return written
        # The write was refused (and rolled back): the event still starts
        # (best effort, as _record_event makes it).
        _record_event(objects.InstanceActionEvent.event_start, cctxt,
                      instance_uuid, event, host=host, read_back=False)
        raise
    return instance


@db_transaction.retry_on_transient
def _finish_build(cctxt, instance_uuid, values, expected_task_state, event):
    instance = objects.Instance(cctxt, uuid=instance_uuid)
    _set_changes(instance, values)
    try:
        with db_transaction.cell_writing(cctxt):
            instance.save(expected_task_state=expected_task_state)
            _record_event(objects.InstanceActionEvent.event_finish, cctxt,
                          instance_uuid, event, read_back=False)
    except exception.UnexpectedTaskStateError:
        if _written_earlier(cctxt, instance_uuid, values) is None:
            raise


# The columns that tell one step of a build from another.
_STATE_FIELDS = ('vm_state', 'task_state', 'host', 'node')


def _written_earlier(cctxt, instance_uuid, values):
    """The instance, when a guarded build write was refused in an attempt
    after a lost connection (``db_transaction.after_lost_connection``)
    and the row already holds what ``values`` sets of its state (vm and
    task state, host, node): the earlier attempt's COMMIT went through
    and only its answer was lost (a Galera node or the proxy in front
    going away), so the build goes on instead of failing a write that was
    made. None otherwise (the refusal stands)."""
    given = [name for name in _STATE_FIELDS if name in values]
    if not given or not db_transaction.after_lost_connection():
        return None
    try:
        stored = objects.Instance.get_by_uuid(cctxt, instance_uuid)
    except exception.InstanceNotFound:
        return None
    if any(getattr(stored, name) != values[name] for name in given):
        return None
    LOG.info('Build write of instance %s was made by an attempt whose '
             'connection was lost after its COMMIT', instance_uuid)
    return stored


def _write_node_usage(cctxt, node):
    """``node`` (``{'id': compute node id, 'values': changed columns}``,
    or None) written in its own transaction, after the instance's (whose
    write stands whatever happens here): the ComputeNode written, or
    None when it was not (no ``node``, gone, or an error, logged); the
    compute then refreshes it itself."""
    if not node:
        return None
    try:
        return _save_node_changes(cctxt, node['id'], node['values'])
    except Exception as error:  # noqa: BLE001 - the compute redoes it
        LOG.warning('Usage of compute node %s not written with the '
                    'instance: %s', node['id'], error)
        return None


def _save_node_changes(cctxt, compute_id, values):
    """The compute node ``compute_id`` with ``values`` written, or None
    when they change nothing. One write transaction: the update reads the
    row it changes (and raises ComputeNodeNotFound), so no read comes
    before it."""
    node = objects.ComputeNode(cctxt, id=compute_id)
    if not _set_changes(node, values):
        return None
    node.save()
    return node


def _record_event(record, cctxt, instance_uuid, event, **kwargs):
    """An event start or finish that is best effort (no action, or no
    started event: logged), as :class:`nova_lite.instance_events.
    ActionEvents` records them; it raises before it writes, so the
    transaction around it goes on."""
    try:
        record(cctxt, instance_uuid, event, **kwargs)
    except (exception.InstanceActionNotFound,
            exception.InstanceActionEventNotFound) as error:
        LOG.debug('Event %s of %s not recorded: %s', event, instance_uuid,
                  error)


def _set_changes(obj, values):
    """Set ``values`` on an object made from its key alone (not read),
    so that its save writes exactly them; False when there are none (the
    caller then reads the row, as the update would have returned it)."""
    obj.obj_reset_changes()
    for name, value in values.items():
        setattr(obj, name, value)
    return bool(obj.obj_what_changed())


def _times(*texts):
    """Naive UTC datetimes of the ISO 8601 texts a compute sent."""
    return [timeutils.normalize_time(timeutils.parse_isotime(text))
            for text in texts]
