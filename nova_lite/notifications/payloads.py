"""Payloads of the versioned notifications, as Nova defines them.

Each class carries Nova's object name, version and fields, so a payload
reads on the wire exactly as Nova's does: ``nova_object.name``,
``nova_object.namespace`` (``nova``), ``nova_object.version`` and
``nova_object.data``. They are built from nova_lite's own records (an
:class:`~nova_lite.objects.instance.Instance`, a service, a flavor dict)
and never cross RPC as objects: only their primitives are sent.

Every field of a payload is set (to None where nova_lite has no value,
e.g. ``os_type``), because an unset field would be missing from the
primitive, and a consumer written for Nova reads every key.
"""

import traceback

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from nova_lite.virt import power_state

_REGISTER = ovo_base.VersionedObjectRegistry.register_if(False)


class Payload(ovo_base.VersionedObject):
    """Base of every payload: Nova's namespaces, all fields set."""

    OBJ_SERIAL_NAMESPACE = 'nova_object'
    OBJ_PROJECT_NAMESPACE = 'nova'
    VERSION = '1.0'
    fields = {}

    def __init__(self, **values):
        super().__init__()
        for name, value in values.items():
            setattr(self, name, value)
        missing = set(self.fields) - set(values)
        if missing:
            raise TypeError('%s: fields not set: %s'
                            % (self.obj_name(), ', '.join(sorted(missing))))


def _strings(values):
    return {str(k): '' if v is None else str(v)
            for k, v in (values or {}).items()}


@_REGISTER
class FlavorPayload(Payload):
    VERSION = '1.4'
    fields = {
        'flavorid': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'vcpus': fields.IntegerField(nullable=True),
        'root_gb': fields.IntegerField(nullable=True),
        'ephemeral_gb': fields.IntegerField(nullable=True),
        'name': fields.StringField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(nullable=True),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'disabled': fields.BooleanField(),
        'is_public': fields.BooleanField(),
        'extra_specs': fields.DictOfStringsField(nullable=True),
        'projects': fields.ListOfStringsField(nullable=True),
        'description': fields.StringField(nullable=True),
    }

    @classmethod
    def from_flavor(cls, flavor, projects=None):
        """From a flavor object or the dict an instance keeps."""
        if isinstance(flavor, dict):
            get = flavor.get
        else:
            def get(key, default=None):
                if key in flavor.fields and flavor.obj_attr_is_set(key):
                    return getattr(flavor, key)
                return default
        swap = get('swap') or 0
        return cls(
            flavorid=_str_or_none(get('flavorid')),
            memory_mb=get('memory_mb'), vcpus=get('vcpus'),
            root_gb=get('root_gb'), ephemeral_gb=get('ephemeral_gb'),
            name=get('name') or '', swap=int(swap),
            rxtx_factor=float(get('rxtx_factor', 1.0) or 1.0),
            vcpu_weight=get('vcpu_weight'),
            disabled=bool(get('disabled', False)),
            is_public=bool(get('is_public', True)),
            extra_specs=_strings(get('extra_specs')),
            projects=projects, description=get('description'))


def _str_or_none(value):
    return None if value is None else str(value)


@_REGISTER
class IpPayload(Payload):
    VERSION = '1.0'
    fields = {
        'label': fields.StringField(),
        'mac': fields.StringField(),
        'meta': fields.DictOfStringsField(),
        'port_uuid': fields.StringField(nullable=True),
        'version': fields.IntegerField(),
        'address': fields.StringField(),
        'device_name': fields.StringField(nullable=True),
    }


@_REGISTER
class BlockDevicePayload(Payload):
    VERSION = '1.0'
    fields = {
        'device_name': fields.StringField(nullable=True),
        'boot_index': fields.IntegerField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'volume_id': fields.StringField(),
        'tag': fields.StringField(nullable=True),
    }


