"""Nova's notifications, sent through oslo.messaging's Notifier.

Who sends what is Nova's: the compute sends its instances' actions
(``instance.create.start`` ...) as ``nova-compute:<host>``, the API sends
``service.update`` (published as the service itself, e.g.
``nova-compute:host1``), flavor, keypair, aggregate and server group events
as ``nova-api:<host>``, the scheduler ``scheduler.select_destinations.*``
as ``nova-scheduler:<host>``, the conductors ``compute_task.*.error`` as
``nova-conductor:<host>``. doc/notifications.md lists every event type
and whether nova_lite sends it.

Configuration (:mod:`nova_lite.conf.notifications`):
``[notifications] notification_format`` chooses versioned, unversioned,
both or none; nothing is sent unless ``[oslo_messaging_notifications]
driver`` names a driver (``messagingv2``). The payload is only built when
a notifier would send it, so a lab without notifications pays nothing.

A notification never fails the operation that sends it: an error while
building or sending one is logged and dropped, as oslo.messaging's
Notifier does with its drivers' errors.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import conf as nl_conf
from nova_lite.notifications import payloads
from nova_lite import rpc

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

API = 'nova-api'
COMPUTE = 'nova-compute'
CONDUCTOR = 'nova-conductor'
SCHEDULER = 'nova-scheduler'

INFO = 'info'
ERROR = 'error'


def _notifiers():
    if CONF.notifications.notification_format == 'none':
        return None, None
    versioned, legacy = rpc.get_notifiers()
    return (versioned if versioned.is_enabled() else None,
            legacy if legacy.is_enabled() else None)


def versioned_enabled():
    """Whether a versioned notification would be sent at all."""
    try:
        return _notifiers()[0] is not None
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notifications disabled: %s', error)
        return False


def _event_type(obj, action, phase=None):
    return '%s.%s.%s' % (obj, action, phase) if phase else '%s.%s' % (
        obj, action)


def emit(context, event_type, payload, source, host, priority=INFO):
    """Send ``payload`` (a :mod:`~nova_lite.notifications.payloads`
    object) as ``event_type`` from ``source:host``."""
    notifier = _notifiers()[0]
    if notifier is None:
        return
    publisher_id = '%s:%s' % (source, host)
    try:
        primitive = payload.obj_to_primitive()
        getattr(notifier.prepare(publisher_id=publisher_id), priority)(
            context, event_type, primitive)
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notification %s from %s not sent: %s', event_type,
                    publisher_id, error)
        return
    LOG.debug('Notification %s sent from %s', event_type, publisher_id)


def _legacy(context, event_type, instance, host, priority):
    """The unversioned instance notification Nova sends beside the
    versioned one (``compute.instance.<action>.<phase>``)."""
    legacy = _notifiers()[1]
    if legacy is None:
        return
    info = {
        'tenant_id': instance.project_id, 'user_id': instance.user_id,
        'instance_id': instance.uuid, 'display_name': instance.display_name,
        'reservation_id': instance.reservation_id,
        'hostname': instance.hostname, 'host': instance.host,
        'node': instance.node, 'availability_zone':
            instance.availability_zone,
        'state': instance.vm_state, 'new_task_state': instance.task_state,
        'image_ref_url': instance.image_ref,
        'memory_mb': instance.flavor_value('memory_mb'),
        'vcpus': instance.flavor_value('vcpus'),
        'root_gb': instance.flavor_value('root_gb'),
        'instance_type': (instance.flavor or {}).get('name'),
        'launched_at': _iso(instance.launched_at),
        'created_at': _iso(instance.created_at),
    }
    try:
        getattr(legacy.prepare(publisher_id='compute.%s' % host), priority)(
            context, 'compute.' + event_type, info)
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notification compute.%s not sent: %s', event_type,
                    error)


def _iso(value):
    return value.isoformat() if isinstance(value, datetime.datetime) else (
        value)


def instance_action(context, instance, host, action, phase=None,
                    fault=None, source=COMPUTE,
                    payload_cls=payloads.InstanceActionPayload, **extra):
    """``instance.<action>[.<phase>]`` with an InstanceActionPayload (or
    ``payload_cls``, given its own fields in ``extra``); ERROR priority
    when ``fault`` (an exception) is given."""
    event_type = _event_type('instance', action, phase)
    priority = ERROR if fault is not None else INFO
    _legacy(context, event_type, instance, host, priority)
    if not versioned_enabled():
        return
    try:
        payload = payload_cls.build(
            context, instance,
            fault=(payloads.ExceptionPayload.from_exception(fault)
                   if fault is not None else None), **extra)
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notification %s of %s not built: %s', event_type,
                    instance.uuid, error)
        return
    emit(context, event_type, payload, source, host, priority)


def instance_create(context, instance, host, phase, fault=None,
                    keypairs=()):
    """``instance.create.start/end/error`` (InstanceCreatePayload)."""
    instance_action(
        context, instance, host, 'create', phase, fault=fault,
        payload_cls=payloads.InstanceCreatePayload,
        keypairs=[payloads.KeypairPayload.from_keypair(k) for k in keypairs],
        tags=[], trusted_image_certificates=None,
        instance_name='instance-%08x' % (instance.id or 0))


def instance_resize_prep(context, instance, host, phase, new_flavor):
    """``instance.resize_prep.start/end`` (the new flavor beside)."""
    instance_action(
        context, instance, host, 'resize_prep', phase,
        payload_cls=payloads.InstanceActionResizePrepPayload,
        new_flavor=payloads.FlavorPayload.from_flavor(new_flavor))


def instance_exists(context, instance, host, period=None):
    """``instance.exists``: an instance's usage over ``period`` (begin,
    end), by default the current audit period (the month so far), as
    Nova reports it before a resize or a revert and in its usage audit."""
    if not versioned_enabled():
        return
    if period is None:
        now = timeutils.utcnow()
        period = (now.replace(day=1, hour=0, minute=0, second=0,
                              microsecond=0), now)
    try:
        payload = payloads.InstanceExistsPayload.build(
            context, instance, audit_period=payloads.AuditPeriodPayload(
                audit_period_beginning=period[0],
                audit_period_ending=period[1]))
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notification instance.exists of %s not built: %s',
                    instance.uuid, error)
        return
    emit(context, 'instance.exists', payload, COMPUTE, host)


def instance_update(context, instance, host, old_vm_state, old_task_state,
                    source=COMPUTE):
    """``instance.update`` when ``[notifications] notify_on_state_change``
    asks for this change (vm state, or vm and task state)."""
    mode = CONF.notifications.notify_on_state_change
    vm_changed = old_vm_state != instance.vm_state
    task_changed = old_task_state != instance.task_state
    if not mode or not (vm_changed or (
            mode == 'vm_and_task_state' and task_changed)):
        return
    if not versioned_enabled():
        return
    now = timeutils.utcnow()
    begin = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    try:
        payload = payloads.InstanceUpdatePayload.build(
            context, instance,
            state_update=payloads.InstanceStateUpdatePayload(
                old_state=old_vm_state, state=instance.vm_state,
                old_task_state=old_task_state,
                new_task_state=instance.task_state),
            audit_period=payloads.AuditPeriodPayload(
                audit_period_beginning=begin, audit_period_ending=now),
            old_display_name=None, tags=[])
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notification instance.update of %s not built: %s',
                    instance.uuid, error)
        return
    emit(context, 'instance.update', payload, source, host)


def service(context, action, record, availability_zone=None):
    """``service.<action>`` (create, update, delete), published as the
    service itself (``nova-compute:<its host>``), as Nova does."""
    if not versioned_enabled():
        return
    try:
        payload = payloads.ServiceStatusPayload.from_service(
            record, availability_zone)
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notification service.%s of %s not built: %s', action,
                    record.host, error)
        return
    emit(context, 'service.%s' % action, payload,
         payloads.nova_binary(record.binary), record.host)


def compute_exception(context, error, host):
    """``compute.exception``: an error the compute met, ERROR priority."""
    if not versioned_enabled():
        return
    emit(context, 'compute.exception',
         payloads.ExceptionPayload.from_exception(error), COMPUTE, host,
         ERROR)


def send(context, event_type, build, source, host, priority=INFO):
    """``build()``'s payload as ``event_type``; ``build`` is only called
    when the notification would be sent (and its failure is logged, never
    raised)."""
    if not versioned_enabled():
        return
    try:
        payload = build()
    except Exception as error:  # noqa: BLE001 - never fail the caller
        LOG.warning('Notification %s not built: %s', event_type, error)
        return
    emit(context, event_type, payload, source, host, priority)


def scheduler_select_destinations(context, request_spec, phase, host):
    """``scheduler.select_destinations.start/end`` (RequestSpecPayload)."""
    send(context, 'scheduler.select_destinations.%s' % phase,
         lambda: payloads.RequestSpecPayload.from_request_spec(
             request_spec), SCHEDULER, host)


def compute_task_error(context, action, instance_uuid, request_spec, error,
                       host, state='error'):
    """``compute_task.<action>.error``: a conductor task that failed an
    instance (``build_instances`` when no host was left)."""
    send(context, 'compute_task.%s.error' % action,
         lambda: payloads.ComputeTaskPayload(
             instance_uuid=instance_uuid,
             reason=payloads.ExceptionPayload.from_exception(error),
             request_spec=payloads.RequestSpecPayload.from_request_spec(
                 request_spec),
             state=state), CONDUCTOR, host, ERROR)


def aggregate(context, action, phase, record, host):
    """``aggregate.<action>.<phase>`` from the API."""
    send(context, 'aggregate.%s.%s' % (action, phase),
         lambda: payloads.AggregatePayload(
             id=record.id, uuid=record.uuid, name=record.name,
             hosts=list(record.hosts or []),
             metadata=payloads._strings(record.metadata)), API, host)


def flavor(context, action, record, host, projects=None):
    """``flavor.<action>`` (create, update, delete) from the API."""
    send(context, 'flavor.%s' % action,
         lambda: payloads.FlavorPayload.from_flavor(record,
                                                    projects=projects),
         API, host)


def keypair(context, action, phase, record, host):
    """``keypair.<action>.<phase>`` (create, import, delete) from the API;
    ``record`` has user_id, name, fingerprint, public_key, type."""
    send(context, 'keypair.%s.%s' % (action, phase),
         lambda: payloads.KeypairPayload.from_keypair(record), API, host)


def server_group(context, action, group, host):
    """``server_group.<action>`` (create, delete, add_member)."""
    send(context, 'server_group.%s' % action,
         lambda: payloads.ServerGroupPayload.from_group(group), API, host)
