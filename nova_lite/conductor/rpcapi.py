"""Client side of the conductor RPC API.

The client always uses the process's default transport unless given one:
from API-level services it reaches the super conductor (API bus), from a
compute it reaches that compute's cell conductor (cell bus).
"""

import oslo_messaging as messaging

from nova_lite import conf as nl_conf
from nova_lite import rpc

CONF = nl_conf.CONF

RPC_TOPIC = 'conductor'


class ConductorAPI:
    """Client of the conductor.

    Version history:

    * 1.0 - Initial version: service_get_or_create, service_update (what a
      compute, which has no database, needs for its service record).
    * 1.1 - Records a compute keeps through its cell conductor: compute
      nodes (get_all_by_host, get_or_create, update, delete,
      build_result), instances (get, get_all_by_filters, update with
      expected states, destroy), faults, actions and action events.
    * 1.2 - Migrations a compute records during moves: migration_create,
      migration_update (``expected_status``: confirm, revert and the
      automatic confirm race), migration_get_by_uuid,
      migration_get_all_by_filters.
    * 1.3 - The instance usage audit of a compute:
      instance_get_active_by_window, task_log_get, task_log_begin_task,
      task_log_end_task.
    * 1.4 - compute_nodes_save: many compute nodes of a host written in
      one call (and one transaction).
    * 1.5 - instance_destroy takes ``values``: the instance's last state
      (a terminate's vm state ``deleted``...) written in the transaction
      that deletes it, one call instead of an update and a destroy.
    * 1.6 - terminate_start and terminate_finish: a compute's terminate
      in two calls. The first reads the instance, starts the event and
      returns the unfinished migrations (was a read, an event start and
      a migration list); the second writes the last state, deletes the
      instance and finishes the event (was a destroy and an event
      finish), returning nothing.
    * 1.7 - build_finish: a build's last write (ACTIVE) and the finish
      of its event in one transaction, the node's usage in the same call;
      terminate_finish takes the node's usage too (``node``). A compute's
      build asks 3 things instead of 5 after the spawn, its terminate 2
      instead of 3.
    * 1.8 - build_start: a build's first write (BUILDING/SPAWNING on its
      host) and the start of its event in one call and one transaction
      (was an instance_update beside an action_event_start).
    """

    VERSION = '1.8'

    def __init__(self, transport=None):
        target = messaging.Target(topic=RPC_TOPIC, version=self.VERSION)
        self.client = rpc.get_client(
            target, version_cap=CONF.upgrade_levels.conductor,
            transport=transport)

    def service_get_or_create(self, context, host, binary, topic,
                              timeout=None):
        """Call: the (host, binary) Service record of the conductor's cell,
        created if missing."""
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(context, 'service_get_or_create', host=host,
                          binary=binary, topic=topic)

    def service_update(self, context, service_id, values, timeout=None):
        """Call: update a Service record (raising ``report_count`` is a
        heartbeat) and return it."""
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(context, 'service_update', service_id=service_id,
                          values=values)

    # -- 1.1: what computes record through their cell conductor ------------

    def _call(self, context, method, timeout=None, **kwargs):
        cctxt = self.client.prepare(version='1.1', timeout=timeout)
        return cctxt.call(context, method, **kwargs)

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

    def can_save_compute_nodes(self):
        """True when the conductor takes :meth:`compute_nodes_save`."""
        return self.client.can_send_version('1.4')

    def compute_nodes_save(self, context, host, nodes):
        """Call (1.4): ``{nodename: values}`` of ``host`` created, restored
        or updated as compute_node_get_or_create does, in one
        transaction; the list of ComputeNodes in that order."""
        cctxt = self.client.prepare(version='1.4')
        return cctxt.call(context, 'compute_nodes_save', host=host,
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
        """Call: soft-delete the Instance; with ``values`` (1.5, see
        :meth:`can_destroy_with_values`) written first, in the same
        transaction."""
        if values is None:
            return self._call(context, 'instance_destroy',
                              instance_uuid=instance_uuid)
        cctxt = self.client.prepare(version='1.5')
        return cctxt.call(context, 'instance_destroy',
                          instance_uuid=instance_uuid, values=values)

    def can_destroy_with_values(self):
        """True when the conductor takes ``values`` with
        :meth:`instance_destroy`."""
        return self.client.can_send_version('1.5')

    def can_terminate_in_two_calls(self):
        """True when the conductor takes :meth:`terminate_start` and
        :meth:`terminate_finish`."""
        return self.client.can_send_version('1.6')

    def terminate_start(self, context, instance_uuid, event, host):
        """Call (1.6): ``[instance, unfinished migrations]`` with
        ``event`` started under the request's action, as ``host``
        (InstanceNotFound: nothing started)."""
        cctxt = self.client.prepare(version='1.6')
        return cctxt.call(context, 'terminate_start',
                          instance_uuid=instance_uuid, event=event,
                          host=host)

    def terminate_finish(self, context, instance_uuid, values, event,
                         node=None):
        """Call (1.6): ``values`` written, the instance soft-deleted and
        ``event`` finished ``Success``, in one transaction. With ``node``
        (``{'id', 'values'}``, the node's changed usage) and a conductor
        at 1.7, that is written next: the ComputeNode written, or None
        (not written: the caller refreshes it)."""
        kwargs = dict(instance_uuid=instance_uuid, values=values,
                      event=event)
        version = '1.6'
        if node and self.can_finish_build():
            version = '1.7'
            kwargs['node'] = node
        return self.client.prepare(version=version).call(
            context, 'terminate_finish', **kwargs)

    def can_finish_build(self):
        """True when the conductor takes :meth:`build_finish` and the
        node's usage with :meth:`terminate_finish`."""
        return self.client.can_send_version('1.7')

    def build_finish(self, context, instance_uuid, values,
                     expected_task_state, event, node=None):
        """Call (1.7): ``values`` written (UnexpectedTaskStateError unless
        the task state is ``expected_task_state``) and ``event`` finished
        ``Success`` in one transaction, then ``node`` (``{'id',
        'values'}``, the node's changed usage) if given: the ComputeNode
        written, or None (not written: the caller refreshes it)."""
        cctxt = self.client.prepare(version='1.7')
        return cctxt.call(context, 'build_finish',
                          instance_uuid=instance_uuid, values=values,
                          expected_task_state=expected_task_state,
                          event=event, node=node)

    def can_start_build(self):
        """True when the conductor takes :meth:`build_start`."""
        return self.client.can_send_version('1.8')

    def build_start(self, context, instance_uuid, values, expected_task_state,
                    expected_vm_state, event, host):
        """Call (1.8): ``event`` started as ``host`` (best effort, as
        :meth:`action_event_start` from a step) and ``values`` written if
        the instance is still in the expected states (InstanceNotFound,
        Unexpected*StateError: not written, the event started all the
        same); the written Instance."""
        cctxt = self.client.prepare(version='1.8')
        return cctxt.call(context, 'build_start',
                          instance_uuid=instance_uuid, values=values,
                          expected_task_state=expected_task_state,
                          expected_vm_state=expected_vm_state, event=event,
                          host=host)

    def instance_fault_create(self, context, values):
        """Call: record an InstanceFault (see ``fault_values``)."""
        return self._call(context, 'instance_fault_create', values=values)

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

    # -- 1.2: migrations ----------------------------------------------------

    def _call_1_2(self, context, method, **kwargs):
        cctxt = self.client.prepare(version='1.2')
        return cctxt.call(context, method, **kwargs)

    def migration_create(self, context, values):
        """Call: create a Migration (``uuid`` generated unless given)."""
        return self._call_1_2(context, 'migration_create', values=values)

    def migration_update(self, context, migration_uuid, values,
                         expected_status=None):
        """Call: update a Migration (``status``...) and return it; with
        ``expected_status`` only from that status (Conflict otherwise)."""
        return self._call_1_2(context, 'migration_update',
                              migration_uuid=migration_uuid, values=values,
                              expected_status=expected_status)

    def migration_get_by_uuid(self, context, migration_uuid):
        """Call: the Migration (MigrationNotFound)."""
        return self._call_1_2(context, 'migration_get_by_uuid',
                              migration_uuid=migration_uuid)

    def migration_get_all_by_filters(self, context, filters):
        """Call: Migrations matching exact-column ``filters`` (a list value
        means any of), newest first."""
        return self._call_1_2(context, 'migration_get_all_by_filters',
                              filters=filters)

    # -- 1.3: the instance usage audit --------------------------------------

    def _call_1_3(self, context, method, begin, end, **kwargs):
        # NOTE(nova_lite): times cross the bus as ISO 8601 text (a JSON
        # transport has no datetime); the conductor parses them back.
        cctxt = self.client.prepare(version='1.3')
        return cctxt.call(context, method, begin=begin.isoformat(),
                          end=end.isoformat(), **kwargs)

    def instance_get_active_by_window(self, context, begin, end, host):
        """Call: instances of ``host`` (deleted ones too) that ran some
        time between ``begin`` and ``end``."""
        return self._call_1_3(context, 'instance_get_active_by_window',
                              begin=begin, end=end, host=host)

    def task_log_get(self, context, task_name, begin, end, host):
        """Call: the TaskLog of that run, or None."""
        return self._call_1_3(context, 'task_log_get', task_name=task_name,
                              begin=begin, end=end, host=host)

    def task_log_begin_task(self, context, task_name, begin, end, host,
                            task_items=None, message=None):
        """Call: record the run RUNNING (TaskAlreadyRunning)."""
        return self._call_1_3(context, 'task_log_begin_task',
                              task_name=task_name, begin=begin, end=end,
                              host=host, task_items=task_items,
                              message=message)

    def task_log_end_task(self, context, task_name, begin, end, host,
                          errors, message=None):
        """Call: record the run DONE (TaskNotRunning)."""
        return self._call_1_3(context, 'task_log_end_task',
                              task_name=task_name, begin=begin, end=end,
                              host=host, errors=errors, message=message)
