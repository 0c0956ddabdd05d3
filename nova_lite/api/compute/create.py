"""Creating servers: accepted here, scheduled and built by the conductor.

``create`` validates the request, checks quota, writes per instance a
build request, a request spec and an instance mapping with no cell (the
server is then visible, from its build request), adds the instances to
their server group, and casts ``schedule_and_build_instances`` to the
super conductor. When the bus cannot be reached within ``[api]
build_cast_retries`` retries, or within ``[api] build_cast_timeout``
seconds, everything stored is withdrawn and the request fails with 503: a
server nobody will build must not appear.
"""

import collections
import json
import re
import threading
import time

import kombu.exceptions
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite.api.compute import checks
from nova_lite.api.compute import server_list
from nova_lite.api import quota
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.network import interface as net_compute
from nova_lite import notifications
from nova_lite import objects
from nova_lite.objects import db_transaction
from nova_lite.objects import instance_group as group_obj

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# What a cast raises when the bus cannot be reached (measured: kombu's
# OperationalError after 2 retries against a closed port, in 4.0 s).
_BUS_DOWN = (messaging.MessagingException, kombu.exceptions.KombuError,
             ConnectionError, OSError)


def _allocate_ports(context, uuids, zone, requests, security_groups):
    """A port per requested network for each new server (all or
    none)."""
    if not requests:
        return
    done = []
    try:
        for uuid in uuids:
            net_compute.allocate(context, uuid, context.project_id, zone,
                                 requests, security_groups)
            done.append(uuid)
    except Exception:
        for uuid in done:
            net_compute.deallocate(context, uuid)
        raise


class CreateAPI:
    """Accepts new servers and hands them to the super conductor
    (``compute_task_api``)."""

    def __init__(self, compute_task_api):
        self.compute_task_api = compute_task_api

    def create(self, context, flavor, image_ref, name, min_count=1,
               max_count=None, availability_zone=None, scheduler_hints=None,
               key_name=None, metadata=None, description=None,
               networks=None, user_data=None, forced_allowed=False,
               hostname=None, requested_host=None, requested_node=None,
               system_metadata=None, tags=None, security_groups=None,
               config_drive=None, auto_disk_config=None):
        """Accept servers; returns (list of Instance, reservation id).

        ``system_metadata``: items the new servers' system metadata
        starts with (the access addresses and trusted certificates the
        owner gave, see :mod:`nova_lite.api.views.servers`).

        ``availability_zone`` may force a host (``zone:host[:node]``,
        admins: no filters, no reschedule); ``requested_host`` /
        ``requested_node`` (2.74) ask the scheduler for that host or node,
        through its filters. ``tags`` (2.52): the servers' tags.
        ``config_drive``: the request's value; ``auto_disk_config``: True
        for ``OS-DCF:diskConfig`` ``AUTO``, False for ``MANUAL``, None to
        take the image's (see :func:`.checks.auto_disk_config`).
        """
        max_count = max_count or min_count
        if min_count > max_count:
            raise exception.InvalidRequest(
                reason='min_count must be <= max_count')
        image = checks.get_image(image_ref, context) if image_ref else None
        if image is not None:
            checks.check_flavor_fits_image(flavor.memory_mb, flavor.root_gb,
                                           image)
        options = {'config_drive': checks.config_drive(config_drive),
                   'auto_disk_config': checks.auto_disk_config(
                       image, auto_disk_config)}
        quota.check_metadata_items(context, metadata)
        # NOTE(nova_lite): outside the reads below: listing security
        # groups makes the project's default group on first use.
        requests = net_compute.resolve(context, networks)
        # NOTE(nova_lite): as Nova, the groups are checked whatever the
        # networks (none too): an unknown one is a 400 before anything
        # is written.
        net_compute.check_security_groups(context, security_groups)
        checked = server_list.reading(
            context, _check, context, flavor, min_count, max_count,
            availability_zone, scheduler_hints, key_name, forced_allowed,
            requested_host, requested_node)
        group, count = checked.group, checked.count
        _bus_breaker.check()
        reservation_id = 'r-' + uuidutils.generate_uuid()[:8]
        build_requests, specs = [], []
        uuids = [uuidutils.generate_uuid() for _ in range(count)]
        _allocate_ports(context, uuids, checked.zone, requests,
                        security_groups)
        for index, uuid in enumerate(uuids):
            values = _instance_values(
                context, uuid, flavor, image, name, index, count,
                reservation_id, checked.zone, key_name, checked.key_data,
                metadata, description, user_data, hostname)
            values.update(options)
            values['system_metadata'].update(system_metadata or {})
            if tags:
                values['extra'] = {'tags': list(dict.fromkeys(tags))}
            specs.append(build_request_spec(
                context, uuid, flavor, image, count, checked.zone,
                checked.hints, group,
                force_hosts=[checked.host] if checked.host else [],
                force_nodes=[checked.node] if checked.node else [],
                requested_destination=checked.destination))
            build_requests.append(_build_request(context, uuid, values))
        try:
            _store_all(context, build_requests, specs, group)
        except Exception:
            if requests:
                for uuid in uuids:
                    net_compute.deallocate(context, uuid)
            raise
        instances = [server_list.instance_from_build_request(context, br)
                     for br in build_requests]
        LOG.info('Accepted %d server(s) %s (reservation %s)', count,
                 ', '.join(i.uuid for i in instances), reservation_id)
        if group is not None:
            _notify_members(context, group)
        self._cast(context, build_requests, specs, image, networks, group)
        return instances, reservation_id

    def _cast(self, context, build_requests, specs, image, networks, group):
        """Hand the builds to the super conductor."""
        try:
            _within(CONF.api.build_cast_timeout,
                    self.compute_task_api.schedule_and_build_instances,
                    context, build_requests, specs, image=image,
                    requested_networks=networks,
                    retry=CONF.api.build_cast_retries)
        except _BUS_DOWN as error:
            # NOTE(nova_lite): past its retries oslo.messaging raises
            # MessageDeliveryFailure, or kombu's OperationalError when it
            # could not even connect; either way nobody will build these.
            LOG.error('Servers %s not handed to the conductor, withdrawn: '
                      '%s', ', '.join(br.instance_uuid
                                      for br in build_requests), error)
            _withdraw(context, build_requests, group)
            _bus_breaker.trip()
            raise exception.ServiceUnavailable(
                reason='the message bus cannot be reached, retry later')


