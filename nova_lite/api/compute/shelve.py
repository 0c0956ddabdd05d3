"""Shelve, shelve offload, unshelve.

* ``shelve`` (active, stopped, paused or suspended servers): task
  ``shelving`` in the cell, cast ``shelve_instance`` to the server's
  compute (which offloads right away by default, see
  :mod:`nova_lite.compute.shelve`);
* ``shelve_offload`` (shelved servers): task ``shelving_offloading``, cast
  ``shelve_offload_instance``;
* ``unshelve``: a ``shelved`` server still has its guest: task
  ``unshelving`` and a cast to its compute. A ``shelved_offloaded`` one
  must be scheduled again: task ``unshelving``, the stored request spec
  gets this request's availability zone (2.77; ``None`` unpins it at
  2.91), a 2.91 ``host`` becomes the requested destination of this
  scheduling only, and ``unshelve_instance`` goes to the super conductor.
"""

from oslo_log import log as logging

from nova_lite.api.compute import actions
from nova_lite.api.compute import checks
from nova_lite.api.compute import snapshot
from nova_lite import cells
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

SHELVE_STATES = (vm_states.ACTIVE, vm_states.STOPPED, vm_states.PAUSED,
                 vm_states.SUSPENDED)
UNSHELVE_STATES = (vm_states.SHELVED, vm_states.SHELVED_OFFLOADED)
# ``availability_zone`` not given at all (as opposed to given as None).
NOT_GIVEN = object()


class ShelveAPI:
    """Shelves on the server's compute (through ``server_actions``, an
    :class:`nova_lite.api.compute.actions.ActionsAPI`); unshelves an
    offloaded server through the super conductor
    (``compute_task_api``), which schedules it again."""

    def __init__(self, server_actions, compute_task_api):
        self.server_actions = server_actions
        self.compute_task_api = compute_task_api

    def shelve(self, context, server, clean_shutdown=True):
        """Shelve a server (202; 409 in another state or locked): its
        snapshot image ``<name>-shelved`` is created first, as Nova does,
        and deleted again when the shelve cannot start."""
        instance = actions.instance_for(context, server, 'shelve',
                                        SHELVE_STATES)
        image = snapshot.create_image(
            context, instance, '%s-shelved' % instance.display_name,
            'snapshot')
        try:
            self.server_actions.act(
                context, server, 'shelve', SHELVE_STATES,
                task_states.SHELVING, 'shelve_instance',
                image_id=image.uuid, clean_shutdown=clean_shutdown)
        except Exception:
            snapshot.delete_image(image.uuid)
            raise

    def shelve_offload(self, context, server, clean_shutdown=True):
        """Offload a shelved server now (admins by default)."""
        self.server_actions.act(
            context, server, 'shelveOffload', (vm_states.SHELVED,),
            task_states.SHELVING_OFFLOADING, 'shelve_offload_instance',
            clean_shutdown=clean_shutdown)

    def unshelve(self, context, server, availability_zone=NOT_GIVEN,
                 host=None):
        """Bring a shelved server back (see the module docstring)."""
        if server.build_request or server.cell is None:
            raise exception.InstanceInvalidState(
                action='unshelve', uuid=server.uuid, attr='vm_state',
                state='building')
        instance = server.instance
        actions.check_not_locked(context, instance)
        if instance.vm_state not in UNSHELVE_STATES or \
                instance.task_state is not None:
            attr, state = (('task_state', instance.task_state)
                           if instance.vm_state in UNSHELVE_STATES
                           else ('vm_state', instance.vm_state))
            raise exception.InstanceInvalidState(
                action='unshelve', uuid=instance.uuid, attr=attr,
                state=state)
        offloaded = instance.vm_state == vm_states.SHELVED_OFFLOADED
        if not offloaded:
            if availability_zone is not NOT_GIVEN or host:
                raise exception.InstanceInvalidState(
                    action='unshelve with a host or availability zone',
                    uuid=instance.uuid, attr='vm_state',
                    state=instance.vm_state)
            self.server_actions.act(
                context, server, 'unshelve', (vm_states.SHELVED,),
                task_states.UNSHELVING, 'unshelve_instance',
                host=instance.host)
            return
        stored, spec = self._unshelve_spec(context, instance,
                                           availability_zone, host)
        values = ({} if availability_zone is NOT_GIVEN
                  else {'availability_zone': availability_zone})
        with cells.target_cell(context, server.cell) as cctxt:
            actions.start_task(cctxt, instance, 'unshelve',
                               task_states.UNSHELVING, values)
        if availability_zone is not NOT_GIVEN:
            # Pinned (or unpinned) only now that the unshelve is ours: a
            # refused one (409) changes nothing.
            stored.availability_zone = availability_zone
            stored.save()
        LOG.info('unshelve of offloaded instance %s requested (zone %s, '
                 'host %s)', instance.uuid,
                 spec.get('availability_zone'), host)
        self.compute_task_api.unshelve_instance(context, instance,
                                                request_spec=spec)

    def _unshelve_spec(self, context, instance, availability_zone, host):
        """(stored spec, spec for this unshelve): the latter has this
        request's zone (which the caller saves in the stored spec once the
        unshelve is accepted: it pins the server, ``None`` unpins it) and
        host (this scheduling only); 400 for an unknown zone or host, or
        a host outside the zone the server is (or is being) pinned to."""
        if availability_zone not in (NOT_GIVEN, None):
            checks.check_zone(context, availability_zone)
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                            instance.uuid)
        except exception.RequestSpecNotFound:
            spec = objects.RequestSpec.from_components(
                context, instance.flavor, project_id=instance.project_id,
                user_id=instance.user_id, instance_uuid=instance.uuid)
            spec.create()
        zone = (spec.get('availability_zone')
                if availability_zone is NOT_GIVEN else availability_zone)
        if host:
            checks.check_host(context, host)
            if zone and checks.zone_of_host(context, host) != zone:
                raise exception.InvalidRequest(
                    reason='Host %s is not in availability zone %s.'
                    % (host, zone))
        stored = spec
        spec = spec.obj_clone()
        if availability_zone is not NOT_GIVEN:
            spec.availability_zone = availability_zone
        if host:
            spec.requested_destination = objects.RequestSpecDestination(
                host=host, node=None, cell_uuid=None, aggregates=[],
                forbidden_aggregates=[], allow_cross_cell_move=False)
        return stored, spec
