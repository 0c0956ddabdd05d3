"""The compute API facade: what the servers handlers call (as Nova's).

The REST handlers turn HTTP into calls here; this module knows where a
server lives and who must be told:

* ``create`` validates the request, checks quota, writes per instance a
  build request, a request spec and an instance mapping with no cell (the
  server is then visible, from its build request), adds the instances to
  their server group, and casts ``schedule_and_build_instances`` to the
  super conductor;
* ``get`` / ``get_all`` read build requests and the cells (a
  scatter-gather with a per-cell timeout; cells that do not answer give
  minimal ``UNKNOWN`` records when the caller can show them, else they
  are skipped with a warning), merged in one order across cells;
* ``delete`` and the actions on an existing instance write the task state
  in the instance's cell database, then cast to its compute over the
  cell's bus (a build request or an instance that never got a host is
  deleted right here).
"""

import json
import re

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import uuidutils
from sqlalchemy import exc as sa_exc

from nova_lite.clients import placement as placement_client
from nova_lite.compute import api_delete
from nova_lite.compute import api_live
from nova_lite.compute import api_resize
from nova_lite.compute import api_shelve
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import server_list
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor import compute_task_rpcapi
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import build_api
from nova_lite.db.api import group_api
from nova_lite.db.cell import instance_api
from nova_lite import exception
from nova_lite import image_catalog
from nova_lite import objects

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

NETWORKS_WITHOUT_SERVICE = ('auto', 'none')
# What a cell database that does not answer raises.
_CELL_DOWN_ERRORS = (db_exc.DBError, sa_exc.SQLAlchemyError, ConnectionError,
                     TimeoutError, OSError)


# -- errors ------------------------------------------------------------------

class InstanceInvalidState(exception.Conflict):
    msg_fmt = ("Cannot '%(action)s' instance %(uuid)s while it is in "
               "%(attr)s %(state)s")


class InstanceIsLocked(exception.Conflict):
    msg_fmt = 'Instance %(uuid)s is locked'


class QuotaExceeded(exception.NovaLiteException):
    msg_fmt = ('Quota exceeded for %(resources)s: Requested %(req)s, but '
               'already used %(used)s of %(allowed)s %(resources)s')
    code = 403


class ImageNotFound(exception.Invalid):
    msg_fmt = 'Image %(image_id)s could not be found.'


class Forbidden(exception.NovaLiteException):
    msg_fmt = '%(reason)s'
    code = 403


class InvalidRequest(exception.Invalid):
    msg_fmt = '%(reason)s'


# -- image catalog ------------------------------------------------------------

def get_image(image_ref):
    """The catalog image ``image_ref`` (an id or a name)."""
    image = image_catalog.find(image_ref)
    if image is None:
        raise ImageNotFound(image_id=image_ref)
    return image


# -- availability zone with a forced host -------------------------------------

def parse_availability_zone(value):
    """(zone, host, node) from ``az``, ``az:host``, ``az:host:node``,
    ``az::node``; empty parts are None."""
    if not value:
        return None, None, None
    parts = value.split(':')
    if len(parts) > 3:
        raise InvalidRequest(reason='Invalid availability_zone %s: at most '
                             'zone:host:node' % value)
    parts += [None] * (3 - len(parts))
    return tuple(p or None for p in parts)


# -- the facade ---------------------------------------------------------------

