"""Client side of the conductor RPC API.

The client always uses the process's default transport unless given one:
from API-level services it reaches the super conductor (API bus), from a
compute it reaches that compute's cell conductor (cell bus).
"""

import oslo_messaging as messaging

from nova_lite import rpc

RPC_TOPIC = 'conductor'


class ConductorAPI:
    """Client of the conductor.

    Version history:

    * 1.0 - Initial version. What a compute, which has no database, keeps
      through its cell conductor:

      - its service record: service_get_or_create, service_update;
      - its compute nodes: compute_node_get_all_by_host,
        compute_node_get_or_create, compute_nodes_save (many nodes of a
        host in one call and one transaction), compute_node_update,
        compute_node_delete, compute_node_build_result;
      - instances: instance_get_by_uuid, instance_get_all_by_filters,
        instance_update (with expected states), instance_fault_create;
        a build's first write with its event's start (build_start) and
        its last write with its event's finish and the node's usage
        (build_finish); a terminate's read with its event's start and
        unfinished migrations (terminate_start), then its last state,
        soft delete, event finish and node usage (terminate_finish);
      - instance actions and events: action_start, action_finish,
        action_event_start, action_event_finish;
      - migrations of moves: migration_create, migration_update (with
        ``expected_status``), migration_get_by_uuid,
        migration_get_all_by_filters;
      - the instance usage audit: instance_get_active_by_window,
        task_log_get, task_log_begin_task, task_log_end_task.
    """

    VERSION = '1.0'

    def __init__(self, transport=None):
        target = messaging.Target(topic=RPC_TOPIC, version=self.VERSION)
        self.client = rpc.get_client(target, transport=transport)

    def _call(self, context, method, timeout=None, **kwargs):
        cctxt = self.client.prepare(timeout=timeout)
        return cctxt.call(context, method, **kwargs)

    def service_get_or_create(self, context, host, binary, topic,
                              timeout=None):
        """Call: the (host, binary) Service record of the conductor's cell,
        created if missing."""
        return self._call(context, 'service_get_or_create', timeout=timeout,
                          host=host, binary=binary, topic=topic)

    def service_update(self, context, service_id, values, timeout=None):
        """Call: update a Service record (raising ``report_count`` is a
        heartbeat) and return it."""
        return self._call(context, 'service_update', timeout=timeout,
                          service_id=service_id, values=values)

    # -- compute nodes ------------------------------------------------------

    def compute_node_get_all_by_host(self, context, host,
                                     include_deleted=False):
        """Call: the host's ComputeNodes (soft-deleted ones too if asked)."""
        return self._call(context, 'compute_node_get_all_by_host', host=host,
                          include_deleted=include_deleted)

    def compute_node_get_or_create(self, context, host, nodename, values):
        """Call: the ComputeNode of (host, nodename) with ``values`` written;
        created, or restored when a soft-deleted row has ``values['uuid']``.
        """
        return self._call(context, 'compute_node_get_or_create', host=host,
                          nodename=nodename, values=values)

    def compute_nodes_save(self, context, host, nodes):
        """Call: ``{nodename: values}`` of ``host`` created, restored or
        updated as compute_node_get_or_create does, in one transaction;
        the list of ComputeNodes in that order."""
        return self._call(context, 'compute_nodes_save', host=host,
                          nodes=nodes)

    def compute_node_update(self, context, compute_id, values):
        """Call: update a ComputeNode and return it."""
        return self._call(context, 'compute_node_update',
                          compute_id=compute_id, values=values)

    def compute_node_delete(self, context, compute_id):
        """Call: soft-delete a ComputeNode (its node left the host)."""
        return self._call(context, 'compute_node_delete',
                          compute_id=compute_id)

    def compute_node_build_result(self, context, compute_id, succeeded):
        """Call: reset or raise the node's failed_builds; the new count."""
        return self._call(context, 'compute_node_build_result',
                          compute_id=compute_id, succeeded=succeeded)

    # -- instances ----------------------------------------------------------

    def instance_get_by_uuid(self, context, instance_uuid):
        """Call: the Instance (InstanceNotFound)."""
        return self._call(context, 'instance_get_by_uuid',
                          instance_uuid=instance_uuid)

    def instance_get_all_by_filters(self, context, filters):
        """Call: Instances matching exact-column ``filters``."""
        return self._call(context, 'instance_get_all_by_filters',
                          filters=filters)

    def instance_update(self, context, instance_uuid, values,
                        expected_task_state=None, expected_vm_state=None):
        """Call: update the Instance if still in the expected states
        (UnexpectedTaskStateError / UnexpectedVMStateError otherwise)."""
        return self._call(context, 'instance_update',
                          instance_uuid=instance_uuid, values=values,
                          expected_task_state=expected_task_state,
                          expected_vm_state=expected_vm_state)

    def instance_destroy(self, context, instance_uuid, values=None):
        """Call: soft-delete the Instance, ``values`` (if given) written
        first in the same transaction."""
        return self._call(context, 'instance_destroy',
                          instance_uuid=instance_uuid, values=values)

    def terminate_start(self, context, instance_uuid, event, host):
        """Call: ``[instance, unfinished migrations]`` with ``event``
        started under the request's action, as ``host``
        (InstanceNotFound: nothing started)."""
        return self._call(context, 'terminate_start',
                          instance_uuid=instance_uuid, event=event,
                          host=host)

    def terminate_finish(self, context, instance_uuid, values, event,
                         node=None):
        """Call: ``values`` written, the instance soft-deleted and
        ``event`` finished ``Success``, in one transaction; then ``node``
        (``{'id', 'values'}``, the node's changed usage) if given: the
        ComputeNode written, or None (not written: the caller refreshes
        it)."""
        return self._call(context, 'terminate_finish',
                          instance_uuid=instance_uuid, values=values,
                          event=event, node=node)

    def build_finish(self, context, instance_uuid, values,
                     expected_task_state, event, node=None):
        """Call: ``values`` written (UnexpectedTaskStateError unless the
        task state is ``expected_task_state``) and ``event`` finished
        ``Success`` in one transaction, then ``node`` (``{'id',
        'values'}``, the node's changed usage) if given: the ComputeNode
        written, or None (not written: the caller refreshes it)."""
        return self._call(context, 'build_finish',
                          instance_uuid=instance_uuid, values=values,
                          expected_task_state=expected_task_state,
                          event=event, node=node)

    def build_start(self, context, instance_uuid, values, expected_task_state,
                    expected_vm_state, event, host):
        """Call: ``event`` started as ``host`` (best effort, as
        :meth:`action_event_start` from a step) and ``values`` written if
        the instance is still in the expected states (InstanceNotFound,
        Unexpected*StateError: not written, the event started all the
        same); the written Instance."""
        return self._call(context, 'build_start',
                          instance_uuid=instance_uuid, values=values,
                          expected_task_state=expected_task_state,
                          expected_vm_state=expected_vm_state, event=event,
                          host=host)

    def instance_fault_create(self, context, values):
        """Call: record an InstanceFault (see ``fault_values``)."""
        return self._call(context, 'instance_fault_create', values=values)

    # -- instance actions ---------------------------------------------------

    def action_start(self, context, instance_uuid, action):
        """Call: start ``action`` under the context's request id."""
        return self._call(context, 'action_start',
                          instance_uuid=instance_uuid, action=action)

    def action_finish(self, context, instance_uuid, message=None):
        """Call: finish the request's action."""
        return self._call(context, 'action_finish',
                          instance_uuid=instance_uuid, message=message)

    def action_event_start(self, context, instance_uuid, event, host=None):
        """Call: start ``event`` under the request's action."""
        return self._call(context, 'action_event_start',
                          instance_uuid=instance_uuid, event=event,
                          host=host)

    def action_event_finish(self, context, instance_uuid, event,
                            result='Success', traceback=None, details=None):
        """Call: finish ``event`` ('Error' marks the action failed)."""
        return self._call(context, 'action_event_finish',
                          instance_uuid=instance_uuid, event=event,
                          result=result, traceback=traceback,
                          details=details)

    # -- migrations ---------------------------------------------------------

    def migration_create(self, context, values):
        """Call: create a Migration (``uuid`` generated unless given)."""
        return self._call(context, 'migration_create', values=values)

    def migration_update(self, context, migration_uuid, values,
                         expected_status=None):
        """Call: update a Migration (``status``...) and return it; with
        ``expected_status`` only from that status (Conflict otherwise)."""
        return self._call(context, 'migration_update',
                          migration_uuid=migration_uuid, values=values,
                          expected_status=expected_status)

    def migration_get_by_uuid(self, context, migration_uuid):
        """Call: the Migration (MigrationNotFound)."""
        return self._call(context, 'migration_get_by_uuid',
                          migration_uuid=migration_uuid)

    def migration_get_all_by_filters(self, context, filters):
        """Call: Migrations matching exact-column ``filters`` (a list value
        means any of), newest first."""
        return self._call(context, 'migration_get_all_by_filters',
                          filters=filters)

    # -- the instance usage audit -------------------------------------------

    def _call_window(self, context, method, begin, end, **kwargs):
        # NOTE(nova_lite): times cross the bus as ISO 8601 text (a JSON
        # transport has no datetime); the conductor parses them back.
        return self._call(context, method, begin=begin.isoformat(),
                          end=end.isoformat(), **kwargs)

    def instance_get_active_by_window(self, context, begin, end, host):
        """Call: instances of ``host`` (deleted ones too) that ran some
        time between ``begin`` and ``end``."""
        return self._call_window(context, 'instance_get_active_by_window',
                                 begin=begin, end=end, host=host)

    def task_log_get(self, context, task_name, begin, end, host):
        """Call: the TaskLog of that run, or None."""
        return self._call_window(context, 'task_log_get',
                                 task_name=task_name, begin=begin, end=end,
                                 host=host)

    def task_log_begin_task(self, context, task_name, begin, end, host,
                            task_items=None, message=None):
        """Call: record the run RUNNING (TaskAlreadyRunning)."""
        return self._call_window(context, 'task_log_begin_task',
                                 task_name=task_name, begin=begin, end=end,
                                 host=host, task_items=task_items,
                                 message=message)

    def task_log_end_task(self, context, task_name, begin, end, host,
                          errors, message=None):
        """Call: record the run DONE (TaskNotRunning)."""
        return self._call_window(context, 'task_log_end_task',
                                 task_name=task_name, begin=begin, end=end,
                                 host=host, errors=errors, message=message)
