"""One bracket around each step of an instance action, in every service.

A step (``compute_stop_instance``, ``conductor_migrate_server`` ...) is
recorded as an event of the instance's current action: started when the
step starts, finished ``Success``, or ``Error`` with the error's traceback
and message. A failed step may also have to undo what it did, store a
fault saying why and put the instance back where the user can act on it;
then the error goes on to the caller, which decides whether it ends there
(a cast) or travels back (a call). :meth:`ActionEvents.step` does all of
it, in one order, as Nova's ``wrap_instance_event``,
``wrap_instance_fault`` and ``reverts_task_state`` do together:

1. ``undo(error)``: the step's own clean-up (a guest destroyed, an
   allocation given back, a migration marked failed), so that nothing is
   left behind once the instance shows the failure;
2. the event finished ``Error``;
3. with ``fault=True``: a fault for the error, written before the state
   below so that whoever sees the new state also sees why;
4. with ``revert``: those instance values written, only if the instance
   is still in ``expected_task_state``: an instance deleted or changed
   meanwhile keeps what it has.

Records are best effort: a failed write is logged; it never hides the
step's error, nor fails a step that succeeded (an instance whose action
was never started, by a test or a periodic job, still builds).

``records`` is anything with the record calls of the cell conductor's API
(``action_event_start``, ``action_event_finish``,
``instance_fault_create``, ``instance_update``): the conductor's RPC
client in a compute, which never reaches a database itself, and the cell's
objects in a conductor (:class:`nova_lite.conductor.tasks.common.
CellRecords`). This module imports neither.
"""

import contextlib
import traceback

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite import exception
from nova_lite.objects import instance_fault

LOG = logging.getLogger(__name__)

# What a record write may raise (over RPC, or from the cell's objects).
RECORD_ERRORS = (messaging.MessagingException, exception.NovaLiteException)
# What an instance write raises when the instance is no longer the step's.
STATE_CHANGED = (exception.InstanceNotFound,
                 exception.UnexpectedTaskStateError,
                 exception.UnexpectedVMStateError)


def event_outcome(error=None):
    """The ``result``, ``traceback`` and ``details`` of an event that
    ended with ``error`` (None: it succeeded)."""
    if error is None:
        return {'result': 'Success', 'traceback': None, 'details': None}
    return {'result': 'Error', 'details': str(error),
            'traceback': ''.join(traceback.format_exception(
                type(error), error, error.__traceback__))}


def record_fault(records, context, instance_uuid, error, host=None):
    """Store a fault for ``error`` (an exception or a message); a failed
    write is logged."""
    values = instance_fault.fault_values(instance_uuid, error, host=host)
    try:
        records.instance_fault_create(context, values)
    except RECORD_ERRORS as record_error:
        LOG.warning('Fault of instance %s not recorded: %s', instance_uuid,
                    record_error)


class Step:
    """What the block of :meth:`ActionEvents.step` tells the bracket."""

    def __init__(self):
        # True once the block's own write finished the event.
        self.finished = False


class ActionEvents:
    """The action events and faults one service records, as ``host``.

    ``on_failure(context, error)``, when given, is told of every failed
    step (the compute sends ``compute.exception`` from it, as Nova's
    compute does for an error its RPC methods raise).
    """

    def __init__(self, records, host, on_failure=None):
        self.records = records
        self.host = host
        self.on_failure = on_failure

    def start(self, context, instance_uuid, event):
        try:
            self.records.action_event_start(context, instance_uuid, event,
                                            host=self.host)
        except RECORD_ERRORS as error:
            LOG.debug('Event %s of %s not recorded: %s', event,
                      instance_uuid, error)

    def finish(self, context, instance_uuid, event, error=None):
        try:
            self.records.action_event_finish(context, instance_uuid, event,
                                             **event_outcome(error))
        except RECORD_ERRORS as record_error:
            LOG.debug('Event %s of %s not finished: %s', event,
                      instance_uuid, record_error)

    def fault(self, context, instance_uuid, error):
        record_fault(self.records, context, instance_uuid, error,
                     host=self.host)

    @contextlib.contextmanager
    def step(self, context, instance_uuid, event, undo=None, fault=False,
             revert=None, expected_task_state=None, started=False):
        """Run the block as ``event`` (see the module docstring); the
        block's error is re-raised once recorded.

        :param undo: called with the error first.
        :param revert: the instance values a failure leaves, or a
            callable taking the error and returning them (None: none).
        :param expected_task_state: what ``revert`` expects (None: any).
        :param started: the event was started already (with the read
            that came before the step): not started again.

        The block gets a :class:`Step`: one whose last write also
        finished the event sets its ``finished``, and a success records
        nothing more. A failure is recorded as above either way (the
        write that would have finished the event did not happen).
        """
        if not started:
            self.start(context, instance_uuid, event)
        step = Step()
        try:
            yield step
        except Exception as error:
            if undo is not None:
                undo(error)
            self.finish(context, instance_uuid, event, error=error)
            if fault:
                self.fault(context, instance_uuid, error)
            if self.on_failure is not None:
                self.on_failure(context, error)
            values = revert(error) if callable(revert) else revert
            if values:
                self._revert(context, instance_uuid, event, values,
                             expected_task_state)
            raise
        if not step.finished:
            self.finish(context, instance_uuid, event)

    def _revert(self, context, instance_uuid, event, values, expected):
        try:
            self.records.instance_update(context, instance_uuid, values,
                                         expected_task_state=expected)
        except STATE_CHANGED as changed:
            LOG.info('Instance %s changed during its failed %s: %s',
                     instance_uuid, event, changed)
        except RECORD_ERRORS as error:
            LOG.warning('Instance %s not reverted after its failed %s: %s',
                        instance_uuid, event, error)
