"""The super conductor's build: schedule, create in a cell, cast.

For one API request (one or several instances of the same flavor):

1. ask the scheduler for destinations with alternates (it claims the
   chosen hosts in placement before answering); any failure buries every
   instance in cell0 (:mod:`.bury`);
2. per instance: check the build request still exists (a user may have
   deleted the server while it was scheduled: then drop its mapping and
   its claim), create the instance in the chosen cell's database with
   the start of its ``create`` action (one transaction), then point the
   instance mapping at the cell and delete the build request in one API
   database transaction (if that finds either gone, the delete won:
   remove the instance from the cell and drop the claim), while the
   scheduler's decision is stored in the cell beside it;
3. cast ``build_and_run_instance`` to the chosen compute over the cell's
   bus, handing down the remaining Selections as alternates and the
   request spec (whose server group policy and members the compute's late
   check reads).
"""

import concurrent.futures

from oslo_log import log as logging

from nova_lite import cells
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import decisions
from nova_lite.conductor.tasks import bury
from nova_lite.conductor.tasks import common
from nova_lite import context as nl_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import build_api
from nova_lite.db.cell import instance_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)

# Runs a build's decision store beside its API database hand-over.
_BESIDE = concurrent.futures.ThreadPoolExecutor(
    max_workers=4, thread_name_prefix='build-decision')


