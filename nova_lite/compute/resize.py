"""Cold migrate and resize on a compute: prep, resize, finish, confirm.

The steps of one move, each a cast (NOVA_FACTS §5.1, §5.2):

* ``prep_resize`` on the destination: checks it can take the instance
  (its claim is in placement already: computes never claim), remembers
  the old and new flavors in ``instance.extra``, and casts
  ``resize_instance`` to the source. When the check fails the source
  allocation goes back to the instance (dropping this host's claim) and
  the cell conductor is called with the alternates left;
* ``resize_instance`` on the source: migration ``migrating``, the driver
  stops the guest and ships it, migration ``post-migrating``, then
  ``finish_resize`` to the destination;
* ``finish_resize`` on the destination: the driver creates the guest, the
  instance takes its new host, node and flavor: vm state ``resized``
  (VERIFY_RESIZE), migration ``finished``.

Then the user decides: ``confirm_resize`` (source) drops the source guest
and the migration's allocation; ``revert_resize`` (destination) destroys
the new guest and hands over to ``finish_revert_resize`` (source), which
gives the source allocation back to the instance (overwriting its
destination claim) and restarts the old guest with the old flavor.

A step that fails leaves the instance on the source in ERROR with a
fault, the migration in ``error``, and the source allocation back on the
instance with no claim left on the destination.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.clients import allocation_moves
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import notifications
from nova_lite.virt import power_state

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# Keys of instance.extra while a resize is in flight.
MOVE_KEYS = ('old_flavor', 'new_flavor', 'old_vm_state',
             'old_availability_zone', 'new_availability_zone')
_FLAVOR_KEYS = ('id', 'flavorid', 'name', 'vcpus', 'memory_mb', 'root_gb',
                'ephemeral_gb', 'swap', 'rxtx_factor', 'vcpu_weight',
                'is_public', 'description')
# Seconds between two looks for resizes to confirm automatically, at most.
CONFIRM_CHECK_MAX = 60


class ResizeFailed(exception.NovaLiteException):
    msg_fmt = 'Resize of instance %(uuid)s failed on %(host)s: %(reason)s'


def flavor_dict(flavor):
    """The flavor as instances store it (a Flavor object or a dict)."""
    get = flavor.get
    result = {key: get(key) for key in _FLAVOR_KEYS}
    result['extra_specs'] = dict(get('extra_specs') or {})
    return {k: v for k, v in result.items() if v is not None}


def _flavor_columns(flavor):
    """The instance columns that copy the flavor."""
    return {'flavor': flavor, 'instance_type_id': flavor.get('id'),
            'vcpus': flavor.get('vcpus'),
            'memory_mb': flavor.get('memory_mb'),
            'root_gb': flavor.get('root_gb', 0),
            'ephemeral_gb': flavor.get('ephemeral_gb', 0)}


def _without_move_keys(extra):
    return {k: v for k, v in (extra or {}).items() if k not in MOVE_KEYS}


def _settled_vm_state(old_vm_state):
    return vm_states.STOPPED if old_vm_state == vm_states.STOPPED \
        else vm_states.ACTIVE


class Resizes:
    """The resize and cold-migrate steps run by one compute host.

    :param compute_api: client of the other computes of this cell.
    :param task_api: the cell conductor's ComputeTaskAPI (reschedules).
    :param placement: the placement client (the migration consumer).
    """

    def __init__(self, host, driver, records, events, tracker,
                 conductor_api, placement, compute_api, task_api):
        self.host = host
        self.driver = driver
        self.records = records
        self.events = events
        self.tracker = tracker
        self.conductor_api = conductor_api
        self.placement = placement
        self.compute_api = compute_api
        self.task_api = task_api

    # -- destination: prep ---------------------------------------------------

    def prep_resize(self, context, instance, flavor, migration, node,
                    request_spec, host_list, clean_shutdown):
        """Check this host can take the instance, then start the move."""
        uuid = instance.uuid
        checked = False
        notifications.instance_exists(context, instance, self.host)
        notifications.instance_resize_prep(context, instance, self.host,
                                           'start', flavor)
        try:
            with self.events.step(context, uuid, 'compute_prep_resize'):
                self.check_destination(context, instance, flavor, migration,
                                       node)
                checked = True
                stored = self._remember_move(context, instance, flavor)
        except Exception as error:  # noqa: BLE001 - reschedule
            if not checked:
                self._destination_refused(context, instance, flavor,
                                          migration, node, request_spec,
                                          host_list, clean_shutdown, error)
                return
            if not isinstance(error, (exception.InstanceNotFound,
                                      exception.UnexpectedTaskStateError)):
                raise
            self._abandon_move(context, uuid, migration, error)
            return
        LOG.info('Instance %s may move to %s; resizing on %s', uuid, node,
                 migration.source_compute)
        notifications.instance_resize_prep(context, stored, self.host,
                                           'end', flavor)
        self.compute_api.resize_instance(
            context, stored, flavor, migration, clean_shutdown)

    def _destination_refused(self, context, instance, flavor, migration,
                             node, request_spec, host_list, clean_shutdown,
                             error):
        LOG.info('prep_resize of instance %s on %s failed: %s',
                 instance.uuid, node, error)
        self._give_back_source_allocation(context, migration, instance.uuid)
        self._reschedule_resize(context, instance, flavor, migration,
                                request_spec, host_list, clean_shutdown,
                                error)

    def _remember_move(self, context, instance, flavor):
        """Keep in ``instance.extra`` what finish and revert need: both
        flavors, the vm state and zone to come back to, and the zone of
        the destination (which the conductor took from the Selection and
        set on the instance it handed down)."""
        fresh = self.conductor_api.instance_get_by_uuid(context,
                                                        instance.uuid)
        extra = dict(fresh.extra or {})
        extra.update(old_flavor=dict(fresh.flavor or {}),
                     new_flavor=flavor_dict(flavor),
                     old_vm_state=fresh.vm_state,
                     old_availability_zone=fresh.availability_zone,
                     new_availability_zone=instance.availability_zone)
        return self.records.update(
            context, instance.uuid, {'extra': extra},
            expected_task_state=[task_states.RESIZE_PREP])

    def check_destination(self, context, instance, flavor, migration, node):
        """What this destination checks before the move starts; raises
        when it cannot take the instance (tests patch this to fail a
        destination, as a failed claim would)."""
        if node not in self.driver.get_available_nodes():
            raise ResizeFailed(uuid=instance.uuid, host=self.host,
                               reason='node %s is not served here' % node)
        answer = self.placement.get_allocations(instance.uuid)
        if not answer.get('allocations'):
            raise ResizeFailed(uuid=instance.uuid, host=self.host,
                               reason='no allocation claimed for it')

    def _reschedule_resize(self, context, instance, flavor, migration,
                           request_spec, host_list, clean_shutdown, error):
        """Hand the alternates to the cell conductor (a call: it claims
        the next one and casts to it, or fails the move)."""
        LOG.info('Rescheduling the resize of instance %s: %d alternates '
                 'left', instance.uuid, len(host_list or []))
        try:
            self.task_api.migrate_server(
                context, instance, flavor, request_spec,
                host_list=list(host_list or []), migration=migration,
                clean_shutdown=clean_shutdown, exc_reason=str(error),
                do_cast=False)
        except Exception as call_error:  # noqa: BLE001 - conductor gone
            LOG.error('Reschedule of the resize of %s failed: %s',
                      instance.uuid, call_error)
            self._fail_move(context, instance.uuid, migration, call_error)

    # -- source: resize ------------------------------------------------------

    def resize_instance(self, context, instance, flavor, migration,
                        clean_shutdown):
        """Stop and ship the guest, then finish on the destination."""
        uuid = instance.uuid
        notifications.instance_action(context, instance, self.host,
                                      'resize', 'start')
        try:
            with self.events.step(context, uuid, 'compute_resize_instance'):
                migration = self.records.set_migration_status(
                    context, migration, 'migrating')
                instance = self.records.update(
                    context, uuid,
                    {'task_state': task_states.RESIZE_MIGRATING},
                    expected_task_state=[task_states.RESIZE_PREP])
                disk_info = self.driver.migrate_disk_and_power_off(
                    context, instance, migration.dest_compute, flavor)
                migration = self.records.set_migration_status(
                    context, migration, 'post-migrating')
                instance = self.records.update(
                    context, uuid,
                    {'task_state': task_states.RESIZE_MIGRATED,
                     'power_state': power_state.SHUTDOWN},
                    expected_task_state=[task_states.RESIZE_MIGRATING])
        except Exception as error:  # noqa: BLE001 - recorded, rolled back
            notifications.instance_action(context, instance, self.host,
                                          'resize', 'error', fault=error)
            self._fail_move(context, uuid, migration, error)
            return
        LOG.info('Instance %s shipped from %s to %s', uuid, self.host,
                 migration.dest_compute)
        notifications.instance_action(context, instance, self.host,
                                      'resize', 'end')
        self.compute_api.finish_resize(context, instance, flavor,
                                       migration, disk_info)

    # -- destination: finish -------------------------------------------------

    def finish_resize(self, context, instance, flavor, migration,
                      disk_info):
        """Create the guest here; the server waits in VERIFY_RESIZE."""
        uuid = instance.uuid
        notifications.instance_action(context, instance, self.host,
                                      'resize_finish', 'start')
        try:
            with self.events.step(context, uuid, 'compute_finish_resize'):
                instance = self.records.update(
                    context, uuid, {'task_state': task_states.RESIZE_FINISH},
                    expected_task_state=[task_states.RESIZE_MIGRATED])
                extra = dict(instance.extra or {})
                values, power_on = self._spawn_resized(
                    context, instance, flavor, migration, disk_info, extra)
        except Exception as error:  # noqa: BLE001 - recorded, rolled back
            self._fail_move(context, uuid, migration, error)
            return
        self._finished_resize(context, instance, migration, values, extra,
                              power_on)

    def _spawn_resized(self, context, instance, flavor, migration,
                       disk_info, extra):
        """The guest created here with the new flavor; the instance
        values to save and whether it runs."""
        node = migration.dest_node
        new_flavor = extra.get('new_flavor') or flavor_dict(flavor)
        values = _flavor_columns(new_flavor)
        values.update(host=self.host, node=node)
        compute_node = self.tracker.get_node(node)
        if compute_node is not None:
            values['compute_id'] = compute_node.id
        for name, value in values.items():
            setattr(instance, name, value)
        allocations = self.placement.get_allocations(instance.uuid)
        power_on = extra.get('old_vm_state') != vm_states.STOPPED
        self.driver.finish_migration(
            context, migration, instance, disk_info, None, {},
            migration.migration_type == 'resize',
            allocations.get('allocations') or {}, power_on=power_on)
        return values, power_on

    def _finished_resize(self, context, instance, migration, values, extra,
                         power_on):
        uuid = instance.uuid
        zone = extra.get('new_availability_zone')
        if zone:
            values['availability_zone'] = zone
        values.update(vm_state=vm_states.RESIZED, task_state=None,
                      power_state=(power_state.RUNNING if power_on
                                   else power_state.SHUTDOWN))
        try:
            instance = self.records.update(context, uuid, values,
                                           expected_task_state=[
                                               task_states.RESIZE_FINISH])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s changed while its resize finished: %s',
                     uuid, changed)
            return
        self.records.set_migration_status(context, migration, 'finished')
        self.tracker.refresh_usage(context, migration.dest_node)
        LOG.info('Instance %s resized to %s/%s: waiting for confirm or '
                 'revert', uuid, self.host, migration.dest_node)
        notifications.instance_action(context, instance, self.host,
                                      'resize_finish', 'end')

    # -- confirm (source) -----------------------------------------------------

    def confirm_resize(self, context, instance, migration):
        """Drop the source guest and the migration's allocation."""
        uuid = instance.uuid
        notifications.instance_action(context, instance, self.host,
                                      'resize_confirm', 'start')
        try:
            with self.events.step(context, uuid, 'compute_confirm_resize'):
                self.driver.confirm_migration(context, migration, instance)
                allocation_moves.delete_allocation(self.placement,
                                                   migration.uuid)
                self.records.set_migration_status(context, migration,
                                                  'confirmed')
                settled = self._settle_confirmed(context, uuid)
        except Exception as error:  # noqa: BLE001 - recorded
            self._fail_confirm_or_revert(context, instance, migration,
                                         error)
            return
        if migration.source_node:
            self.tracker.refresh_usage(context, migration.source_node)
        LOG.info('Resize of instance %s confirmed; source %s/%s freed',
                 uuid, self.host, migration.source_node)
        notifications.instance_action(context, settled or instance,
                                      self.host, 'resize_confirm', 'end')

    def _settle_confirmed(self, context, uuid):
        """The confirmed instance leaves VERIFY_RESIZE, unless it is
        being deleted (the delete that asked for this confirm, or one
        that came meanwhile): that delete owns it now."""
        try:
            fresh = self.conductor_api.instance_get_by_uuid(context, uuid)
            settled = (vm_states.STOPPED
                       if fresh.power_state == power_state.SHUTDOWN
                       else vm_states.ACTIVE)
            return self.records.update(
                context, uuid, {'vm_state': settled, 'task_state': None,
                                'extra': _without_move_keys(fresh.extra)},
                expected_vm_state=[vm_states.RESIZED],
                expected_task_state=[None])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s changed while its resize was confirmed '
                     '(%s): left to the delete', uuid, changed)
        return None

    # -- revert (destination, then source) ---------------------------------

    def revert_resize(self, context, instance, migration):
        """Destroy the new guest, then finish on the source."""
        uuid = instance.uuid
        notifications.instance_exists(context, instance, self.host)
        notifications.instance_action(context, instance, self.host,
                                      'resize_revert', 'start')
        try:
            with self.events.step(context, uuid, 'compute_revert_resize'):
                self.driver.destroy(context, instance)
        except Exception as error:  # noqa: BLE001 - recorded
            self._fail_confirm_or_revert(context, instance, migration,
                                         error)
            return
        if migration.dest_node:
            self.tracker.refresh_usage(context, migration.dest_node)
        LOG.info('New guest of instance %s destroyed on %s; reverting on '
                 '%s', uuid, self.host, migration.source_compute)
        self.compute_api.finish_revert_resize(context, instance, migration)

    def finish_revert_resize(self, context, instance, migration):
        """Source allocation, host, node and old flavor back; the old
        guest restarts."""
        uuid = instance.uuid
        try:
            with self.events.step(context, uuid,
                                  'compute_finish_revert_resize'):
                reverted = self._revert_here(context, uuid, migration)
        except Exception as error:  # noqa: BLE001 - recorded
            self._fail_confirm_or_revert(context, instance, migration,
                                         error)
            return
        if migration.source_node:
            self.tracker.refresh_usage(context, migration.source_node)
        LOG.info('Resize of instance %s reverted: back on %s/%s', uuid,
                 self.host, migration.source_node)
        notifications.instance_action(context, reverted or instance,
                                      self.host, 'resize_revert', 'end')

    def _revert_here(self, context, uuid, migration):
        allocation_moves.move_allocations(
            self.placement, migration.uuid, uuid,
            target_type=allocation_moves.INSTANCE)
        fresh = self.conductor_api.instance_get_by_uuid(context, uuid)
        extra = dict(fresh.extra or {})
        values = self._reverted_values(fresh, migration, extra)
        for name, value in values.items():
            setattr(fresh, name, value)
        power_on = extra.get('old_vm_state') != vm_states.STOPPED
        self.driver.finish_revert_migration(context, fresh, None,
                                            migration, power_on=power_on)
        values.update(
            vm_state=_settled_vm_state(extra.get('old_vm_state')),
            task_state=None, extra=_without_move_keys(extra),
            power_state=(power_state.RUNNING if power_on
                         else power_state.SHUTDOWN))
        reverted = self.records.update(context, uuid, values,
                                       expected_task_state=[
                                           task_states.RESIZE_REVERTING])
        self.records.set_migration_status(context, migration, 'reverted')
        return reverted

    def _reverted_values(self, instance, migration, extra):
        old_flavor = extra.get('old_flavor') or dict(instance.flavor or {})
        values = _flavor_columns(old_flavor)
        values.update(host=self.host, node=migration.source_node)
        compute_node = self.tracker.get_node(migration.source_node)
        if compute_node is not None:
            values['compute_id'] = compute_node.id
        if extra.get('old_availability_zone'):
            values['availability_zone'] = extra['old_availability_zone']
        return values

    # -- automatic confirm ---------------------------------------------------

    def confirm_unconfirmed(self, context, window):
        """Confirm the resizes finished here more than ``window`` seconds
        ago; how many were (the manager's periodic decides when)."""
        migrations = self.conductor_api.migration_get_all_by_filters(
            context, {'status': 'finished', 'dest_compute': self.host})
        confirmed = 0
        for migration in migrations:
            if not timeutils.is_older_than(migration.updated_at or
                                           migration.created_at, window):
                continue
            if self.confirm_automatically(context, migration):
                confirmed += 1
        return confirmed

    def confirm_automatically(self, context, migration):
        """Confirm one finished resize unless the user or another confirm
        got there first; True when this one did."""
        uuid = migration.instance_uuid
        try:
            instance = self.conductor_api.instance_get_by_uuid(context, uuid)
        except exception.InstanceNotFound:
            return False
        if instance.vm_state != vm_states.RESIZED or \
                instance.task_state is not None:
            LOG.info('Instance %s is %s/%s: its resize is not confirmed '
                     'automatically', uuid, instance.vm_state,
                     instance.task_state)
            return False
        try:
            migration = self.records.set_migration_status(
                context, migration, 'confirming',
                expected_status='finished')
        except (exception.Conflict, exception.MigrationNotFound) as taken:
            LOG.info('Resize of instance %s not confirmed automatically: '
                     '%s', uuid, taken)
            return False
        try:
            self.conductor_api.action_start(context, uuid, 'confirmResize')
        except exception.NovaLiteException as error:
            LOG.debug('Action of %s not recorded: %s', uuid, error)
        LOG.info('Confirming the resize of instance %s automatically '
                 '(resize_confirm_window=%ss)', uuid,
                 CONF.resize_confirm_window)
        self.compute_api.confirm_resize(context, instance, migration)
        return True

    # -- failures -------------------------------------------------------------

    def _give_back_source_allocation(self, context, migration,
                                     instance_uuid):
        """The instance's source allocation returns from the migration
        consumer, replacing whatever the instance claimed elsewhere (or
        goes away with the instance if it was deleted meanwhile)."""
        allocation_moves.give_back_source(
            self.placement, migration.uuid, instance_uuid,
            instance_gone=self.records.instance_gone(context,
                                                     instance_uuid))

    def _fail_move(self, context, instance_uuid, migration, error):
        """A move step failed: allocation back on the source, migration
        ``error``, instance in ERROR on its source host with a fault."""
        LOG.warning('Resize of instance %s failed: %s', instance_uuid,
                    error)
        self._give_back_source_allocation(context, migration,
                                          instance_uuid)
        self._migration_error(context, migration)
        self.records.set_error(context, instance_uuid, error)

    def _fail_confirm_or_revert(self, context, instance, migration,
                                error):
        """Migration ``error``, instance in ERROR. When the instance was
        deleted meanwhile (a revert restarting the old guest and moving
        the source allocation back after the delete ran) nothing stays
        for it: no allocation, no guest on this host."""
        instance_uuid = instance.uuid
        LOG.warning('Confirm/revert of the resize of %s failed: %s',
                    instance_uuid, error)
        gone = self.records.instance_gone(context, instance_uuid)
        if gone:
            self._forget_deleted_instance(context, instance, migration)
        self._migration_error(context, migration)
        if not gone:
            self.records.set_error(context, instance_uuid, error)

    def _forget_deleted_instance(self, context, instance, migration):
        allocation_moves.give_back_source(
            self.placement, migration.uuid, instance.uuid,
            instance_gone=True)
        try:
            if self.driver.instance_exists(instance):
                self.driver.destroy(context, instance)
                LOG.info('Guest of deleted instance %s removed from %s',
                         instance.uuid, self.host)
        except Exception as error:  # noqa: BLE001 - a leftover guest
            LOG.error('Guest of deleted instance %s left on %s: %s',
                      instance.uuid, self.host, error)

    def _migration_error(self, context, migration):
        try:
            self.records.set_migration_status(context, migration, 'error')
        except Exception as error:  # noqa: BLE001 - logged
            LOG.error('Migration %s not set to error: %s', migration.uuid,
                      error)

    def _abandon_move(self, context, instance_uuid, migration, reason):
        """The instance changed under the move (deleted, or its task state
        reset by an admin): the move stops. A deleted instance keeps
        nothing claimed; one that still exists gets its source allocation
        back (as a failed move does) and keeps the state it was given."""
        LOG.info('Instance %s changed during its resize (%s); dropping '
                 'the move', instance_uuid, reason)
        self._give_back_source_allocation(context, migration,
                                          instance_uuid)
        self._migration_error(context, migration)
