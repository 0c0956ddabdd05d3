"""Scheduling decisions of a cell's instances (``scheduling_decisions``).

One row per scheduled action of an instance (its boot, a resize ...): the
JSON record of :mod:`nova_lite.scheduler.decision` (``{"attempts":
[...]}``), the one-line summary of its last attempt, the action it belongs
to. A reschedule inside the cell appends its attempt to the instance's
latest row. Rows older than ``[conductor] scheduling_decision_max_age``
are deleted by the cell conductor's periodic task.
"""

import datetime

import sqlalchemy as sa

from nova_lite.db.cell import api as cell_api
from nova_lite.db.cell import models
from nova_lite.db import session
from nova_lite.db import types

_reader = cell_api._reader
_writer = cell_api._writer
_Row = models.SchedulingDecision


@session.retry_on_transient
def decision_create(context, values):
    """Insert a decision row (``instance_uuid``, ``record`` ...)."""
    row = _Row()
    row.update(values)
    with _writer(context) as s:
        s.add(row)
        s.flush()
    return row


def _latest(s, instance_uuid):
    return s.scalars(sa.select(_Row).where(
        _Row.instance_uuid == instance_uuid).order_by(
        _Row.id.desc())).first()


@session.retry_on_transient
def decision_update_latest(context, instance_uuid, update):
    """Apply ``update(row)`` to the instance's latest row in one
    transaction; False when the instance has none."""
    with _writer(context) as s:
        row = _latest(s, instance_uuid)
        if row is None:
            return False
        update(row)
        row.updated_at = types.utcnow()
        s.flush()
    return True


@session.retry_on_transient
def decisions_get(context, instance_uuid):
    """The instance's decision rows, oldest first."""
    with _reader(context) as s:
        return list(s.scalars(sa.select(_Row).where(
            _Row.instance_uuid == instance_uuid).order_by(_Row.id)))


@session.retry_on_transient
def decisions_summaries(context, instance_uuids):
    """``{instance uuid: summary of its latest decision}``."""
    result = {}
    if not instance_uuids:
        return result
    with _reader(context) as s:
        for uuid, summary in s.execute(sa.select(
                _Row.instance_uuid, _Row.summary).where(
                _Row.instance_uuid.in_(list(instance_uuids))).order_by(
                _Row.id)):
            result[uuid] = summary
    return result


@session.retry_on_transient
def decisions_prune(context, max_age_seconds):
    """Delete rows created more than ``max_age_seconds`` ago; the count."""
    cutoff = types.utcnow() - datetime.timedelta(seconds=max_age_seconds)
    with _writer(context) as s:
        result = s.execute(sa.delete(_Row).where(_Row.created_at < cutoff))
    return result.rowcount or 0


@session.retry_on_transient
def event_set_details(context, instance_uuid, event, details):
    """Set the ``details`` of the latest ``event`` of the instance's
    action of this request (no-op when there is none)."""
    action_t = models.InstanceAction
    event_t = models.InstanceActionEvent
    with _writer(context) as s:
        row = s.scalars(sa.select(event_t).join(
            action_t, action_t.id == event_t.action_id).where(
            action_t.instance_uuid == instance_uuid,
            action_t.request_id == context.request_id,
            event_t.event == event).order_by(event_t.id.desc())).first()
        if row is None:
            return False
        row.details = details
        s.flush()
    return True