@_REGISTER
class KeypairPayload(Payload):
    VERSION = '1.0'
    fields = {
        'user_id': fields.StringField(nullable=True),
        'name': fields.StringField(nullable=False),
        'fingerprint': fields.StringField(nullable=True),
        'public_key': fields.StringField(nullable=True),
        'type': fields.StringField(nullable=False),
    }

    @classmethod
    def from_keypair(cls, keypair):
        return cls(user_id=keypair.user_id, name=keypair.name,
                   fingerprint=keypair.fingerprint,
                   public_key=keypair.public_key,
                   type=getattr(keypair, 'type', None) or 'ssh')


@_REGISTER
class ExceptionPayload(Payload):
    VERSION = '1.1'
    fields = {
        'module_name': fields.StringField(),
        'function_name': fields.StringField(),
        'exception': fields.StringField(),
        'exception_message': fields.StringField(),
        'traceback': fields.StringField(),
    }

    @classmethod
    def from_exception(cls, error):
        """Where ``error`` was raised (its innermost frame), what it says."""
        tb = error.__traceback__
        # NOTE(nova_lite): an error made but not raised (a reason built
        # for a fault) says where its class lives.
        module_name, function_name = type(error).__module__, ''
        while tb is not None:
            frame = tb.tb_frame
            module_name = frame.f_globals.get('__name__', '')
            function_name = frame.f_code.co_name
            tb = tb.tb_next
        return cls(module_name=module_name, function_name=function_name,
                   exception=error.__class__.__name__,
                   exception_message=str(error),
                   traceback=''.join(traceback.format_exception(
                       type(error), error, error.__traceback__)))


@_REGISTER
class AuditPeriodPayload(Payload):
    VERSION = '1.0'
    fields = {
        'audit_period_beginning': fields.DateTimeField(),
        'audit_period_ending': fields.DateTimeField(),
    }


@_REGISTER
class InstanceStateUpdatePayload(Payload):
    VERSION = '1.0'
    fields = {
        'old_state': fields.StringField(nullable=True),
        'state': fields.StringField(nullable=True),
        'old_task_state': fields.StringField(nullable=True),
        'new_task_state': fields.StringField(nullable=True),
    }


def _instance_values(context, instance):
    """InstancePayload's fields from a nova_lite Instance."""
    system_metadata = instance.system_metadata or {}
    with_request = context.project_id and context.user_id
    return dict(
        uuid=instance.uuid, user_id=instance.user_id,
        tenant_id=instance.project_id,
        reservation_id=instance.reservation_id,
        display_name=instance.display_name,
        display_description=instance.display_description,
        host_name=instance.hostname, host=instance.host,
        node=instance.node, os_type=None, architecture=None,
        availability_zone=instance.availability_zone,
        flavor=FlavorPayload.from_flavor(instance.flavor or {}),
        image_uuid=instance.image_ref, key_name=instance.key_name,
        kernel_id='', ramdisk_id='',
        created_at=instance.created_at, launched_at=instance.launched_at,
        terminated_at=instance.terminated_at,
        deleted_at=instance.deleted_at, updated_at=instance.updated_at,
        state=instance.vm_state,
        power_state=power_state.STATE_MAP.get(instance.power_state or 0,
                                              'pending'),
        task_state=instance.task_state, progress=instance.progress or 0,
        ip_addresses=[], block_devices=[],
        metadata=_strings(instance.metadata),
        locked=bool(instance.locked),
        auto_disk_config='AUTO' if instance.auto_disk_config else 'MANUAL',
        request_id=context.request_id if with_request else None,
        action_initiator_user=context.user_id,
        action_initiator_project=context.project_id,
        locked_reason=system_metadata.get('locked_reason'), shares=[])


