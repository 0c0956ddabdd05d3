"""Storing the scheduler's decisions with the instance's actions.

The scheduler owns no database: it hands each decision record back with
its Selections (``Selection.decision``) or its NoValidHost (the
``decision`` kwarg; see :mod:`nova_lite.scheduler.decision`). The
conductor that receives it stores it here, in the instance's cell
database (cell0 for a buried instance), tied to the action being run,
and records an event of that action whose ``details`` (microversion 2.84)
is the decision's one-line summary. A reschedule in the cell conductor
appends its own attempt to the instance's latest record.

Storing is best effort: a decision that cannot be stored is logged and
never fails the build or move it describes.
"""

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.db.cell import decision_api
from nova_lite.db.cell import instance_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import db_transaction
from nova_lite.scheduler import decision

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)



def attempt_of_selection(selection):
    """The decision attempt a chosen Selection carries, or None."""
    getter = getattr(selection, 'decision_dict', None)
    try:
        return getter() if getter is not None else None
    except ValueError:
        return None


def attempt_of_error(error):
    """The decision attempt a NoValidHost carries, or None."""
    kwargs = getattr(error, 'kwargs', None) or {}
    return decision.loads(kwargs.get('decision'))


def _action_id(cctxt, instance_uuid):
    try:
        return instance_api.action_get_by_request_id(
            cctxt, instance_uuid, cctxt.request_id).id
    except exception.InstanceActionNotFound:
        return None


def _event(cctxt, instance_uuid, event, summary, result='Success',
           action_id=None):
    objects.InstanceActionEvent.event_record(
        cctxt, instance_uuid, event, host=CONF.host, result=result,
        details=summary, action_id=action_id)


@db_transaction.retry_on_transient
def _store(cctxt, values, event):
    """The decision row and, with the action known, its event in one
    transaction (the event of an unknown action in its own, after: its
    failure leaves the decision stored)."""
    instance_uuid, action_id = values['instance_uuid'], values['action_id']
    with db_transaction.cell_writing(cctxt):
        decision_api.decision_create(cctxt, values)
        if event and action_id is not None:
            _event(cctxt, instance_uuid, event, values['summary'],
                   action_id=action_id)
    if event and action_id is None:
        _event(cctxt, instance_uuid, event, values['summary'])


def store(cctxt, instance_uuid, attempt, kind, event=None, action_id=None):
    """Store ``attempt`` as a new record of the current action; with
    ``event``, also record that event with the summary as details.
    ``action_id``: the current action's, when the caller has it (saves a
    read). Returns the summary (None when there was nothing to store)."""
    if attempt is None:
        return None
    attempt['kind'] = kind
    summary = decision.summary(attempt)
    try:
        if action_id is None:
            action_id = _action_id(cctxt, instance_uuid)
        _store(cctxt, {
            'instance_uuid': instance_uuid, 'kind': kind,
            'action_id': action_id,
            'request_id': cctxt.request_id, 'summary': summary,
            'record': decision.dumps(decision.bound(
                {'attempts': [attempt]}))}, event)
    except Exception as err:  # noqa: BLE001 - a record never fails a build
        LOG.warning('Scheduling decision of instance %s not stored: %s',
                    instance_uuid, err)
        return None
    LOG.info('Scheduling decision of instance %s: %s', instance_uuid,
             summary)
    return summary


def store_selection(cctxt, instance_uuid, selection, kind, event=None,
                    action_id=None):
    return store(cctxt, instance_uuid, attempt_of_selection(selection),
                 kind, event, action_id=action_id)


