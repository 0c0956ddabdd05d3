"""Actions on an existing server, and the checks every action shares.

An action may start on a server only when it is in a cell, not locked
(but for admins), in one of the action's vm states and with no task in
progress (:func:`instance_for`, 409 otherwise). It then writes its task
state in the instance's cell expecting none, so of two racing requests
one wins and the other gets a 409 (:func:`start_task`), records the
instance action and casts to the server's compute
(:meth:`ActionsAPI.act`).

The move operations (resize, live migration, shelve...) use the same
checks before they call the super conductor instead.
"""

from oslo_log import log as logging

from nova_lite.api.compute import checks
from nova_lite.api.compute import server_list
from nova_lite import cells
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import notifications
from nova_lite import objects

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


def check_not_locked(context, instance):
    """409 for a locked instance, unless the caller is an admin."""
    if instance.locked and not context.is_admin:
        raise exception.InstanceIsLocked(uuid=instance.uuid)


def instance_for(context, server, action, allowed_vm_states,
                 check_lock=True):
    """The server's instance if ``action`` may start on it: in a cell,
    not locked (but for admins), in one of ``allowed_vm_states`` and
    with no task in progress; 409 otherwise."""
    if server.build_request or server.cell is None:
        raise exception.InstanceInvalidState(
            action=action, uuid=server.uuid, attr='vm_state',
            state='building')
    instance = server.instance
    if check_lock:
        check_not_locked(context, instance)
    if instance.vm_state not in allowed_vm_states:
        raise exception.InstanceInvalidState(
            action=action, uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)
    if instance.task_state is not None:
        raise exception.InstanceInvalidState(
            action=action, uuid=instance.uuid, attr='task_state',
            state=instance.task_state)
    return instance


def start_task(cctxt, instance, action, task_state, values=None):
    """Write ``task_state`` (and ``values``) expecting no task, 409 when
    another request set one first; then record the instance action.
    ``cctxt`` targets the instance's cell."""
    instance._context = cctxt
    for name, value in (values or {}).items():
        setattr(instance, name, value)
    instance.task_state = task_state
    try:
        instance.save(expected_task_state=[None])
    except exception.UnexpectedTaskStateError as exc:
        raise exception.InstanceInvalidState(
            action=action, uuid=instance.uuid, attr='task_state',
            state=exc.kwargs.get('actual'))
    objects.InstanceAction.action_start(cctxt, instance.uuid, action)


def _save(cctxt, instance, values):
    """Write ``values`` into the instance in its cell (``cctxt``), in
    whatever state it is (only ``values``: nothing else it holds)."""
    instance._context = cctxt
    instance.obj_reset_changes()
    for name, value in values.items():
        setattr(instance, name, value)
    instance.save()