class ScheduleAndBuildTask:
    """One ``schedule_and_build_instances`` request, from start to casts."""

    def __init__(self, context, build_requests, request_specs, image,
                 scheduler_api, compute_api, placement):
        self.context = context
        self.build_requests = build_requests
        self.request_specs = request_specs
        self.image = image
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api
        self.placement = placement
        self._cells = {}

    def execute(self):
        host_lists = self._schedule()
        if host_lists is None:
            return
        for build_request, spec, host_list in zip(
                self.build_requests, self.request_specs, host_lists,
                strict=True):
            try:
                self._build_one(build_request, spec, list(host_list))
            except Exception as exc:  # noqa: BLE001 - one must not stop all
                LOG.exception('Build of instance %s failed in the '
                              'conductor', build_request.instance_uuid)
                self._fail_one(build_request, host_list, exc)

    def _schedule(self):
        uuids = [br.instance_uuid for br in self.build_requests]
        spec = self.request_specs[0]
        try:
            host_lists = self.scheduler_api.select_destinations(
                self.context, spec, uuids, return_alternates=True)
        except Exception as exc:  # noqa: BLE001 - NoValidHost and the rest
            LOG.warning('Scheduling instances %s failed: %s', uuids, exc)
            # NOTE(nova_lite): a call that timed out (its reply lost in a
            # broker outage) may have claimed: the scheduler claims before
            # it answers. A buried instance holds nothing.
            self._drop_claims(uuids)
            bury.bury_in_cell0(self.context, self.build_requests, exc,
                               request_spec=spec)
            return None
        if len(host_lists) != len(uuids):
            exc = exception.NoValidHost(
                reason='the scheduler answered %d destinations for %d '
                       'instances' % (len(host_lists), len(uuids)))
            self._drop_claims(uuids)
            bury.bury_in_cell0(self.context, self.build_requests, exc,
                               request_spec=spec)
            return None
        return host_lists

    def _drop_claims(self, uuids):
        for uuid in uuids:
            common.delete_allocations(self.placement, uuid)

    def _cell_for(self, selection):
        """The cell of a Selection (by its cell uuid, else its host)."""
        key = selection.cell_uuid
        cell = self._cells.get(key)
        if cell is None:
            try:
                cell = objects.CellMapping.get_by_uuid(self.context, key)
            except exception.CellMappingNotFound:
                row = api_db.host_mapping_get_by_host(
                    self.context, selection.service_host)
                cell = objects.CellMapping._from_db(self.context,
                                                    row.cell_mapping)
            self._cells[key] = cell
        return cell

    def _reread(self, build_request):
        """The stored build request's ``created_at`` (its only column
        read); None when the user deleted it.

        The copy that came over RPC lost its sub-second part, which
        listings sort by.
        """
        try:
            return build_api.build_request_created_at(
                self.context, build_request.instance_uuid)
        except exception.BuildRequestNotFound:
            return None

    def _forget_deleted(self, uuid, mapped_here=False):
        """The user deleted the server while it was being scheduled (or
        the reaper buried it, having waited for it too long: then its
        mapping points at cell0 and stays, unless ``mapped_here``: this
        task pointed it at its cell)."""
        LOG.info('Instance %s was deleted during scheduling; dropping its '
                 'mapping and claim', uuid)
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                self.context, uuid)
            if mapping.cell_mapping is None or mapped_here:
                mapping.destroy()
        except exception.InstanceMappingNotFound:
            pass
        common.delete_allocations(self.placement, uuid)

    def _hand_over(self, uuid, cell):
        """Point the mapping at ``cell`` and delete the build request
        (one API database transaction); False when the user deleted the
        server meanwhile (its mapping, or its build request: then the
        caller removes the instance again)."""
        try:
            previous, deleted = build_api.build_request_hand_over(
                self.context, uuid, cell.id)
        except exception.InstanceMappingNotFound:
            return False
        if previous is not None:
            LOG.error('Instance %s was mapped to cell id %s already; '
                      'remapped it to %s', uuid, previous, cell.identity)
        return deleted

    def _abandon(self, cctxt, uuid):
        """Undo a build the user deleted: instance, mapping, claim."""
        try:
            instance_api.instance_destroy(cctxt, uuid)
        except exception.InstanceNotFound:
            pass
        self._forget_deleted(uuid, mapped_here=True)

    def _build_one(self, build_request, spec, host_list):
        uuid = build_request.instance_uuid
        created_at = self._reread(build_request)
        if created_at is None:
            self._forget_deleted(uuid)
            return
        chosen = host_list[0]
        cell = self._cell_for(chosen)
        with cells.target_cell(self.context, cell) as cctxt:
            values = common.instance_values_for_cell(build_request, chosen)
            values['created_at'] = created_at
            # The created row is the instance the compute gets: read
            # back after the mapping and build request changes below, it
            # would be the same row.
            row, action = instance_api.instance_create_with_action(
                cctxt, values, common.CREATE_ACTION)
            # The decision goes to the cell database while the API
            # database takes the hand-over: neither waits for the other.
            stored = nl_context.run_as(
                _BESIDE, cctxt, decisions.store_selection, cctxt, uuid,
                chosen, 'boot', event=common.SCHEDULE_EVENT,
                action_id=action.id)
            handed_over = self._hand_over(uuid, cell)
            stored.result()
            if not handed_over:
                LOG.info('Instance %s was deleted while it was created in '
                         'cell %s; removing it', uuid, cell.identity)
                self._abandon(cctxt, uuid)
                return
            instance = objects.Instance._from_db(cctxt, row)
            LOG.info('Instance %s created in cell %s; building on %s/%s '
                     'with %d alternates', uuid, cell.identity,
                     chosen.service_host, chosen.nodename,
                     len(host_list) - 1)
            self.compute_api.build_and_run_instance(
                cctxt, instance, chosen.service_host, chosen.nodename,
                spec, host_list[1:], image=self.image)

    def _fail_one(self, build_request, host_list, exc):
        """A conductor-side error for one instance: no claim may leak."""
        uuid = build_request.instance_uuid
        common.delete_allocations(self.placement, uuid)
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                self.context, uuid)
        except exception.InstanceMappingNotFound:
            return
        if mapping.cell_mapping is None:
            bury.bury_in_cell0(self.context, [build_request], exc)
            return
        with cells.target_cell(self.context,
                               mapping.cell_mapping) as cctxt:
            common.set_error_with_fault(cctxt, uuid, exc)


def schedule_and_build(context, build_requests, request_specs, image,
                       transport, placement):
    """Run a :class:`ScheduleAndBuildTask` with the usual clients."""
    ScheduleAndBuildTask(
        context, build_requests, request_specs, image,
        scheduler_rpcapi.SchedulerAPI(transport=transport),
        compute_rpcapi.ComputeAPI(), placement).execute()
