"""Resize, cold migrate, confirm, revert.

``resize`` and ``migrate`` need a new host: they set the task state
``resize_prep`` in the instance's cell, start the action and cast
``migrate_server`` to the super conductor with a request spec made for
the move (new flavor, the source in ``ignore_hosts`` unless it may stay,
restricted to the instance's cell, the admin's host if one was given).
The stored request spec keeps the flavor in use: it takes the new one
when the resize is confirmed.

``confirmResize`` and ``revertResize`` act on the finished migration: the
API writes its status (and the task state for a revert) in the cell and
casts to the compute that must act first (the source to confirm, the
destination to revert), as Nova does. The status changes only from
``finished`` (a compare-and-swap in the cell database): of a confirm, a
revert and the destination's automatic confirm racing on one migration,
one wins and the others get a conflict.
"""

from oslo_log import log as logging
import os_traits

from nova_lite.api.compute import actions
from nova_lite.api.compute import checks
from nova_lite.api import quota
from nova_lite import cells
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.image import interface as image_api
from nova_lite import objects
from nova_lite import servicegroup

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

_MOVABLE_VM_STATES = (vm_states.ACTIVE, vm_states.STOPPED)


def flavor_of(context, instance):
    """The instance's current flavor as a Flavor object."""
    return objects.Flavor.from_dict(context, instance.flavor or {})