_INSTANCE_FIELDS = {
    'uuid': fields.UUIDField(),
    'user_id': fields.StringField(nullable=True),
    'tenant_id': fields.StringField(nullable=True),
    'reservation_id': fields.StringField(nullable=True),
    'display_name': fields.StringField(nullable=True),
    'display_description': fields.StringField(nullable=True),
    'host_name': fields.StringField(nullable=True),
    'host': fields.StringField(nullable=True),
    'node': fields.StringField(nullable=True),
    'os_type': fields.StringField(nullable=True),
    'architecture': fields.StringField(nullable=True),
    'availability_zone': fields.StringField(nullable=True),
    'flavor': fields.ObjectField('FlavorPayload'),
    'image_uuid': fields.StringField(nullable=True),
    'key_name': fields.StringField(nullable=True),
    'kernel_id': fields.StringField(nullable=True),
    'ramdisk_id': fields.StringField(nullable=True),
    'created_at': fields.DateTimeField(nullable=True),
    'launched_at': fields.DateTimeField(nullable=True),
    'terminated_at': fields.DateTimeField(nullable=True),
    'deleted_at': fields.DateTimeField(nullable=True),
    'updated_at': fields.DateTimeField(nullable=True),
    'state': fields.StringField(nullable=True),
    'power_state': fields.StringField(nullable=True),
    'task_state': fields.StringField(nullable=True),
    'progress': fields.IntegerField(nullable=True),
    'ip_addresses': fields.ListOfObjectsField('IpPayload'),
    'block_devices': fields.ListOfObjectsField('BlockDevicePayload',
                                               nullable=True),
    'metadata': fields.DictOfStringsField(),
    'locked': fields.BooleanField(),
    'auto_disk_config': fields.StringField(),
    'request_id': fields.StringField(nullable=True),
    'action_initiator_user': fields.StringField(nullable=True),
    'action_initiator_project': fields.StringField(nullable=True),
    'locked_reason': fields.StringField(nullable=True),
    'shares': fields.ListOfObjectsField('SharePayload', nullable=True),
}


@_REGISTER
class InstancePayload(Payload):
    VERSION = '1.9'
    fields = dict(_INSTANCE_FIELDS)

    @classmethod
    def build(cls, context, instance, **extra):
        """The payload of ``instance``; ``extra``: the subclass's fields."""
        values = _instance_values(context, instance)
        values.update(extra)
        return cls(**values)


@_REGISTER
class InstanceActionPayload(InstancePayload):
    VERSION = '1.9'
    fields = {'fault': fields.ObjectField('ExceptionPayload',
                                          nullable=True)}


@_REGISTER
class InstanceCreatePayload(InstanceActionPayload):
    VERSION = '1.13'
    fields = {
        'keypairs': fields.ListOfObjectsField('KeypairPayload'),
        'tags': fields.ListOfStringsField(),
        'trusted_image_certificates': fields.ListOfStringsField(
            nullable=True),
        'instance_name': fields.StringField(nullable=True),
    }


@_REGISTER
class InstanceActionResizePrepPayload(InstanceActionPayload):
    VERSION = '1.4'
    fields = {'new_flavor': fields.ObjectField('FlavorPayload',
                                               nullable=True)}


@_REGISTER
class InstanceActionRebuildPayload(InstanceActionPayload):
    VERSION = '1.10'
    fields = {'trusted_image_certificates': fields.ListOfStringsField(
        nullable=True)}


@_REGISTER
class InstanceActionSnapshotPayload(InstanceActionPayload):
    VERSION = '1.10'
    fields = {'snapshot_image_id': fields.UUIDField()}


@_REGISTER
class InstanceUpdatePayload(InstancePayload):
    VERSION = '2.1'
    fields = {
        'state_update': fields.ObjectField('InstanceStateUpdatePayload'),
        'audit_period': fields.ObjectField('AuditPeriodPayload'),
        'old_display_name': fields.StringField(nullable=True),
        'tags': fields.ListOfStringsField(),
    }


@_REGISTER
class InstanceExistsPayload(InstancePayload):
    VERSION = '2.1'
    fields = {'audit_period': fields.ObjectField('AuditPeriodPayload')}


