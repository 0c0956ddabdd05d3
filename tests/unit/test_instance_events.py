"""The action bracket: what a step records, in which order, and that the
step's error always reaches the caller."""

import oslo_messaging as messaging
import testtools

from nova_lite import exception
from nova_lite import instance_events

UUID = '0b9a4c1e-7f3d-4e2a-9c5b-6d8e7f0a1b2c'


class _Records:
    """The record calls of the conductor API, written down in order."""

    def __init__(self, failing=(), update_error=None):
        self.calls = []
        self.failing = failing
        self.update_error = update_error

    def _record(self, name, *args):
        self.calls.append((name,) + args)
        if name in self.failing:
            raise messaging.MessagingTimeout('conductor gone')

    def action_event_start(self, context, uuid, event, host=None):
        self._record('start', event, host)

    def action_event_finish(self, context, uuid, event, result='Success',
                            traceback=None, details=None):
        self._record('finish', event, result, details,
                     traceback is not None)

    def instance_fault_create(self, context, values):
        self._record('fault', values['message'], values['host'])

    def instance_update(self, context, uuid, values,
                        expected_task_state=None, expected_vm_state=None):
        self._record('update', values, expected_task_state)
        if self.update_error is not None:
            raise self.update_error


class ActionEventsTestCase(testtools.TestCase):

    def _events(self, records):
        return instance_events.ActionEvents(records, 'host1')

    def test_success_records_start_and_finish(self):
        records = _Records()
        with self._events(records).step(None, UUID, 'compute_x', fault=True,
                                        revert={'task_state': None}):
            records.calls.append(('body',))
        self.assertEqual([('start', 'compute_x', 'host1'), ('body',),
                          ('finish', 'compute_x', 'Success', None, False)],
                         records.calls)

    def test_failure_undoes_finishes_faults_reverts_and_reraises(self):
        records = _Records()
        undone = []

        def undo(error):
            undone.append(error)
            records.calls.append(('undo',))

        error = ValueError('boom')
        with testtools.ExpectedException(ValueError, 'boom'):
            with self._events(records).step(
                    None, UUID, 'compute_x', undo=undo, fault=True,
                    revert=lambda e: {'vm_state': 'error', 'task_state': None},
                    expected_task_state=['spawning']):
                raise error
        self.assertEqual([error], undone)
        self.assertEqual([
            ('start', 'compute_x', 'host1'),
            ('undo',),
            ('finish', 'compute_x', 'Error', 'boom', True),
            ('fault', 'boom', 'host1'),
            ('update', {'vm_state': 'error', 'task_state': None},
             ['spawning'])], records.calls)

    def test_without_options_only_the_event_is_recorded(self):
        records = _Records()
        self.assertRaises(exception.Invalid, self._run,
                          self._events(records),
                          exception.Invalid(reason='no'))
        self.assertEqual(['start', 'finish'],
                         [call[0] for call in records.calls])

    def test_a_changed_instance_keeps_its_state_and_the_error_goes_on(self):
        records = _Records(update_error=exception.UnexpectedTaskStateError(
            instance_uuid=UUID, expected=['spawning'], actual='deleting'))
        events = self._events(records)
        self.assertRaises(ValueError, self._run, events, ValueError('boom'),
                          revert={'task_state': None})
        self.assertEqual('update', records.calls[-1][0])

    def test_record_failures_never_hide_or_cause_an_error(self):
        records = _Records(failing=('start', 'finish', 'fault', 'update'))
        events = self._events(records)
        with events.step(None, UUID, 'compute_x'):
            pass
        self.assertRaises(ValueError, self._run, events, ValueError('boom'),
                          fault=True, revert={'task_state': None})

    @staticmethod
    def _run(events, error, **options):
        with events.step(None, UUID, 'compute_x', **options):
            raise error
