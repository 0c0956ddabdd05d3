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

Any failure here gives the source allocation back to the instance
(dropping a destination claim), sets the migration to ``error`` and the
instance back to its state with no task, with a fault saying why.
"""

from oslo_log import log as logging

from nova_lite.clients import allocation_moves
from nova_lite.clients import placement as placement_client
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import common
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_fault as fault_obj
from nova_lite import servicegroup

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

EVENT = 'conductor_live_migrate_instance'
COMPUTE_BINARY = 'nova-lite-compute'


class MigrationPreCheckError(exception.Invalid):
    msg_fmt = 'Migration pre-check error: %(reason)s'


class MaxRetriesExceeded(exception.NoValidHost):
    msg_fmt = ('Exceeded maximum number of retries. %(reason)s')


def cell_of(context, instance_uuid):
    """The CellMapping the instance lives in (InstanceMappingNotFound)."""
    return objects.InstanceMapping.get_by_instance_uuid(
        context, instance_uuid).cell_mapping


def compute_is_up(cctxt, host):
    """Whether the compute service of ``host`` is up (and known)."""
    try:
        service = objects.Service.get_by_host_and_binary(
            cctxt, host, COMPUTE_BINARY)
    except exception.NotFound:
        return False
    return servicegroup.is_up(service)


def node_of_host(cctxt, host, node=None):
    """The compute node row of ``host`` (``node`` if named); a host with
    several nodes needs the node named."""
    nodes = [n for n in cell_db.compute_node_get_all(cctxt)
             if n.host == host and (node is None or
                                    n.hypervisor_hostname == node)]
    if not nodes:
        raise MigrationPreCheckError(
            reason='Compute host %s could not be found.' % host)
    if len(nodes) > 1:
        raise MigrationPreCheckError(
            reason='Host %s has %d nodes; name one to force a move there.'
            % (host, len(nodes)))
    return nodes[0]


def record_fault(cctxt, instance_uuid, error):
    """A fault for ``error`` without changing the instance's states."""
    try:
        objects.InstanceFault(cctxt, **fault_obj.fault_values(
            instance_uuid, error, host=CONF.host)).create()
    except exception.NovaLiteException as record_error:
        LOG.warning('Fault of instance %s not recorded: %s', instance_uuid,
                    record_error)


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
        self.moved_source = False
        self.cell = None

    def execute(self):
        uuid = self.instance.uuid
        self.cell = cell_of(self.context, uuid)
        with nl_context.target_cell(self.context, self.cell) as cctxt:
            objects.InstanceActionEvent.event_start(cctxt, uuid, EVENT,
                                                    host=CONF.host)
            try:
                self.instance = objects.Instance.get_by_uuid(cctxt, uuid)
                self.migration = self._create_migration(cctxt)
                dest_host, dest_node = self._prepare(cctxt)
            except Exception as error:  # noqa: BLE001 - rolled back
                self._rollback(cctxt, error)
                return
            objects.InstanceActionEvent.event_finish(cctxt, uuid, EVENT)
            LOG.info('Live migration %s of instance %s: %s -> %s/%s',
                     self.migration.uuid, uuid, self.instance.host,
                     dest_host, dest_node)
            self.compute_api.live_migration(cctxt, self.instance, dest_host,
                                            self.migration)

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
        if not compute_is_up(cctxt, instance.host):
            raise MigrationPreCheckError(
                reason='Compute service of %s is unavailable at this time.'
                % instance.host)
        if self.requested_host == instance.host:
            raise MigrationPreCheckError(
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
        if not compute_is_up(cctxt, host):
            raise MigrationPreCheckError(
                reason='Compute service of %s is unavailable at this time.'
                % host)
        node = node_of_host(cctxt, host)
        held = allocation_moves.read(self.placement, self.migration.uuid)
        if len(held.allocations) > 1:
            raise MigrationPreCheckError(
                reason='Forcing a host is not possible when the source '
                       'allocation spans several providers.')
        resources = next(iter(held.allocations.values()), {}).get(
            'resources', {})
        try:
            self.placement.put_allocations(
                self.instance.uuid, {node.uuid: {'resources': resources}},
                self.instance.project_id, self.instance.user_id,
                consumer_generation=None)
        except placement_client.PlacementClientError as error:
            raise MigrationPreCheckError(
                reason='Unable to claim the resources of %s on %s: %s' % (
                    self.instance.uuid, node.hypervisor_hostname, error))
        self._check_destination(cctxt, host, node.hypervisor_hostname)
        return host, node.hypervisor_hostname

    def _request_spec(self, attempted):
        instance = self.instance
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(self.context,
                                                            instance.uuid)
        except exception.RequestSpecNotFound:
            spec = objects.RequestSpec.from_components(
                self.context, instance.flavor or {},
                project_id=instance.project_id, user_id=instance.user_id,
                instance_uuid=instance.uuid)
        if instance.flavor:
            spec.flavor = objects.RequestSpec.from_components(
                self.context, instance.flavor).flavor
        spec.num_instances = 1
        spec.force_hosts = []
        spec.force_nodes = []
        spec.ignore_hosts = sorted(attempted)
        spec.requested_destination = objects.RequestSpecDestination(
            host=self.requested_host, node=None, cell_uuid=self.cell.uuid,
            allow_cross_cell_move=False)
        spec.source_cell_uuid = self.cell.uuid
        return spec

    def _find_destination(self, cctxt):
        attempted = {self.instance.host}
        retries = CONF.migrate_max_retries
        rejections = []
        while True:
            spec = self._request_spec(attempted)
            try:
                selection = self.scheduler_api.select_destinations(
                    self.context, spec, [self.instance.uuid],
                    return_alternates=False)[0][0]
            except exception.NoValidHost as error:
                if rejections:
                    raise MaxRetriesExceeded(reason='%s Rejected: %s' % (
                        error, '; '.join(rejections)))
                raise
            host, node = selection.service_host, selection.nodename
            try:
                self._check_destination(cctxt, host, node)
                return host, node
            except MigrationPreCheckError as error:
                LOG.info('Destination %s rejected the live migration of %s:'
                         ' %s', host, self.instance.uuid, error)
                rejections.append('%s: %s' % (host, error))
                common.delete_allocations(self.placement,
                                          self.instance.uuid)
                attempted.add(host)
            if retries >= 0 and len(rejections) > retries:
                raise MaxRetriesExceeded(
                    reason='Live migration of %s: %d destination(s) '
                           'rejected it: %s' % (
                               self.instance.uuid, len(rejections),
                               '; '.join(rejections)))

    def _check_destination(self, cctxt, host, node):
        if not compute_is_up(cctxt, host):
            raise MigrationPreCheckError(
                reason='Compute service of %s is unavailable at this time.'
                % host)
        try:
            self.compute_api.check_can_live_migrate_destination(
                cctxt, self.instance, host, node, self.migration,
                block_migration=self.block_migration)
        except exception.NovaLiteException as error:
            raise MigrationPreCheckError(
                reason=error.kwargs.get('reason') or str(error))
        except Exception as error:  # noqa: BLE001 - RPC timeout and such
            raise MigrationPreCheckError(
                reason='%s did not answer the check: %s' % (
                    host, type(error).__name__))

    def _rollback(self, cctxt, error):
        uuid = self.instance.uuid
        LOG.warning('Live migration of instance %s failed in the conductor: '
                    '%s', uuid, error)
        if self.moved_source:
            try:
                allocation_moves.move_allocations(
                    self.placement, self.migration.uuid, uuid,
                    target_type=allocation_moves.INSTANCE)
            except placement_client.PlacementClientError as move_error:
                LOG.error('Source allocation of %s not given back from '
                          'migration %s: %s', uuid, self.migration.uuid,
                          move_error)
        if self.migration is not None:
            self.migration.status = 'error'
            self.migration.save()
        try:
            instance_api.instance_update(cctxt, uuid, {'task_state': None})
        except exception.InstanceNotFound:
            return
        record_fault(cctxt, uuid, error)
        objects.InstanceActionEvent.event_finish(
            cctxt, uuid, EVENT, result='Error', details=str(error))
