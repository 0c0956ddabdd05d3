"""The super conductor's rebuild and evacuate (``rebuild_instance``).

Rebuild (same host, NOVA_FACTS 5.6): with a new image, the scheduler
re-checks the instance's current host for it (hint ``_nova_check_type:
rebuild``: only the filters that matter for an image, no placement query,
no claim); the same image needs no check. Then ``rebuild_instance`` is
cast to the instance's compute.

Evacuate (``recreate``, NOVA_FACTS 5.3): the API checked that the source
compute is down and recorded the ``evacuation`` migration. Here:

* a forced host (API < 2.68 ``force``): its node's share is added to the
  instance's allocation, no scheduler;
* otherwise the scheduler picks a host of the instance's cell other than
  the source (hint ``_nova_check_type: evacuate``, no alternates) and
  claims it *on top of* the instance's source allocation: the instance
  consumer holds both until the source compute comes back and cleans up.

Then ``rebuild_instance(recreate=True)`` is cast to the destination.

When no host fits (NoValidHost), or anything else fails before the cast
went out (the cast included): the migration ends ``error``, a destination
claimed for an evacuation is dropped again (the source allocation stays),
what the API wrote for a rebuild is given back (the instance keeps its
old image, name, key...), and the instance goes to ERROR with a fault
saying why.
"""

from oslo_log import log as logging

from nova_lite import cells
from nova_lite.clients import allocation_moves
from nova_lite.clients import placement as placement_client
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor import decisions
from nova_lite.conductor.tasks import common
from nova_lite.conductor.tasks import live_migrate
from nova_lite import conf as nl_conf
from nova_lite.db.cell import migration_api
from nova_lite import exception
from nova_lite import notifications
from nova_lite import objects

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

EVENT = 'conductor_rebuild_instance'
CHECK_TYPE_HINT = '_nova_check_type'
# What the API may write for a rebuild; a failed rebuild gives it back.
REBUILD_FIELDS = ('image_ref', 'display_name', 'display_description',
                  'metadata', 'hostname', 'user_data', 'key_name',
                  'key_data', 'auto_disk_config')


def image_meta(image):
    """What a request spec keeps of a catalog image."""
    if not image:
        return None
    return {'id': image.get('id'), 'disk_format': image.get('disk_format'),
            'properties': image.get('properties') or {}}


