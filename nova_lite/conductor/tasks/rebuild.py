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

When no host fits (NoValidHost), as in Nova: the migration ends
``error``, a new image is given back (the instance keeps its old one),
and the instance goes to ERROR with a fault saying why.
"""

from oslo_log import log as logging

from nova_lite.clients import allocation_moves
from nova_lite.clients import placement as placement_client
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import common
from nova_lite.conductor.tasks import live_migrate
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.cell import instance_api
from nova_lite import exception
from nova_lite import objects

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

EVENT = 'conductor_rebuild_instance'
CHECK_TYPE_HINT = '_nova_check_type'


def image_meta(image):
    """What a request spec keeps of a catalog image."""
    if not image:
        return None
    return {'id': image.get('id'), 'disk_format': image.get('disk_format'),
            'properties': image.get('properties') or {}}


class RebuildTask:
    """One rebuild or evacuation, up to the cast to the compute."""

    def __init__(self, context, instance, image, recreate, host, force,
                 migration, admin_password, preserve_ephemeral,
                 image_changed, orig_image_ref, target_state,
                 scheduler_api, placement, compute_api=None):
        self.context = context
        self.instance = instance
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

    def execute(self):
        uuid = self.instance.uuid
        self.cell = live_migrate.cell_of(self.context, uuid)
        with nl_context.target_cell(self.context, self.cell) as cctxt:
            objects.InstanceActionEvent.event_start(cctxt, uuid, EVENT,
                                                    host=CONF.host)
            try:
                self.instance = objects.Instance.get_by_uuid(cctxt, uuid)
                if self.recreate:
                    host, node = self._evacuation_destination(cctxt)
                else:
                    host, node = self._check_rebuild_host()
            except Exception as error:  # noqa: BLE001 - recorded
                self._failed(cctxt, error)
                return
            objects.InstanceActionEvent.event_finish(cctxt, uuid, EVENT)
            LOG.info('%s of instance %s on %s/%s',
                     'Evacuation' if self.recreate else 'Rebuild', uuid,
                     host, node)
            self.compute_api.rebuild_instance(
                cctxt, self.instance, host, self.image,
                recreate=self.recreate, migration=self.migration, node=node,
                admin_password=self.admin_password,
                preserve_ephemeral=self.preserve_ephemeral,
                target_state=self.target_state)

    # -- rebuild -------------------------------------------------------------

    def _stored_spec(self):
        instance = self.instance
        try:
            return objects.RequestSpec.get_by_instance_uuid(self.context,
                                                            instance.uuid)
        except exception.RequestSpecNotFound:
            return objects.RequestSpec.from_components(
                self.context, instance.flavor or {},
                project_id=instance.project_id, user_id=instance.user_id,
                instance_uuid=instance.uuid)

    def _check_rebuild_host(self):
        """The instance's own host, checked for a new image."""
        instance = self.instance
        if not self.image_changed:
            return instance.host, instance.node
        spec = self._stored_spec()
        meta = image_meta(self.image)
        spec.image_id = meta['id']
        spec.image_disk_format = meta['disk_format']
        spec.image_properties = {k: None if v is None else str(v)
                                 for k, v in meta['properties'].items()}
        spec.force_hosts = []
        spec.force_nodes = []
        spec.ignore_hosts = []
        spec.num_instances = 1
        hints = dict(spec.scheduler_hints)
        hints[CHECK_TYPE_HINT] = ['rebuild']
        spec.scheduler_hints = hints
        spec.requested_destination = objects.RequestSpecDestination(
            host=instance.host, node=instance.node,
            cell_uuid=self.cell.uuid)
        self.scheduler_api.select_destinations(
            self.context, spec, [instance.uuid], return_alternates=False)
        self._remember_image(meta)
        return instance.host, instance.node

    def _remember_image(self, meta):
        """The stored request spec boots the new image from now on."""
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(
                self.context, self.instance.uuid)
        except exception.RequestSpecNotFound:
            return
        spec.image_id = meta['id']
        spec.image_disk_format = meta['disk_format']
        spec.image_properties = {k: None if v is None else str(v)
                                 for k, v in meta['properties'].items()}
        spec.save()

    # -- evacuate ------------------------------------------------------------

    def _evacuation_destination(self, cctxt):
        if self.requested_host and self.force:
            host, node = self._claim_forced_host(cctxt)
        else:
            host, node = self._schedule_evacuation()
        values = {'dest_compute': host, 'dest_node': node, 'dest_host': host}
        for name, value in values.items():
            setattr(self.migration, name, value)
        instance_api.migration_update(cctxt, self.migration.id, values)
        return host, node

    def _schedule_evacuation(self):
        instance = self.instance
        spec = self._stored_spec()
        if instance.flavor:
            spec.flavor = objects.RequestSpec.from_components(
                self.context, instance.flavor).flavor
        spec.num_instances = 1
        spec.force_hosts = []
        spec.force_nodes = []
        spec.ignore_hosts = [instance.host]
        hints = dict(spec.scheduler_hints)
        hints[CHECK_TYPE_HINT] = ['evacuate']
        spec.scheduler_hints = hints
        spec.requested_destination = objects.RequestSpecDestination(
            host=self.requested_host, cell_uuid=self.cell.uuid)
        spec.source_cell_uuid = self.cell.uuid
        selection = self.scheduler_api.select_destinations(
            self.context, spec, [instance.uuid],
            return_alternates=False)[0][0]
        return selection.service_host, selection.nodename

    def _claim_forced_host(self, cctxt):
        """Add the forced host's node to the instance's allocation (the
        source allocation must sit on one provider to be copied)."""
        host = self.requested_host
        if not live_migrate.compute_is_up(cctxt, host):
            raise live_migrate.MigrationPreCheckError(
                reason='Compute service of %s is unavailable at this time.'
                % host)
        node = live_migrate.node_of_host(cctxt, host)
        held = allocation_moves.read(self.placement, self.instance.uuid)
        if len(held.allocations) != 1:
            raise live_migrate.MigrationPreCheckError(
                reason='Forcing a host is not possible when the source '
                       'allocation spans several providers.')
        resources = next(iter(held.allocations.values()))['resources']
        try:
            allocation_moves.add_allocation(
                self.placement, self.instance.uuid,
                {node.uuid: {'resources': dict(resources)}},
                self.instance.project_id, self.instance.user_id)
        except placement_client.PlacementClientError as error:
            raise exception.NoValidHost(
                reason='Unable to claim the resources of %s on %s: %s' % (
                    self.instance.uuid, node.hypervisor_hostname, error))
        return host, node.hypervisor_hostname

    # -- failure -------------------------------------------------------------

    def _failed(self, cctxt, error):
        uuid = self.instance.uuid
        LOG.warning('%s of instance %s failed in the conductor: %s',
                    'Evacuation' if self.recreate else 'Rebuild', uuid,
                    error)
        if self.migration is not None:
            try:
                instance_api.migration_update(cctxt, self.migration.id,
                                              {'status': 'error'})
            except exception.MigrationNotFound:
                pass
        values = {}
        if self.image_changed and self.orig_image_ref is not None:
            values['image_ref'] = self.orig_image_ref
        try:
            if values:
                instance_api.instance_update(cctxt, uuid, values)
        except exception.InstanceNotFound:
            return
        common.set_error_with_fault(cctxt, uuid, error)
        objects.InstanceActionEvent.event_finish(
            cctxt, uuid, EVENT, result='Error', details=str(error))