@_REGISTER
class ServiceStatusPayload(Payload):
    VERSION = '1.1'
    fields = {
        'host': fields.StringField(nullable=True),
        'binary': fields.StringField(nullable=True),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.IntegerField(),
        'disabled': fields.BooleanField(),
        'disabled_reason': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'forced_down': fields.BooleanField(),
        'version': fields.IntegerField(),
        'uuid': fields.UUIDField(),
    }

    @classmethod
    def from_service(cls, service, availability_zone=None):
        return cls(host=service.host, binary=nova_binary(service.binary),
                   topic=service.topic,
                   report_count=service.report_count or 0,
                   disabled=bool(service.disabled),
                   disabled_reason=service.disabled_reason,
                   availability_zone=availability_zone,
                   last_seen_up=service.last_seen_up,
                   forced_down=bool(service.forced_down),
                   version=service.version or 0, uuid=service.uuid)


def nova_binary(binary):
    """Nova's name of a nova_lite binary: ``nova-lite-compute`` ->
    ``nova-compute`` (what publisher ids and payloads say)."""
    if binary and binary.startswith('nova-lite-'):
        return 'nova-' + binary[len('nova-lite-'):]
    return binary


@_REGISTER
class ImageMetaPropsPayload(Payload):
    """Sparse in Nova too: only the properties an image sets are in the
    primitive; nova_lite sends ``hw_architecture`` (None when unset)."""

    VERSION = '1.20'
    fields = {'hw_architecture': fields.StringField(nullable=True)}


@_REGISTER
class ImageMetaPayload(Payload):
    VERSION = '1.0'
    fields = {
        'id': fields.StringField(nullable=True),
        'name': fields.StringField(nullable=True),
        'status': fields.StringField(nullable=True),
        'visibility': fields.StringField(nullable=True),
        'protected': fields.BooleanField(nullable=True),
        'checksum': fields.StringField(nullable=True),
        'owner': fields.StringField(nullable=True),
        'size': fields.IntegerField(nullable=True),
        'virtual_size': fields.IntegerField(nullable=True),
        'container_format': fields.StringField(nullable=True),
        'disk_format': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'tags': fields.ListOfStringsField(nullable=True),
        'direct_url': fields.StringField(nullable=True),
        'min_ram': fields.IntegerField(nullable=True),
        'min_disk': fields.IntegerField(nullable=True),
        'properties': fields.ObjectField('ImageMetaPropsPayload'),
    }

    @classmethod
    def from_request_spec(cls, spec):
        """What a request spec knows of its image (id, disk format,
        properties); the rest None, as for an image Glance no longer
        has."""
        properties = _spec_get(spec, 'image_properties') or {}
        return cls(
            id=_spec_get(spec, 'image_id'), name=None, status='active',
            visibility=None, protected=None, checksum=None, owner=None,
            size=None, virtual_size=None, container_format=None,
            disk_format=_spec_get(spec, 'image_disk_format'),
            created_at=None, updated_at=None, tags=[], direct_url=None,
            min_ram=0, min_disk=0,
            properties=ImageMetaPropsPayload(
                hw_architecture=properties.get('hw_architecture')))


def _spec_get(spec, name, default=None):
    if name in spec.fields and spec.obj_attr_is_set(name):
        return getattr(spec, name)
    return default


@_REGISTER
class InstancePCIRequestsPayload(Payload):
    VERSION = '1.0'
    fields = {
        'instance_uuid': fields.StringField(),
        'requests': fields.ListOfObjectsField('InstancePCIRequestPayload'),
    }