class _BusBreaker:
    """After a create whose cast failed, the next creates of this
    process answer 503 at once for :data:`BREAKER_SECONDS` instead of
    each holding a worker thread through the same retries: in an outage
    the queued requests (GETs among them) are answered in time."""

    def __init__(self):
        self._until = 0.0

    def trip(self):
        self._until = time.monotonic() + BREAKER_SECONDS

    def check(self):
        if time.monotonic() < self._until:
            raise exception.ServiceUnavailable(
                reason='the message bus cannot be reached, retry later')


# Seconds during which creates answer 503 without trying the bus after a
# failed cast.
BREAKER_SECONDS = 5.0
_bus_breaker = _BusBreaker()


class CastTimeout(messaging.MessageDeliveryFailure):
    """The cast did not return within ``[api] build_cast_timeout``."""


def _within(timeout, func, *args, **kwargs):
    """``func(*args, **kwargs)`` in a thread, waited for ``timeout``
    seconds at most (:class:`CastTimeout` then; the thread goes on, its
    retries bounded)."""
    outcome = {}

    def run():
        try:
            outcome['result'] = func(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - re-raised below
            outcome['error'] = error
    thread = threading.Thread(target=run, name='create-cast', daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise CastTimeout('the cast did not get through within %ss'
                          % timeout)
    if 'error' in outcome:
        raise outcome['error']
    return outcome.get('result')


def _withdraw(context, build_requests, group):
    """Undo :func:`_store_all` (in one transaction) and the ports for a
    create whose cast failed."""
    _withdraw_rows(context, build_requests, group)
    for build_request in build_requests:
        net_compute.deallocate(context, build_request.instance_uuid)


@db_transaction.retry_on_transient
def _withdraw_rows(context, build_requests, group):
    with db_transaction.api_writing(context):
        for build_request in build_requests:
            uuid = build_request.instance_uuid
            _ignore_missing(build_request.destroy)
            _ignore_missing(lambda uuid=uuid: objects.InstanceMapping
                            .get_by_instance_uuid(context, uuid).destroy())
            _ignore_missing(objects.RequestSpec.destroy, context, uuid)
            if group is not None:
                group_obj.InstanceGroup.delete_member(context, uuid)


def _ignore_missing(func, *args):
    try:
        func(*args)
    except exception.NotFound:
        pass


_Checked = collections.namedtuple('_Checked', (
    'zone', 'host', 'node', 'destination', 'key_data', 'hints', 'group',
    'count'))


def _check(context, flavor, min_count, max_count, availability_zone,
           scheduler_hints, key_name, forced_allowed, requested_host,
           requested_node):
    """The rest of a create's checks and its quota, reads only (400, 403
    as Nova): where, which key and group, how many servers fit."""
    zone, host, node = checks.parse_availability_zone(availability_zone)
    if (host or node) and not forced_allowed:
        raise exception.Forbidden(
            reason="Policy doesn't allow os_compute_api:servers:create:"
                   "forced_host to be performed.")
    checks.check_zone(context, zone)
    destination = _requested_destination(context, requested_host,
                                         requested_node)
    key_data = checks.key_data(context, key_name)
    hints = _normalise_hints(scheduler_hints or {})
    group = _group_for(context, hints)
    count = _check_quota(context, flavor, min_count, max_count)
    return _Checked(zone, host, node, destination, key_data, hints, group,
                    count)


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


def _group_for(context, hints):
    group_uuid = (hints.get('group') or [None])[0]
    if group_uuid is None:
        return None
    try:
        group = group_obj.InstanceGroup.get_by_uuid(context, group_uuid)
    except exception.InstanceGroupNotFound:
        raise exception.InvalidRequest(
            reason='Invalid server group %s: not found' % group_uuid)
    if not context.is_admin and group.project_id != context.project_id:
        raise exception.InvalidRequest(
            reason='Invalid server group %s: not found' % group_uuid)
    return group


def _check_quota(context, flavor, min_count, max_count):
    """How many of [min_count, max_count] fit the project's quota
    (the limits and usage os-quota-sets shows)."""
    limits = quota.limits_for(context, context.project_id, context.user_id)
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
            raise exception.QuotaExceeded(
                resources=resource, req=each * min_count,
                used=used[resource], allowed=limit)
        count = min(count, fits)
    return count


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


def _requested_destination(context, host, node):
    """{'host', 'node'} after checking they exist; None if neither."""
    if not host and not node:
        return None
    if host:
        checks.check_host(context, host)
    if node and not checks.node_exists(context, host, node):
        raise exception.InvalidRequest(
            reason='Compute node %s could not be found.' % node)
    return {'host': host, 'node': node}


def _build_request(context, uuid, values):
    return objects.BuildRequest(
        context, instance_uuid=uuid, project_id=context.project_id,
        instance=values, block_device_mappings=[],
        tags=values.get('extra', {}).get('tags') or [])


@db_transaction.retry_on_transient
def _store_all(context, build_requests, specs, group):
    """Per server its request spec, build request and mapping with no
    cell (the servers now exist), and the group's new members: in one
    transaction, so a failure leaves none of them behind.

    A lost connection (a MariaDB restart) can fail the transaction after
    some build requests took their row's id and times, and
    ``retry_on_transient`` then runs this again on the same objects:
    each attempt first forgets what the rolled-back one gave them (their
    ``id`` is read-only once set).

    The lost connection may also have come after the COMMIT went through
    (a Galera node or the proxy in front going away while it answered):
    the retry then meets the rows of the earlier attempt (a conflict on
    the request specs' key), which it takes as stored, not as a failed
    create whose servers would stay in BUILD with no build cast.
    """
    for build_request in build_requests:
        _forget_stored(build_request)
    try:
        _insert_all(context, build_requests, specs, group)
    except exception.Conflict:
        if not (db_transaction.after_lost_connection() and
                _stored_earlier(context, build_requests)):
            raise
        LOG.info('Build requests of %s were stored by an attempt whose '
                 'connection was lost after its COMMIT',
                 ', '.join(br.instance_uuid for br in build_requests))


def _stored_earlier(context, build_requests):
    """True when every one of ``build_requests`` is stored (one
    transaction stored them all or none); they then take the stored
    rows' ids and times."""
    stored = []
    for build_request in build_requests:
        try:
            stored.append(objects.BuildRequest.get_by_instance_uuid(
                context, build_request.instance_uuid))
        except exception.BuildRequestNotFound:
            return False
    for build_request, row in zip(build_requests, stored, strict=True):
        for name in ('id', 'created_at', 'updated_at'):
            if row.obj_attr_is_set(name):
                setattr(build_request, name, getattr(row, name))
        build_request.obj_reset_changes()
    return True


def _insert_all(context, build_requests, specs, group):
    with db_transaction.api_writing(context):
        # The specs and mappings are not read back (one INSERT each); the
        # build requests are, for their ids and times.
        objects.RequestSpec.create_all(context, specs)
        for build_request in build_requests:
            build_request.create()
        objects.InstanceMapping.create_all(context, [
            objects.InstanceMapping(
                context, instance_uuid=build_request.instance_uuid,
                project_id=context.project_id, user_id=context.user_id,
                cell_mapping=None) for build_request in build_requests])
        if group is not None:
            group_obj.InstanceGroup.add_members(
                context, group.uuid,
                [br.instance_uuid for br in build_requests])


def _notify_members(context, group):
    """``server_group.add_member``, as Nova's API sends it: the group
    with its members now."""
    def build():
        current = group_obj.InstanceGroup.get_by_uuid(context, group.uuid)
        return notifications.payloads.ServerGroupPayload.from_group(current)
    notifications.send(context, 'server_group.add_member', build,
                       notifications.API, CONF.host)


def _forget_stored(build_request):
    for name in ('id', 'created_at', 'updated_at'):
        if build_request.obj_attr_is_set(name):
            delattr(build_request, name)


def build_request_spec(context, uuid, flavor, image, count, zone, hints,
                       group, force_hosts=(), force_nodes=(),
                       requested_destination=None):
    """The RequestSpec object of a new instance."""
    group_values = None
    if group is not None:
        group_values = {'uuid': group.uuid, 'policy': group.policy,
                        'rules': group.rules or {},
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