class RebuildTask:
    """One rebuild or evacuation, up to the cast to the compute.

    ``instance`` is the instance as the API read it, before it wrote the
    rebuild's values: a rebuild failing here restores them.
    """

    def __init__(self, context, instance, image, recreate, host, force,
                 migration, admin_password, preserve_ephemeral,
                 image_changed, orig_image_ref, target_state,
                 scheduler_api, placement, compute_api=None):
        self.context = context
        self.instance = instance
        self.original = instance
        self.image = image
        self.recreate = recreate
        self.requested_host = host
        self.force = bool(force)
        self.migration = migration
        self.admin_password = admin_password
        self.preserve_ephemeral = preserve_ephemeral
        self.image_changed = image_changed
        self.orig_image_ref = orig_image_ref
        self.target_state = target_state
        self.scheduler_api = scheduler_api
        self.placement = placement
        self.compute_api = compute_api or compute_rpcapi.ComputeAPI()
        self.cell = None
        # The providers of an evacuated instance's source allocation,
        # known once a destination claim may have joined it.
        self.source_providers = None

    def execute(self):
        uuid = self.instance.uuid
        try:
            self.cell = live_migrate.cell_of(self.context, uuid)
        except exception.InstanceMappingNotFound:
            LOG.info('Instance %s was deleted before its rebuild', uuid)
            return
        with cells.target_cell(self.context, self.cell) as cctxt:
            try:
                with common.action_events().step(
                        cctxt, uuid, EVENT, fault=True,
                        undo=lambda error: self._undo(cctxt, error),
                        revert=self._failed_values,
                        expected_task_state=[task_states.REBUILDING]):
                    self._hand_over(cctxt, uuid)
            except Exception:  # noqa: BLE001 - recorded, rolled back
                return
            if self.recreate:
                decisions.describe_event(cctxt, uuid, EVENT)

    def _hand_over(self, cctxt, uuid):
        self.instance = objects.Instance.get_by_uuid(cctxt, uuid)
        if self.recreate:
            host, node = self._evacuation_destination(cctxt)
        else:
            host, node = self._check_rebuild_host()
        LOG.info('%s of instance %s on %s/%s',
                 'Evacuation' if self.recreate else 'Rebuild', uuid,
                 host, node)
        notifications.instance_action(
            cctxt, self.instance, CONF.host, 'rebuild_scheduled',
            source=notifications.CONDUCTOR,
            payload_cls=notifications.payloads.InstanceActionRebuildPayload,
            trusted_image_certificates=None)
        self.compute_api.rebuild_instance(
            cctxt, self.instance, host, self.image,
            recreate=self.recreate, migration=self.migration,
            node=node, admin_password=self.admin_password,
            preserve_ephemeral=self.preserve_ephemeral,
            target_state=self.target_state)

    # -- rebuild -------------------------------------------------------------

    def _check_rebuild_host(self):
        """The instance's own host, checked for a new image."""
        instance = self.instance
        if not self.image_changed:
            return instance.host, instance.node
        spec = objects.RequestSpec.for_move(
            self.context, instance, self.cell.uuid, host=instance.host,
            node=instance.node, hints={CHECK_TYPE_HINT: ['rebuild']})
        _set_image(spec, image_meta(self.image))
        self.scheduler_api.select_destinations(
            self.context, spec, [instance.uuid], return_alternates=False)
        self._remember_image()
        return instance.host, instance.node

    def _remember_image(self):
        """The stored request spec boots the new image from now on."""
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(
                self.context, self.instance.uuid)
        except exception.RequestSpecNotFound:
            return
        _set_image(spec, image_meta(self.image))
        spec.save()

    # -- evacuate ------------------------------------------------------------

    def _evacuation_destination(self, cctxt):
        if self.requested_host and self.force:
            host, node = self._claim_forced_host(cctxt)
        else:
            host, node = self._schedule_evacuation(cctxt)
        values = {'dest_compute': host, 'dest_node': node, 'dest_host': host}
        for name, value in values.items():
            setattr(self.migration, name, value)
        migration_api.migration_update(cctxt, self.migration.id, values)
        return host, node

    def _schedule_evacuation(self, cctxt):
        """Ask the scheduler; it claims the destination on top of the
        source allocation (a scheduler that claims and then times out
        leaves a claim the failure path drops too)."""
        instance = self.instance
        spec = objects.RequestSpec.for_move(
            self.context, instance, self.cell.uuid, host=self.requested_host,
            ignore_hosts=[instance.host],
            hints={CHECK_TYPE_HINT: ['evacuate']})
        self._remember_source_providers()
        selection = common.first_selection(decisions.select_and_store(
            self.scheduler_api, self.context, cctxt, spec, instance.uuid,
            'evacuate'))
        return selection.service_host, selection.nodename

    def _remember_source_providers(self):
        """Note the providers of the source allocation before claiming a
        destination on top of it: a failure drops whatever was added."""
        self.source_providers = set(allocation_moves.read(
            self.placement, self.instance.uuid).allocations)

    def _claim_forced_host(self, cctxt):
        """Add the forced host's node to the instance's allocation (the
        source allocation must sit on one provider to be copied)."""
        host = self.requested_host
        live_migrate.require_compute_up(cctxt, host)
        self._remember_source_providers()
        node = common.claim_forced_host(cctxt, self.placement,
                                        self.instance, host,
                                        self.instance.uuid)
        return host, node

    # -- failure -------------------------------------------------------------

    def _undo(self, cctxt, error):
        """No destination claim left; the migration ends ``error``."""
        LOG.warning('%s of instance %s failed in the conductor: %s',
                    'Evacuation' if self.recreate else 'Rebuild',
                    self.instance.uuid, error)
        self._drop_destination_claim(cctxt)
        self._notify_error(cctxt, error)
        if self.migration is not None:
            try:
                migration_api.migration_update(cctxt, self.migration.id,
                                              {'status': 'error'})
            except exception.MigrationNotFound:
                pass

    def _notify_error(self, cctxt, error):
        """``compute_task.rebuild_server.error`` (with the instance's
        request spec), as Nova's conductor sends it."""
        def spec():
            return objects.RequestSpec.get_by_instance_uuid(
                self.context, self.instance.uuid)
        notifications.send(
            cctxt, 'compute_task.rebuild_server.error',
            lambda: notifications.payloads.ComputeTaskPayload(
                instance_uuid=self.instance.uuid,
                reason=notifications.payloads.ExceptionPayload
                .from_exception(error),
                request_spec=notifications.payloads.RequestSpecPayload
                .from_request_spec(spec()),
                state=vm_states.ERROR),
            notifications.CONDUCTOR, CONF.host, notifications.ERROR)

    def _failed_values(self, error):
        """ERROR, and for a rebuild what the API wrote given back."""
        values = {'vm_state': vm_states.ERROR, 'task_state': None}
        if not self.recreate:
            values.update(self._values_to_restore())
        return values

    def _values_to_restore(self):
        """What the API wrote for this rebuild, as it was before."""
        values = {}
        for name in REBUILD_FIELDS:
            if not self.original.obj_attr_is_set(name):
                continue
            before = getattr(self.original, name)
            if getattr(self.instance, name, None) != before:
                values[name] = before
        if self.image_changed and self.orig_image_ref is not None:
            values['image_ref'] = self.orig_image_ref
        return values

    def _drop_destination_claim(self, cctxt):
        """An evacuation's destination claim goes (the source allocation
        stays); all of it when the instance is gone."""
        if self.source_providers is None:
            return
        uuid = self.instance.uuid
        if common.instance_gone(cctxt, uuid):
            common.delete_allocations(self.placement, uuid)
            return
        try:
            held = allocation_moves.read(self.placement, uuid)
            added = set(held.allocations) - self.source_providers
            if added:
                allocation_moves.remove_providers_from_allocation(
                    self.placement, uuid, added)
        except placement_client.PlacementClientError as error:
            LOG.error('Destination claim of instance %s not dropped: %s',
                      uuid, error)


def _set_image(spec, meta):
    spec.image_id = meta['id']
    spec.image_disk_format = meta['disk_format']
    spec.image_properties = {k: None if v is None else str(v)
                             for k, v in meta['properties'].items()}
