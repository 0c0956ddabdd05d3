"""createImage, createBackup and the image of a shelve: the compute API's
snapshots.

As Nova's compute API does, the image is created first (``queued``, in
the image service), with the metadata Nova gives a snapshot: the source
image's properties and formats, ``instance_uuid``, ``user_id``,
``image_type`` and the request's metadata; private to the instance's
project, or ``shared`` when an admin of another project asks. Then the
instance's task state is set and the compute told to store the guest in
it (``snapshot_instance``; a shelve passes the image to
``shelve_instance``). When the action cannot start (409), the image is
deleted again.

createBackup is a snapshot whose image is a ``backup`` with the request's
``backup_type``; the compute then keeps the ``rotation`` newest backups of
that type of the instance and deletes the older ones (Nova's
``backup_instance``).
"""

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite.api.compute import actions
from nova_lite.api import quota
from nova_lite import cells
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import interface as image_api

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

SNAPSHOT_STATES = (vm_states.ACTIVE, vm_states.STOPPED, vm_states.PAUSED,
                   vm_states.SUSPENDED)
# Source image properties a snapshot does not inherit (Nova's
# non_inheritable_image_properties, plus the image's own identity).
NOT_INHERITED = ('cache_in_nova', 'bittorrent', 'img_signature_hash_method',
                 'img_signature', 'img_signature_key_type',
                 'img_signature_certificate_uuid', 'instance_uuid',
                 'user_id', 'image_type', 'image_location', 'owner_id')


def check_metadata_quota(context, metadata):
    """403 past the project's ``metadata_items`` limit (Nova's
    check_img_metadata_properties_quota)."""
    limit = quota.limits_for(context, context.project_id)['metadata_items']
    if limit >= 0 and len(metadata or {}) > limit:
        raise exception.QuotaExceeded(
            resources='metadata_items', req=len(metadata), used=0,
            allowed=limit)


def create_image(context, instance, name, image_type,
                 extra_properties=None):
    """A queued image for a snapshot of ``instance``; the record."""
    base = image_api.find(instance.image_ref) if instance.image_ref \
        else None
    base = base or {}
    properties = {k: v for k, v in (base.get('properties') or {}).items()
                  if k not in NOT_INHERITED and isinstance(v, str)}
    if instance.image_ref:
        properties['base_image_ref'] = instance.image_ref
    properties.update(instance_uuid=instance.uuid,
                      user_id=str(context.user_id), image_type=image_type)
    properties.update(extra_properties or {})
    if context.project_id != instance.project_id:
        visibility, owner = 'shared', instance.project_id
    else:
        visibility, owner = 'private', context.project_id
    values = {'uuid': uuidutils.generate_uuid(), 'name': name,
              'status': 'queued', 'visibility': visibility,
              'protected': False, 'os_hidden': False, 'owner': owner,
              'min_disk': max(base.get('min_disk') or 0,
                              instance.root_gb or 0),
              'min_ram': base.get('min_ram') or 0,
              'disk_format': base.get('disk_format'),
              'container_format': base.get('container_format'),
              'properties': properties, 'tags': []}
    image = image_api.create(nl_context.get_admin_context(), values)
    LOG.info('Image %s created for a %s of instance %s', image.uuid,
             image_type, instance.uuid)
    return image


def delete_image(image_id):
    """Drop a snapshot image and its data: the image of an action that
    did not start, or of a shelved server being deleted."""
    if image_api.destroy(nl_context.get_admin_context(), CONF,
                             image_id):
        LOG.info('Snapshot image %s deleted', image_id)


def delete_shelved_image(instance):
    """A shelved server is being deleted: its shelve image goes too, as
    Nova deletes it."""
    if instance.vm_state not in (vm_states.SHELVED,
                                 vm_states.SHELVED_OFFLOADED):
        return
    image_id = (instance.system_metadata or {}).get('shelved_image_id')
    if image_id and uuidutils.is_uuid_like(image_id) and \
            image_id != instance.image_ref:
        delete_image(image_id)


class SnapshotAPI:
    """createImage through the server's compute (``compute_rpcapi``)."""

    def __init__(self, compute_rpcapi):
        self.compute_rpcapi = compute_rpcapi

    def snapshot(self, context, server, name, metadata=None):
        """Create the image and start the snapshot; the image record
        (409 in another state, locked, or busy)."""
        instance = actions.instance_for(context, server, 'createImage',
                                        SNAPSHOT_STATES)
        check_metadata_quota(context, metadata)
        image = create_image(context, instance, name, 'snapshot',
                             metadata)
        self._start(context, server, instance, image, 'createImage',
                    task_states.IMAGE_SNAPSHOT,
                    self.compute_rpcapi.snapshot_instance)
        return image

    def backup(self, context, server, name, backup_type, rotation,
               metadata=None, check_quota=True):
        """createBackup: the image (a ``backup`` with ``backup_type``)
        and the snapshot, after which the compute keeps the ``rotation``
        newest backups of that type; the image record. ``check_quota``:
        the metadata_items limit (below 2.39)."""
        instance = actions.instance_for(context, server, 'createBackup',
                                        SNAPSHOT_STATES)
        if check_quota:
            check_metadata_quota(context, metadata)
        properties = dict(metadata or {}, backup_type=backup_type)
        image = create_image(context, instance, name, 'backup', properties)
        self._start(context, server, instance, image, 'createBackup',
                    task_states.IMAGE_BACKUP,
                    lambda cctxt, inst, image_id:
                    self.compute_rpcapi.backup_instance(
                        cctxt, inst, image_id, backup_type, rotation))
        return image

    @staticmethod
    def _start(context, server, instance, image, action, task_state,
               cast):
        """Set the task state and cast; the image goes again when the
        action cannot start."""
        try:
            with cells.target_cell(context, server.cell) as cctxt:
                actions.start_task(cctxt, instance, action, task_state)
                cast(cctxt, instance, image.uuid)
        except Exception:
            delete_image(image.uuid)
            raise