class ResizeAPI:
    """Starts cold moves through the super conductor
    (``compute_task_api``), which asks placement (the client
    ``get_placement`` makes, on first use) for the source's traits;
    confirms and reverts them on the computes (``compute_rpcapi``)."""

    def __init__(self, compute_rpcapi, compute_task_api, get_placement):
        self.compute_rpcapi = compute_rpcapi
        self.compute_task_api = compute_task_api
        self._get_placement = get_placement

    # -- resize and cold migrate ---------------------------------------------

    def resize(self, context, server, flavor, auto_disk_config=None):
        """Resize ``server`` to ``flavor`` (a Flavor object).

        ``auto_disk_config``: True for ``OS-DCF:diskConfig`` ``AUTO``
        (refused when the server's image disables it); as in Nova, a
        resize or cold migration without it makes the server ``MANUAL``.
        """
        instance = self._movable_instance(context, server, 'resize')
        checks.check_auto_disk_config(
            image_api.find(instance.image_ref)
            if instance.image_ref else None, auto_disk_config)
        current = (instance.flavor or {}).get('flavorid')
        if str(current) == str(flavor.flavorid):
            raise exception.InvalidRequest(
                reason='When resizing, instances must change flavor!')
        if flavor.disabled:
            raise exception.InvalidRequest(
                reason='Flavor %s could not be found.' % flavor.flavorid)
        if (flavor.root_gb or 0) < instance.flavor_value('root_gb'):
            raise exception.InvalidRequest(
                reason="Resize of the root disk down is not allowed: "
                       "flavor %s has %s GB, the server %s GB." % (
                           flavor.flavorid, flavor.root_gb or 0,
                           instance.flavor_value('root_gb')))
        _check_upsize_quota(context, instance, flavor)
        self._start_cold_move(context, server, instance, flavor, 'resize',
                              auto_disk_config=auto_disk_config)

    def migrate(self, context, server, host=None):
        """Cold migrate ``server`` (to ``host`` when given, admins)."""
        instance = self._movable_instance(context, server, 'migrate')
        if host is not None:
            self._check_target_host(context, instance, host)
        self._start_cold_move(context, server, instance,
                              flavor_of(context, instance), 'migrate',
                              host=host)

    @staticmethod
    def _movable_instance(context, server, action):
        return actions.instance_for(context, server, action,
                                    _MOVABLE_VM_STATES)

    @staticmethod
    def _check_target_host(context, instance, host):
        checks.check_host(context, host)
        if host == instance.host:
            raise exception.InvalidRequest(
                reason="The target host can't be the same one.")

    def _start_cold_move(self, context, server, instance, flavor, action,
                         host=None, auto_disk_config=None):
        spec = self._move_request_spec(context, server, instance, flavor,
                                       action, host)
        with cells.target_cell(context, server.cell) as cctxt:
            actions.start_task(
                cctxt, instance, action, task_states.RESIZE_PREP,
                {'auto_disk_config': bool(auto_disk_config)})
        LOG.info('%s of instance %s from %s to flavor %s%s requested',
                 action, instance.uuid, instance.host, flavor.flavorid,
                 ' on host %s' % host if host else '')
        self.compute_task_api.migrate_server(context, instance, flavor,
                                             spec)

    # -- the request spec of a move ----------------------------------------

    def _move_request_spec(self, context, server, instance, flavor, action,
                           host):
        """The stored spec (or one rebuilt from the instance) made for
        this move; not saved."""
        stay = self._may_stay_on_source(context, server, instance, action)
        return objects.RequestSpec.for_move(
            context, instance, server.cell.uuid, flavor=flavor, host=host,
            ignore_hosts=[] if stay else [instance.host])

    def _may_stay_on_source(self, context, server, instance, action):
        """Resize: ``allow_resize_to_same_host``. Cold migrate: only a
        source provider with COMPUTE_SAME_HOST_COLD_MIGRATE."""
        if action == 'resize':
            return CONF.allow_resize_to_same_host
        trait = os_traits.COMPUTE_SAME_HOST_COLD_MIGRATE
        try:
            with cells.target_cell(context, server.cell) as cctxt:
                node = objects.ComputeNode.get_by_host_and_nodename(
                    cctxt, instance.host, instance.node)
            placement = self._get_placement()
            traits = placement.get_traits(node.uuid).get('traits', [])
        except Exception as error:  # noqa: BLE001 - the safe answer
            LOG.info('Traits of the source of %s unknown (%s): it must '
                     'move', instance.uuid, error)
            return False
        return trait in traits

    # -- confirm and revert --------------------------------------------------

    def confirm_resize(self, context, server):
        """Confirm a finished resize: the source compute drops the old
        guest and the migration's allocation."""
        instance, migration = self._finished_migration(context, server,
                                                       'confirmResize')
        with cells.target_cell(context, server.cell) as cctxt:
            self._take_finished_migration(cctxt, instance, migration,
                                          'confirming', 'confirmResize')
            objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                'confirmResize')
            self._keep_new_flavor_in_spec(context, instance)
            LOG.info('Confirming the resize of instance %s (migration %s)',
                     instance.uuid, migration.uuid)
            self.compute_rpcapi.confirm_resize(cctxt, instance, migration)

    def revert_resize(self, context, server):
        """Revert a finished resize: the destination drops the new guest,
        the source takes the instance back with its old flavor."""
        instance, migration = self._finished_migration(context, server,
                                                       'revertResize')
        with cells.target_cell(context, server.cell) as cctxt:
            self._take_finished_migration(cctxt, instance, migration,
                                          'reverting', 'revertResize')
            try:
                self._set_reverting(cctxt, instance)
            except exception.InstanceInvalidState:
                self._release_migration(migration, 'reverting')
                raise
            objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                'revertResize')
            LOG.info('Reverting the resize of instance %s (migration %s)',
                     instance.uuid, migration.uuid)
            self.compute_rpcapi.revert_resize(cctxt, instance, migration)

    @staticmethod
    def _take_finished_migration(cctxt, instance, migration, status,
                                 action):
        """The finished migration becomes ``status`` unless another
        confirm or revert took it first (409 then)."""
        migration._context = cctxt
        migration.status = status
        try:
            migration.save(expected_status='finished')
        except (exception.Conflict, exception.MigrationNotFound) as exc:
            raise exception.InstanceInvalidState(
                action=action, uuid=instance.uuid, attr='migration status',
                state=exc.kwargs.get('actual', 'deleted'))

    @staticmethod
    def _release_migration(migration, taken_as):
        """Back to ``finished`` after a revert that could not start."""
        migration.status = 'finished'
        try:
            migration.save(expected_status=taken_as)
        except (exception.Conflict, exception.MigrationNotFound) as exc:
            LOG.warning('Migration %s not put back to finished: %s',
                        migration.uuid, exc)

    @staticmethod
    def _set_reverting(cctxt, instance):
        """Task state ``resize_reverting``, only from VERIFY_RESIZE with
        no task (409 otherwise)."""
        instance._context = cctxt
        instance.task_state = task_states.RESIZE_REVERTING
        try:
            instance.save(expected_task_state=[None],
                          expected_vm_state=[vm_states.RESIZED])
        except (exception.UnexpectedTaskStateError,
                exception.UnexpectedVMStateError) as exc:
            attr = ('task_state' if isinstance(
                exc, exception.UnexpectedTaskStateError) else 'vm_state')
            raise exception.InstanceInvalidState(
                action='revertResize', uuid=instance.uuid, attr=attr,
                state=exc.kwargs.get('actual'))

    @staticmethod
    def _finished_migration(context, server, action):
        """(instance, its ``finished`` migration); 409 unless the server
        is in VERIFY_RESIZE, 400 without such a migration."""
        instance = actions.instance_for(context, server, action,
                                        (vm_states.RESIZED,))
        with cells.target_cell(context, server.cell) as cctxt:
            try:
                migration = objects.Migration.get_by_instance_and_status(
                    cctxt, instance.uuid, 'finished')
            except exception.MigrationNotFound:
                raise exception.InvalidRequest(
                    reason='Instance %s has no finished migration to '
                           '%s.' % (instance.uuid, action))
        return instance, migration

    def confirm_resize_before_delete(self, cctxt, instance):
        """Confirm a resize the user deletes the server in the middle of
        (VERIFY_RESIZE), waiting for the source compute: it drops the
        old guest and the migration's allocation, which the delete on the
        destination would otherwise leave behind. ``cctxt`` targets the
        instance's cell; call before the delete sets its task state.

        Not when the source compute is down (the call would wait for its
        RPC timeout) or when a confirm or revert already took the
        migration: False then, and the delete itself frees what the
        unfinished migration holds.
        """
        if instance.vm_state != vm_states.RESIZED:
            return False
        try:
            migration = objects.Migration.get_by_instance_and_status(
                cctxt, instance.uuid, 'finished')
        except exception.MigrationNotFound:
            return False
        if not servicegroup.compute_is_up(cctxt, migration.source_compute):
            LOG.warning('Resize of %s not confirmed before its delete: its '
                        'source compute %s is down', instance.uuid,
                        migration.source_compute)
            return False
        migration.status = 'confirming'
        try:
            migration.save(expected_status='finished')
        except (exception.Conflict, exception.MigrationNotFound) as taken:
            LOG.info('Resize of %s not confirmed before its delete: %s',
                     instance.uuid, taken)
            return False
        objects.InstanceAction.action_start(cctxt, instance.uuid,
                                            'confirmResize')
        LOG.info('Confirming the resize of instance %s before its delete',
                 instance.uuid)
        try:
            self.compute_rpcapi.confirm_resize(cctxt, instance, migration,
                                               cast=False)
        except Exception as error:  # noqa: BLE001 - the delete goes on
            LOG.warning('Resize of %s not confirmed before its delete: '
                        '%s', instance.uuid, error)
            return False
        return True

    @staticmethod
    def _keep_new_flavor_in_spec(context, instance):
        """The stored request spec takes the flavor the resize made
        current (later moves schedule with it)."""
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                            instance.uuid)
        except exception.RequestSpecNotFound:
            return
        if spec.flavor.get('flavorid') == (instance.flavor or {}).get(
                'flavorid'):
            return
        spec.flavor = flavor_of(context, instance)
        spec.save()


def _check_upsize_quota(context, instance, flavor):
    """403 when the cores or RAM the new flavor adds exceed the owner's
    quota (Nova counts only what grows; the instance count is the
    same)."""
    grows = {'cores': flavor.vcpus - instance.flavor_value('vcpus'),
             'ram': flavor.memory_mb - instance.flavor_value('memory_mb')}
    grows = {name: delta for name, delta in grows.items() if delta > 0}
    if not grows:
        return
    limits = quota.limits_for(context, instance.project_id,
                              instance.user_id)
    used = quota.server_usage(context, instance.project_id)
    for name, delta in grows.items():
        quota.check_count(name, delta, used[name], limits.get(name, -1))
