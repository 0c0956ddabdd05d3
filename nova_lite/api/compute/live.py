"""Live migration, evacuate and rebuild.

Each checks the server's state (409 otherwise; locked servers are
refused to non-admins), writes the task state in the server's cell
expecting none (the first poll of a client already sees ``MIGRATING`` or
``REBUILD``), starts the instance action, then casts to the super
conductor, which schedules (:mod:`nova_lite.conductor.tasks.live_migrate`,
:mod:`nova_lite.conductor.tasks.rebuild`):

* ``live_migrate``: ACTIVE or PAUSED; task ``migrating``; action
  ``live-migration``;
* ``evacuate``: ACTIVE, STOPPED or ERROR, and the source compute service
  down or forced down (400 otherwise, as Nova's ComputeServiceInUse);
  task ``rebuilding``; action ``evacuate``; the ``evacuation`` migration
  is recorded here. The evacuated server ends ACTIVE (STOPPED if it
  was): 2.95's "evacuate to STOPPED" is not implemented, so the
  OpenStack client's ``server evacuate --wait`` (which negotiates 2.100
  and waits for ACTIVE) completes;
* ``rebuild``: ACTIVE, STOPPED or ERROR; the new image and the other
  values (a ``key_name`` with its key pair's public key) are written at
  once, and the conductor gives the old ones back if the rebuild fails
  there (the host cannot run the new image); task ``rebuilding``; action
  ``rebuild``.

The server migrations sub-resource (in-progress live migrations, abort,
force complete) is read and driven from here too. An abort stops a
``queued`` or ``preparing`` migration (2.65); a ``running`` one cannot be
stopped (400, as Nova's drivers that cannot abort a transfer).
"""

from oslo_log import log as logging

from nova_lite.api.compute import actions
from nova_lite.api.compute import checks
from nova_lite.api.compute import server_list
from nova_lite import cells
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.image import interface as image_api
from nova_lite import notifications
from nova_lite import objects
from nova_lite import servicegroup

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

LIVE_MIGRATION_STATES = (vm_states.ACTIVE, vm_states.PAUSED)
REBUILD_STATES = (vm_states.ACTIVE, vm_states.STOPPED, vm_states.ERROR)
# What GET /servers/{id}/migrations lists (Nova's in-progress set).
LIVE_IN_PROGRESS = ['queued', 'preparing', 'running', 'post-migrating']
# What an abort can stop (2.65): the source checks for an abort before
# preparing the destination and before the transfer; a transfer under way
# ('running') cannot be interrupted by nova_lite's drivers.
ABORTABLE = ('queued', 'preparing')
# Migration ids are BIGINTs: larger ones cannot name a migration.
MAX_MIGRATION_ID = 2 ** 63 - 1
# method -> (instance action, compute RPC method)
_SERVER_MIGRATION_ACTIONS = {
    'abort': ('live_migration_cancel', 'live_migration_abort'),
    'force complete': ('live_migration_force_complete',
                       'live_migration_force_complete'),
}


def _start(cctxt, instance, action, task_state, values=None):
    """Write the task state (and ``values``) expecting no task, and
    record the action."""
    actions.start_task(cctxt, instance, action, task_state, values)
    LOG.info('%s of instance %s on %s requested', action, instance.uuid,
             instance.host)


def _check_host_exists(context, host):
    """ComputeHostNotFound unless ``host`` is a mapped compute host."""
    if not checks.host_is_mapped(context, host):
        raise exception.ComputeHostNotFound(host=host)