class API(api_delete.DeleteAPIMixin, api_resize.ResizeAPIMixin,
          api_live.LiveAPIMixin, api_shelve.ShelveAPIMixin):
    """Server operations over the API DB, the cells and the RPC APIs.

    Move operations live in the mixins, one module per family.
    """

    def __init__(self, transport=None, placement=None):
        self.compute_task_api = compute_task_rpcapi.ComputeTaskAPI(
            transport=transport)
        self.compute_rpcapi = compute_rpcapi.ComputeAPI()
        self._placement = placement

    @property
    def placement(self):
        if self._placement is None:
            self._placement = placement_client.PlacementClient()
        return self._placement

    # -- create --------------------------------------------------------------

    def create(self, context, flavor, image_ref, name, min_count=1,
               max_count=None, availability_zone=None, scheduler_hints=None,
               key_name=None, metadata=None, description=None,
               networks=None, user_data=None, forced_allowed=False,
               hostname=None, requested_host=None, requested_node=None):
        """Accept servers; returns (list of Instance, reservation id).

        ``availability_zone`` may force a host (``zone:host[:node]``,
        admins: no filters, no reschedule); ``requested_host`` /
        ``requested_node`` (2.74) ask the scheduler for that host or node,
        through its filters.
        """
        max_count = max_count or min_count
        if min_count > max_count:
            raise InvalidRequest(reason='min_count must be <= max_count')
        image = get_image(image_ref) if image_ref else None
        self._check_networks(networks)
        zone, host, node = parse_availability_zone(availability_zone)
        if (host or node) and not forced_allowed:
            raise Forbidden(reason="Policy doesn't allow os_compute_api:"
                            "servers:create:forced_host to be performed.")
        self._check_zone(context, zone)
        destination = self._requested_destination(
            context, requested_host, requested_node)
        key_data = self._key_data(context, key_name)
        hints = self._normalise_hints(scheduler_hints or {})
        group = self._group_for(context, hints)
        count = self._check_quota(context, flavor, min_count, max_count)
        reservation_id = 'r-' + uuidutils.generate_uuid()[:8]
        build_requests, specs, instances = [], [], []
        for index in range(count):
            uuid = uuidutils.generate_uuid()
            values = self._instance_values(
                context, uuid, flavor, image, name, index, count,
                reservation_id, zone, key_name, key_data, metadata,
                description, user_data, hostname)
            spec = build_request_spec(
                context, uuid, flavor, image, count, zone, hints, group,
                force_hosts=[host] if host else [],
                force_nodes=[node] if node else [],
                requested_destination=destination)
            build_request = self._store(context, uuid, values, spec)
            build_requests.append(build_request)
            specs.append(spec)
            instances.append(server_list.instance_from_build_request(context,
                                                          build_request))
        if group is not None:
            group_api.instance_group_members_add(
                context, group.uuid, [i.uuid for i in instances])
        LOG.info('Accepted %d server(s) %s (reservation %s)', count,
                 ', '.join(i.uuid for i in instances), reservation_id)
        self.compute_task_api.schedule_and_build_instances(
            context, build_requests, specs, image=image,
            requested_networks=networks)
        return instances, reservation_id

    @staticmethod
    def _check_networks(networks):
        if networks is None or networks == [] or \
                networks in NETWORKS_WITHOUT_SERVICE:
            return
        raise InvalidRequest(
            reason='Invalid networks: nova_lite has no network service; '
                   'use "auto", "none" or [].')

    @staticmethod
    def _check_zone(context, zone):
        """400 unless ``zone`` is the default zone or an aggregate's."""
        if zone is None:
            return
        from nova_lite.conductor.tasks import common
        from nova_lite.db.api import aggregate_api
        known = set(aggregate_api.availability_zones_by_host(
            context).values())
        known.add(common.default_availability_zone())
        if zone not in known:
            raise InvalidRequest(reason='The requested availability zone '
                                 '%s is not available' % zone)

    @staticmethod
    def _key_data(context, key_name):
        if key_name is None:
            return None
        try:
            return group_api.key_pair_get(context, context.user_id,
                                          key_name).public_key
        except exception.KeypairNotFound:
            raise InvalidRequest(reason='Invalid key_name provided.')

    @staticmethod
    def _normalise_hints(hints):
        """Hints as lists of strings (``query`` stays one string)."""
        result = {}
        for key, value in hints.items():
            if value is None:
                continue
            values = value if isinstance(value, list) else [value]
            result[key] = [v if isinstance(v, str) else json.dumps(v)
                           for v in values]
        return result

    @staticmethod
    def _group_for(context, hints):
        group_uuid = (hints.get('group') or [None])[0]
        if group_uuid is None:
            return None
        try:
            group = group_api.instance_group_get(context, group_uuid)
        except exception.InstanceGroupNotFound:
            raise InvalidRequest(reason='Invalid server group %s: not found'
                                 % group_uuid)
        if not context.is_admin and group.project_id != context.project_id:
            raise InvalidRequest(reason='Invalid server group %s: not found'
                                 % group_uuid)
        return group

    @staticmethod
    def _check_quota(context, flavor, min_count, max_count):
        """How many of [min_count, max_count] fit the project's quota
        (the limits and usage os-quota-sets shows)."""
        from nova_lite.api import quota
        limits = quota.limits_for(context, context.project_id,
                                  context.user_id)
        used = quota.server_usage(context, context.project_id)
        per_instance = {'instances': 1, 'cores': flavor.vcpus,
                        'ram': flavor.memory_mb}
        count = max_count
        for resource, each in per_instance.items():
            limit = limits.get(resource, -1)
            if limit is None or limit < 0 or not each:
                continue
            fits = (limit - used[resource]) // each
            if fits < min_count:
                raise QuotaExceeded(resources=resource, req=each * min_count,
                                    used=used[resource], allowed=limit)
            count = min(count, fits)
        return count

    @staticmethod
    def _instance_values(context, uuid, flavor, image, name, index, count,
                         reservation_id, zone, key_name, key_data, metadata,
                         description, user_data, hostname):
        display_name = name
        if count > 1 and '%' not in name:
            display_name = '%s-%d' % (name, index + 1)
        flavor_dict = {k: flavor.get(k) for k in (
            'id', 'flavorid', 'name', 'vcpus', 'memory_mb', 'root_gb',
            'ephemeral_gb', 'swap', 'rxtx_factor', 'vcpu_weight',
            'is_public', 'description')}
        flavor_dict['extra_specs'] = dict(flavor.get('extra_specs') or {})
        # NOTE(nova_lite): Instance's dict fields refuse None values.
        flavor_dict = {k: v for k, v in flavor_dict.items() if v is not None}
        return {
            'uuid': uuid, 'user_id': context.user_id,
            'project_id': context.project_id,
            'image_ref': image['id'] if image else '',
            'hostname': hostname or re.sub(r'[^a-z0-9-]+', '-',
                                           display_name.lower()).strip('-')
            or 'server',
            'display_name': display_name,
            'display_description': description,
            'vm_state': vm_states.BUILDING,
            'task_state': task_states.SCHEDULING, 'power_state': 0,
            'memory_mb': flavor.memory_mb, 'vcpus': flavor.vcpus,
            'root_gb': flavor.root_gb, 'ephemeral_gb': flavor.ephemeral_gb,
            'instance_type_id': flavor.get('id'), 'flavor': flavor_dict,
            'reservation_id': reservation_id, 'launch_index': index,
            'availability_zone': zone, 'key_name': key_name,
            'key_data': key_data, 'user_data': user_data,
            'metadata': dict(metadata or {}), 'system_metadata': {},
            'locked': False,
        }

    @staticmethod
    def _requested_destination(context, host, node):
        """{'host', 'node'} after checking they exist; None if neither."""
        if not host and not node:
            return None
        if host:
            try:
                api_db.host_mapping_get_by_host(context, host)
            except exception.HostMappingNotFound:
                raise InvalidRequest(reason='Compute host %s could not be '
                                     'found.' % host)
        if node and not _node_exists(context, host, node):
            raise InvalidRequest(reason='Compute node %s could not be '
                                 'found.' % node)
        return {'host': host, 'node': node}

    @staticmethod
    def _store(context, uuid, values, spec):
        """Request spec, build request, mapping (the server now exists)."""
        spec.create()
        build_request = objects.BuildRequest(
            context, instance_uuid=uuid, project_id=context.project_id,
            instance=values, block_device_mappings=[], tags=[])
        build_request.create()
        objects.InstanceMapping(
            context, instance_uuid=uuid, project_id=context.project_id,
            user_id=context.user_id, cell_mapping=None).create()
        return build_request

    # -- reading --------------------------------------------------------------

    def get(self, context, uuid, with_fault=True):
        """The server ``uuid`` (InstanceNotFound)."""
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                                   uuid)
        except exception.InstanceMappingNotFound:
            raise exception.InstanceNotFound(instance_id=uuid)
        if mapping.cell_mapping is None:
            try:
                build_request = objects.BuildRequest.get_by_instance_uuid(
                    context, uuid)
                instance = server_list.instance_from_build_request(
                    context, build_request)
                return server_list.Server(instance, build_request=True)
            except exception.BuildRequestNotFound:
                # NOTE(nova_lite): the conductor mapped it meanwhile.
                mapping = objects.InstanceMapping.get_by_instance_uuid(
                    context, uuid)
                if mapping.cell_mapping is None:
                    raise exception.InstanceNotFound(instance_id=uuid)
        return self._get_in_cell(context, mapping, with_fault)

    def _get_in_cell(self, context, mapping, with_fault):
        cell = mapping.cell_mapping
        with nl_context.target_cell(context, cell) as cctxt:
            try:
                instance = objects.Instance.get_by_uuid(
                    cctxt, mapping.instance_uuid)
            except _CELL_DOWN_ERRORS as exc:
                LOG.warning('Cell %s did not answer for instance %s: %s',
                            cell.identity, mapping.instance_uuid, exc)
                return server_list.down_server(context, mapping)
            fault = None
            if with_fault and instance.vm_state in (vm_states.ERROR,
                                                    vm_states.DELETED):
                fault = objects.InstanceFault.get_latest_for_instance(
                    cctxt, instance.uuid)
        return server_list.Server(instance, cell=cell, fault=fault)

    @staticmethod
    def get_all(context, filters=None, limit=None, marker=None,
                want_down_cells=False, cell_timeout=None, sort=None):
        """Servers matching ``filters``, newest first, across cells.

        See :func:`nova_lite.compute.server_list.get_all`.
        """
        return server_list.get_all(context, filters, limit, marker,
                                   want_down_cells, cell_timeout, sort)

    # -- update and actions ---------------------------------------------------

    def update(self, context, server, values):
        """Rename or re-describe a server (``display_name``...)."""
        if server.build_request:
            build_request = objects.BuildRequest.get_by_instance_uuid(
                context, server.uuid)
            instance_values = dict(build_request.instance)
            instance_values.update(values)
            build_api.build_request_update(context, server.uuid,
                                           {'instance': instance_values})
            return self.get(context, server.uuid)
        with nl_context.target_cell(context, server.cell) as cctxt:
            instance_api.instance_update(cctxt, server.uuid, values)
        return self.get(context, server.uuid)

    def _check_not_locked(self, context, instance):
        if instance.locked and not context.is_admin:
            raise InstanceIsLocked(uuid=instance.uuid)

    def _instance_for(self, context, server, action, allowed_vm_states,
                      check_lock=True):
        """The server's instance if ``action`` may start on it: in a cell,
        not locked (but for admins), in one of ``allowed_vm_states`` and
        with no task in progress; 409 otherwise."""
        if server.build_request or server.cell is None:
            raise InstanceInvalidState(action=action, uuid=server.uuid,
                                       attr='vm_state', state='building')
        instance = server.instance
        if check_lock:
            self._check_not_locked(context, instance)
        if instance.vm_state not in allowed_vm_states:
            raise InstanceInvalidState(action=action, uuid=instance.uuid,
                                       attr='vm_state',
                                       state=instance.vm_state)
        if instance.task_state is not None:
            raise InstanceInvalidState(action=action, uuid=instance.uuid,
                                       attr='task_state',
                                       state=instance.task_state)
        return instance

    def _act(self, context, server, action, allowed_vm_states, task_state,
             rpc_method, check_lock=True, **rpc_kwargs):
        """Write the task state in the cell, record, cast to the compute."""
        instance = self._instance_for(context, server, action,
                                      allowed_vm_states, check_lock)
        with nl_context.target_cell(context, server.cell) as cctxt:
            instance._context = cctxt
            instance.task_state = task_state
            try:
                instance.save(expected_task_state=[None])
            except exception.UnexpectedTaskStateError as exc:
                raise InstanceInvalidState(action=action, uuid=instance.uuid,
                                           attr='task_state',
                                           state=exc.kwargs.get('actual'))
            objects.InstanceAction.action_start(cctxt, instance.uuid, action)
            LOG.info('%s of instance %s on %s requested', action,
                     instance.uuid, instance.host)
            getattr(self.compute_rpcapi, rpc_method)(cctxt, instance,
                                                     **rpc_kwargs)

    def stop(self, context, server):
        self._act(context, server, 'stop',
                  (vm_states.ACTIVE, vm_states.ERROR),
                  task_states.POWERING_OFF, 'stop_instance')

    def start(self, context, server):
        self._act(context, server, 'start', (vm_states.STOPPED,),
                  task_states.POWERING_ON, 'start_instance')

    def reboot(self, context, server, reboot_type):
        hard = reboot_type == 'HARD'
        allowed = (vm_states.ACTIVE, vm_states.STOPPED, vm_states.PAUSED,
                   vm_states.SUSPENDED, vm_states.ERROR) if hard else (
            vm_states.ACTIVE,)
        self._act(context, server, 'reboot', allowed,
                  task_states.REBOOTING_HARD if hard
                  else task_states.REBOOTING, 'reboot_instance',
                  reboot_type=reboot_type)

    def pause(self, context, server):
        self._act(context, server, 'pause', (vm_states.ACTIVE,),
                  task_states.PAUSING, 'pause_instance')

    def unpause(self, context, server):
        self._act(context, server, 'unpause', (vm_states.PAUSED,),
                  task_states.UNPAUSING, 'unpause_instance')

    def suspend(self, context, server):
        self._act(context, server, 'suspend', (vm_states.ACTIVE,),
                  task_states.SUSPENDING, 'suspend_instance')

    def resume(self, context, server):
        self._act(context, server, 'resume', (vm_states.SUSPENDED,),
                  task_states.RESUMING, 'resume_instance')

    def lock(self, context, server, reason=None):
        """Lock (admins and the owner may still act; others may not)."""
        self._set_lock(context, server, True, reason)

    def unlock(self, context, server):
        instance = server.instance
        if instance.locked and instance.locked_by == 'admin' and \
                not context.is_admin:
            raise Forbidden(reason="Policy doesn't allow unlocking a server "
                            "an admin locked.")
        self._set_lock(context, server, False, None)

    def _set_lock(self, context, server, locked, reason):
        if server.build_request or server.cell is None:
            raise InstanceInvalidState(
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
        with nl_context.target_cell(context, server.cell) as cctxt:
            instance_api.instance_update(cctxt, server.uuid, values)
            objects.InstanceAction.action_start(
                cctxt, server.uuid, 'lock' if locked else 'unlock')
        LOG.info('Instance %s %s', server.uuid,
                 'locked' if locked else 'unlocked')


def _node_exists(context, host, node):
    """Whether a compute node named ``node`` (of ``host``) exists."""
    from nova_lite.db.cell import api as cell_db
    for cell in objects.CellMappingList.get_all(context).objects:
        if cell.is_cell0:
            continue
        with nl_context.target_cell(context, cell) as cctxt:
            for compute_node in cell_db.compute_node_get_all(cctxt):
                if compute_node.hypervisor_hostname == node and (
                        not host or compute_node.host == host):
                    return True
    return False


def build_request_spec(context, uuid, flavor, image, count, zone, hints,
                       group, force_hosts=(), force_nodes=(),
                       requested_destination=None):
    """The RequestSpec object of a new instance."""
    group_values = None
    if group is not None:
        policy, rules = group_api.instance_group_policy(group)
        group_values = {'uuid': group.uuid, 'policy': policy,
                        'rules': rules or {},
                        'members': list(group.members) + [uuid]}
    image_meta = None
    if image is not None:
        image_meta = {'id': image['id'],
                      'disk_format': image.get('disk_format'),
                      'properties': image.get('properties') or {}}
    return objects.RequestSpec.from_components(
        context, flavor, image=image_meta, num_instances=count,
        project_id=context.project_id, user_id=context.user_id,
        instance_uuid=uuid, availability_zone=zone, scheduler_hints=hints,
        instance_group=group_values, force_hosts=list(force_hosts),
        force_nodes=list(force_nodes),
        requested_destination=requested_destination)