class ActionsAPI:
    """Power, pause, suspend, rescue, lock and rename; each a cast to the
    server's compute (``compute_rpcapi``) or a write in its cell."""

    def __init__(self, compute_rpcapi):
        self.compute_rpcapi = compute_rpcapi

    def act(self, context, server, action, allowed_vm_states, task_state,
            rpc_method, check_lock=True, **rpc_kwargs):
        """Write the task state in the cell, record, cast to the compute
        (its ``rpc_method`` with ``rpc_kwargs``)."""
        instance = instance_for(context, server, action, allowed_vm_states,
                                check_lock)
        with cells.target_cell(context, server.cell) as cctxt:
            start_task(cctxt, instance, action, task_state)
            LOG.info('%s of instance %s on %s requested', action,
                     instance.uuid, instance.host)
            getattr(self.compute_rpcapi, rpc_method)(cctxt, instance,
                                                     **rpc_kwargs)

    def update(self, context, server, values):
        """Rename or re-describe a server (``display_name``...)."""
        if server.build_request:
            build_request = objects.BuildRequest.get_by_instance_uuid(
                context, server.uuid)
            instance_values = dict(build_request.instance)
            instance_values.update(values)
            build_request.instance = instance_values
            build_request.save()
            return server_list.get(context, server.uuid)
        with cells.target_cell(context, server.cell) as cctxt:
            _save(cctxt, server.instance, values)
        return server_list.get(context, server.uuid)

    def stop(self, context, server):
        self.act(context, server, 'stop',
                 (vm_states.ACTIVE, vm_states.ERROR),
                 task_states.POWERING_OFF, 'stop_instance')

    def start(self, context, server):
        self.act(context, server, 'start', (vm_states.STOPPED,),
                 task_states.POWERING_ON, 'start_instance')

    def reboot(self, context, server, reboot_type):
        hard = reboot_type == 'HARD'
        allowed = (vm_states.ACTIVE, vm_states.STOPPED, vm_states.PAUSED,
                   vm_states.SUSPENDED, vm_states.ERROR) if hard else (
            vm_states.ACTIVE,)
        self.act(context, server, 'reboot', allowed,
                 task_states.REBOOTING_HARD if hard
                 else task_states.REBOOTING, 'reboot_instance',
                 reboot_type=reboot_type)

    def pause(self, context, server):
        self.act(context, server, 'pause', (vm_states.ACTIVE,),
                 task_states.PAUSING, 'pause_instance')

    def unpause(self, context, server):
        self.act(context, server, 'unpause', (vm_states.PAUSED,),
                 task_states.UNPAUSING, 'unpause_instance')

    def suspend(self, context, server):
        self.act(context, server, 'suspend', (vm_states.ACTIVE,),
                 task_states.SUSPENDING, 'suspend_instance')

    def resume(self, context, server):
        self.act(context, server, 'resume', (vm_states.SUSPENDED,),
                 task_states.RESUMING, 'resume_instance')

    def rescue(self, context, server, password, rescue_image_ref=None):
        """Boot the guest from a rescue image (``rescue_image_ref``, else
        the server's own), its disks kept as they are: an unknown or
        unusable image is a 400 before anything is written."""
        if rescue_image_ref:
            try:
                checks.get_image(rescue_image_ref, context)
            except (exception.ImageNotFound, exception.InvalidRequest):
                raise exception.UnsupportedRescueImage(
                    image=rescue_image_ref)
        self.act(context, server, 'rescue',
                 (vm_states.ACTIVE, vm_states.STOPPED, vm_states.ERROR),
                 task_states.RESCUING, 'rescue_instance',
                 rescue_password=password,
                 rescue_image_ref=rescue_image_ref)

    def unrescue(self, context, server):
        self.act(context, server, 'unrescue', (vm_states.RESCUED,),
                 task_states.UNRESCUING, 'unrescue_instance')

    def lock(self, context, server, reason=None):
        """Lock (admins and the owner may still act; others may not)."""
        self._set_lock(context, server, True, reason)

    def unlock(self, context, server):
        instance = server.instance
        if instance.locked and instance.locked_by == 'admin' and \
                not context.is_admin:
            raise exception.Forbidden(
                reason="Policy doesn't allow unlocking a server an admin "
                       "locked.")
        self._set_lock(context, server, False, None)

    @staticmethod
    def _set_lock(context, server, locked, reason):
        if server.build_request or server.cell is None:
            raise exception.InstanceInvalidState(
                action='lock' if locked else 'unlock', uuid=server.uuid,
                attr='vm_state', state='building')
        system_metadata = dict(server.instance.system_metadata or {})
        if locked and reason:
            system_metadata['locked_reason'] = reason
        else:
            system_metadata.pop('locked_reason', None)
        owner = context.project_id == server.instance.project_id
        values = {'locked': locked, 'system_metadata': system_metadata,
                  'locked_by': (('owner' if owner and not context.is_admin
                                 else 'admin') if locked else None)}
        with cells.target_cell(context, server.cell) as cctxt:
            _save(cctxt, server.instance, values)
            objects.InstanceAction.action_start(
                cctxt, server.uuid, 'lock' if locked else 'unlock')
        LOG.info('Instance %s %s', server.uuid,
                 'locked' if locked else 'unlocked')
        for name, value in values.items():
            setattr(server.instance, name, value)
        notifications.instance_action(
            context, server.instance, CONF.host,
            'lock' if locked else 'unlock', source=notifications.API)