class LiveAPI:
    """Starts live migrations, evacuations and rebuilds through the
    super conductor (``compute_task_api``); aborts and completes live
    migrations on the source compute (``compute_rpcapi``)."""

    def __init__(self, compute_rpcapi, compute_task_api):
        self.compute_rpcapi = compute_rpcapi
        self.compute_task_api = compute_task_api

    # -- live migration --------------------------------------------------

    def live_migrate(self, context, server, host=None, block_migration=None,
                     force=False):
        """Live-migrate (the scheduler picks when ``host`` is None)."""
        instance = actions.instance_for(context, server, 'os-migrateLive',
                                        LIVE_MIGRATION_STATES)
        if host:
            try:
                _check_host_exists(context, host)
            except exception.ComputeHostNotFound as error:
                raise exception.Invalid(reason=str(error))
        with cells.target_cell(context, server.cell) as cctxt:
            _start(cctxt, instance, 'live-migration', task_states.MIGRATING)
        self.compute_task_api.live_migrate_instance(
            context, instance, host=host, block_migration=block_migration,
            force=force)

    # -- evacuate ------------------------------------------------------------

    def evacuate(self, context, server, host=None, admin_password=None,
                 force=False):
        """Re-create the server elsewhere; its host must be down."""
        instance = actions.instance_for(context, server, 'evacuate',
                                        REBUILD_STATES)
        if not instance.host:
            raise exception.InstanceInvalidState(
                action='evacuate', uuid=instance.uuid, attr='host',
                state=None)
        if host:
            _check_host_exists(context, host)
            if host == instance.host:
                raise exception.Invalid(
                    reason="The target host can't be the same one.")
        with cells.target_cell(context, server.cell) as cctxt:
            if servicegroup.compute_is_up(cctxt, instance.host):
                raise exception.ComputeServiceInUse(host=instance.host)
            _start(cctxt, instance, 'evacuate', task_states.REBUILDING)
            migration = objects.Migration(
                cctxt, instance_uuid=instance.uuid,
                migration_type='evacuation', status='accepted',
                source_compute=instance.host, source_node=instance.node,
                dest_compute=host,
                old_instance_type_id=instance.instance_type_id,
                new_instance_type_id=instance.instance_type_id,
                project_id=instance.project_id, user_id=instance.user_id)
            migration.create()
        LOG.info('Evacuation %s of instance %s from %s accepted',
                 migration.uuid, instance.uuid, instance.host)
        notifications.instance_action(context, instance, CONF.host,
                                      'evacuate', source=notifications.API)
        self.compute_task_api.rebuild_instance(
            context, instance, image_api.find(instance.image_ref),
            recreate=True, host=host, force=force, migration=migration,
            admin_password=admin_password)

    # -- rebuild -------------------------------------------------------------

    def rebuild(self, context, server, image_ref, admin_password=None,
                values=None, preserve_ephemeral=False,
                auto_disk_config=None):
        """Rebuild in place from ``image_ref``; the server as of now.

        ``auto_disk_config`` (True: ``AUTO``, None: not given) is checked
        against the new image and, not given, taken from it, as Nova's
        rebuild does (a server rebuilt without one becomes ``MANUAL``
        unless its image says otherwise).
        """
        image = checks.get_image(image_ref, context)
        instance = actions.instance_for(context, server, 'rebuild',
                                        REBUILD_STATES)
        checks.check_flavor_fits_image(instance.flavor_value('memory_mb'),
                                       instance.flavor_value('root_gb'),
                                       image)
        orig_image_ref = instance.image_ref
        image_changed = image['id'] != orig_image_ref
        values = dict(values or {})
        values['image_ref'] = image['id']
        values['auto_disk_config'] = checks.auto_disk_config(
            image, auto_disk_config)
        if 'key_name' in values:
            # 400 for a key pair the caller does not have; None unsets.
            values['key_data'] = checks.key_data(context,
                                                 values['key_name'])
        # The conductor restores these values if the rebuild fails there.
        before = instance.obj_clone()
        with cells.target_cell(context, server.cell) as cctxt:
            _start(cctxt, instance, 'rebuild', task_states.REBUILDING,
                   values)
        rebuilt = server_list.get(context, instance.uuid)
        before.task_state = instance.task_state
        self.compute_task_api.rebuild_instance(
            context, before, image, recreate=False,
            admin_password=admin_password,
            preserve_ephemeral=preserve_ephemeral,
            image_changed=image_changed, orig_image_ref=orig_image_ref)
        return rebuilt

    # -- server migrations (in-progress live migrations) ----------------------

    @staticmethod
    def live_migrations_in_progress(context, server):
        """The server's live migrations still running, newest first."""
        with cells.target_cell(context, server.cell) as cctxt:
            return objects.MigrationList.get_by_filters(
                cctxt, {'instance_uuid': server.uuid,
                        'migration_type': 'live-migration',
                        'status': LIVE_IN_PROGRESS}).objects

    @staticmethod
    def _server_migration(cctxt, server, migration_id):
        migration = None
        if 1 <= migration_id <= MAX_MIGRATION_ID:
            try:
                migration = objects.Migration.get_by_id(cctxt, migration_id)
            except exception.MigrationNotFound:
                pass
        if migration is None or migration.instance_uuid != server.uuid:
            raise exception.MigrationNotFoundForInstance(
                migration_id=migration_id, instance_id=server.uuid)
        return migration

    def _live_migration_action(self, context, server, migration_id, method,
                               allowed):
        instance = server.instance
        if server.cell is None or \
                instance.task_state != task_states.MIGRATING:
            raise exception.InstanceInvalidState(
                action=method, uuid=server.uuid, attr='task_state',
                state=instance.task_state)
        with cells.target_cell(context, server.cell) as cctxt:
            migration = self._server_migration(cctxt, server, migration_id)
            if migration.migration_type != 'live-migration' or \
                    migration.status not in allowed:
                raise exception.InvalidMigrationState(
                    migration_id=migration_id, instance_uuid=server.uuid,
                    state=migration.status, method=method)
            action, rpc_method = _SERVER_MIGRATION_ACTIONS[method]
            objects.InstanceAction.action_start(cctxt, server.uuid, action)
            getattr(self.compute_rpcapi, rpc_method)(cctxt, instance,
                                                     migration)
        LOG.info('%s of live migration %s of %s requested', method,
                 migration_id, server.uuid)

    def live_migration_abort(self, context, server, migration_id,
                             support_abort_in_queue=False):
        """Stop a queued or preparing live migration (2.65,
        ``support_abort_in_queue``); anything else is past aborting
        (InvalidMigrationState, a 400)."""
        allowed = ABORTABLE if support_abort_in_queue else ()
        self._live_migration_action(context, server, migration_id, 'abort',
                                    allowed)

    def live_migration_force_complete(self, context, server, migration_id):
        """Finish a running live migration now."""
        self._live_migration_action(context, server, migration_id,
                                    'force complete', ('running',))