def reschedule_attempt(number, previous_error, failed, picked, rest):
    """The attempt a cell conductor's reschedule adds.

    :param failed: Selections whose claim placement refused.
    :param picked: the Selection claimed, or None.
    :param rest: the alternates left.
    """
    def name(sel):
        return {'host': sel.service_host, 'node': sel.nodename}
    attempt = {
        'source': 'reschedule', 'at': decision.utcnow_iso(),
        'attempt': number, 'previous_error': (previous_error or '')[:500],
        'failed_claims': [name(s) for s in failed][:decision.MAX_NAMED],
        'picked': name(picked) if picked is not None else None,
        'alternates': ['%s/%s' % (s.service_host, s.nodename)
                       for s in rest][:decision.MAX_NAMED],
        'num_alternates': len(rest),
        'result': 'selected' if picked is not None else 'NoValidHost'}
    if picked is None:
        attempt['reason'] = 'no alternate left that placement accepted'
    return attempt


def append(cctxt, instance_uuid, attempt, event=None):
    """Append ``attempt`` to the instance's latest record (a new record
    when it has none); record ``event`` with the summary as details."""
    summary = decision.summary(attempt)

    def _add(row):
        record = decision.loads(row.record) or {'attempts': []}
        record.setdefault('attempts', []).append(attempt)
        row.record = decision.dumps(decision.bound(record))
        row.summary = summary

    try:
        if not decision_api.decision_update_latest(cctxt, instance_uuid,
                                                   _add):
            decision_api.decision_create(cctxt, {
                'instance_uuid': instance_uuid, 'kind': 'boot',
                'action_id': _action_id(cctxt, instance_uuid),
                'request_id': cctxt.request_id, 'summary': summary,
                'record': decision.dumps({'attempts': [attempt]})})
        if event:
            _event(cctxt, instance_uuid, event, summary,
                   result='Success' if attempt.get('picked') else 'Error')
    except Exception as err:  # noqa: BLE001 - a record never fails a build
        LOG.warning('Reschedule decision of instance %s not stored: %s',
                    instance_uuid, err)
        return None
    LOG.info('Scheduling decision of instance %s: %s', instance_uuid,
             summary)
    return summary


def prune(cctxt):
    """Delete records past ``[conductor] scheduling_decision_max_age``."""
    max_age = CONF.conductor.scheduling_decision_max_age
    if not max_age:
        return 0
    count = decision_api.decisions_prune(cctxt, max_age)
    if count:
        LOG.info('Pruned %d scheduling decision records older than %d s',
                 count, max_age)
    return count


def get(cctxt, instance_uuid):
    """The instance's decision records, oldest first, as dicts
    (``kind``, ``summary``, ``created_at``, ``attempts``)."""
    result = []
    for row in decision_api.decisions_get(cctxt, instance_uuid):
        record = decision.loads(row.record) or {}
        result.append({
            'kind': row.kind, 'summary': row.summary,
            'request_id': row.request_id, 'action_id': row.action_id,
            'created_at': row.created_at.isoformat() if row.created_at
            else None,
            'attempts': record.get('attempts') or [],
            'dropped_attempts': record.get('dropped_attempts', 0)})
    return result


def select_and_store(scheduler_api, context, cctxt, spec, instance_uuid,
                     kind, return_alternates=False):
    """``select_destinations`` for one instance's move, its decision
    stored in the instance's cell (``cctxt``) whatever the outcome."""
    try:
        host_lists = scheduler_api.select_destinations(
            context, spec, [instance_uuid],
            return_alternates=return_alternates)
    except exception.NoValidHost as error:
        store(cctxt, instance_uuid, attempt_of_error(error), kind)
        raise
    if host_lists and host_lists[0]:
        store_selection(cctxt, instance_uuid, host_lists[0][0], kind)
    return host_lists


def describe_event(cctxt, instance_uuid, event):
    """Put the summary of the instance's latest decision in the details
    of ``event`` of the current action (a move's conductor event, which
    succeeded: a failed one says why in its details already)."""
    try:
        summary = None
        for row in decision_api.decisions_get(cctxt, instance_uuid):
            if row.request_id == cctxt.request_id:
                summary = row.summary
        if summary:
            decision_api.event_set_details(cctxt, instance_uuid, event,
                                           summary)
    except Exception as err:  # noqa: BLE001 - a record never fails a move
        LOG.warning('Decision summary of instance %s not recorded: %s',
                    instance_uuid, err)