@_REGISTER
class ServerGroupPayload(Payload):
    VERSION = '1.1'
    fields = {
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'policies': fields.ListOfStringsField(nullable=True),
        'members': fields.ListOfStringsField(nullable=True),
        'hosts': fields.ListOfStringsField(nullable=True),
        'policy': fields.StringField(nullable=True),
        'rules': fields.DictOfStringsField(),
    }

    @classmethod
    def from_group(cls, group):
        """From a server group record (an object or a dict)."""
        def get(key, default=None):
            if isinstance(group, dict):
                return group.get(key, default)
            try:
                return getattr(group, key)
            except (AttributeError, NotImplementedError):
                return default
        policy = get('policy')
        return cls(uuid=get('uuid'), name=get('name'),
                   user_id=get('user_id'), project_id=get('project_id'),
                   policies=[policy] if policy else [],
                   members=list(get('members') or []), hosts=None,
                   policy=policy, rules=_strings(get('rules')))


@_REGISTER
class RequestSpecPayload(Payload):
    VERSION = '1.1'
    fields = {
        'instance_uuid': fields.StringField(),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('FlavorPayload', nullable=True),
        'force_hosts': fields.StringField(nullable=True),
        'force_nodes': fields.StringField(nullable=True),
        'ignore_hosts': fields.ListOfStringsField(nullable=True),
        'instance_group': fields.ObjectField('ServerGroupPayload',
                                             nullable=True),
        'image': fields.ObjectField('ImageMetaPayload', nullable=True),
        'numa_topology': fields.ObjectField('InstanceNUMATopologyPayload',
                                            nullable=True),
        'pci_requests': fields.ObjectField('InstancePCIRequestsPayload',
                                           nullable=True),
        'num_instances': fields.IntegerField(default=1),
        'requested_destination': fields.ObjectField('DestinationPayload',
                                                    nullable=True),
        'retry': fields.ObjectField('SchedulerRetriesPayload',
                                    nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(nullable=True),
        'security_groups': fields.ListOfStringsField(),
    }

    @classmethod
    def from_request_spec(cls, spec):
        uuid = _spec_get(spec, 'instance_uuid')
        flavor = _spec_get(spec, 'flavor')
        group = _spec_get(spec, 'instance_group')
        force_hosts = _spec_get(spec, 'force_hosts') or []
        force_nodes = _spec_get(spec, 'force_nodes') or []
        return cls(
            instance_uuid=uuid, project_id=_spec_get(spec, 'project_id'),
            user_id=_spec_get(spec, 'user_id'),
            availability_zone=_spec_get(spec, 'availability_zone'),
            flavor=(FlavorPayload.from_flavor(flavor)
                    if flavor is not None else None),
            force_hosts=force_hosts[0] if force_hosts else None,
            force_nodes=force_nodes[0] if force_nodes else None,
            ignore_hosts=list(_spec_get(spec, 'ignore_hosts') or []) or None,
            instance_group=(ServerGroupPayload.from_group(group)
                            if group is not None and _spec_get(group, 'uuid')
                            else None),
            image=ImageMetaPayload.from_request_spec(spec),
            numa_topology=None,
            pci_requests=InstancePCIRequestsPayload(instance_uuid=uuid,
                                                    requests=[]),
            num_instances=_spec_get(spec, 'num_instances', 1) or 1,
            requested_destination=None, retry=None,
            scheduler_hints=dict(_spec_get(spec, 'scheduler_hints') or {}),
            security_groups=['default'])


@_REGISTER
class ComputeTaskPayload(Payload):
    VERSION = '1.0'
    fields = {
        'instance_uuid': fields.UUIDField(),
        'reason': fields.ObjectField('ExceptionPayload'),
        'request_spec': fields.ObjectField('RequestSpecPayload'),
        'state': fields.StringField(nullable=True),
    }


@_REGISTER
class AggregatePayload(Payload):
    VERSION = '1.1'
    fields = {
        'id': fields.IntegerField(nullable=True),
        'uuid': fields.UUIDField(nullable=False),
        'name': fields.StringField(),
        'hosts': fields.ListOfStringsField(nullable=True),
        'metadata': fields.DictOfStringsField(nullable=True),
    }
