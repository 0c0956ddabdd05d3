"""Cell database API: instances, their faults and actions.

Same conventions as :mod:`nova_lite.db.cell.api`: a RequestContext picks
the cell (``context.db_connection``, else ``[database]``), writes are whole
retried transactions, rows come back detached and fully loaded. Instances,
faults and actions are soft-deleted; ``context.read_deleted`` ('no',
'yes', 'only') decides what reads see. Migrations are in
:mod:`nova_lite.db.cell.migration_api`.

Updates of an instance can be conditional, as Nova's ``instance.save(
expected_task_state=...)``: the UPDATE only applies when the row is still
in the expected state, so two services racing on one instance cannot both
win (UnexpectedTaskStateError / UnexpectedVMStateError for the loser).
"""

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.cell import api as cell_api
from nova_lite.db.cell import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite.db import types
from nova_lite import exception

_writer = cell_api._writer
_reader = cell_api._reader
_filter_deleted = cell_api.filter_deleted

# Filters of instance_get_all_by_filters that match a column exactly (a list
# value means "any of").
_EXACT_FILTERS = ('uuid', 'project_id', 'user_id', 'host', 'node',
                  'vm_state', 'task_state', 'reservation_id', 'image_ref',
                  'availability_zone', 'instance_type_id', 'compute_id',
                  'key_name', 'locked', 'hidden', 'launched_on')


def _instance_values(values):
    """Accept ``metadata`` for the ``metadata_`` attribute."""
    values = dict(values)
    if 'metadata' in values:
        values['metadata_'] = values.pop('metadata')
    return values


# -- instances --------------------------------------------------------------

def _insert_instance(context, instance, *rows):
    """Insert ``instance`` and ``rows`` in one transaction."""
    try:
        with _writer(context) as s:
            s.add(instance)
            s.add_all(rows)
            s.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.InstanceExists(uuid=instance.uuid)


def _instance_row(values):
    values = _instance_values(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    instance = models.Instance()
    instance.update(values)
    return instance


@session.retry_on_transient
def instance_create(context, values):
    """Insert an instance (``uuid`` defaults to a new one)."""
    instance = _instance_row(values)
    _insert_instance(context, instance)
    return instance


@session.retry_on_transient
def instance_create_with_action(context, values, action):
    """Insert an instance and the start of its first action (a build's
    ``create``) in one transaction; (instance, action) rows."""
    instance = _instance_row(values)
    action_row = _action_row(context, {'instance_uuid': instance.uuid,
                                       'action': action})
    _insert_instance(context, instance, action_row)
    return instance, action_row


def _instance_get(s, context, instance_uuid):
    query = _filter_deleted(sa.select(models.Instance), models.Instance,
                            context).where(
        models.Instance.uuid == instance_uuid)
    instance = s.scalars(query).first()
    if instance is None:
        raise exception.InstanceNotFound(instance_id=instance_uuid)
    return instance


@session.retry_on_transient
def instance_get_by_uuid(context, instance_uuid):
    """The instance ``instance_uuid`` (InstanceNotFound)."""
    with _reader(context) as s:
        return _instance_get(s, context, instance_uuid)


# Server tag filters (lists of tags): all of / any of / not all of / none.
_TAG_FILTERS = ('tags', 'tags-any', 'not-tags', 'not-tags-any')


def tags_match(tags, tag_filters):
    """Whether ``tags`` pass Nova's four tag filters."""
    have = set(tags or ())
    checks = {'tags': lambda wanted: wanted <= have,
              'tags-any': lambda wanted: bool(wanted & have),
              'not-tags': lambda wanted: not wanted <= have,
              'not-tags-any': lambda wanted: not wanted & have}
    return all(checks[key](set(value))
               for key, value in tag_filters.items())


@session.retry_on_transient
def _sort_column(model, key, dialect):
    """The column ``key`` as a sort compares it: strings by code point
    on MySQL too (its default collation ignores case), so that every cell
    orders as the API merges (Python's order)."""
    column = getattr(model, key)
    if dialect == 'mysql' and isinstance(column.type, sa.String):
        return sa.func.binary(column, type_=column.type)
    return column


def _after(columns, values):
    """Rows after ``values`` in the order of ``columns`` ([(column,
    direction)]), NULL the smallest value (as MySQL and SQLite sort it):
    a keyset page's condition."""
    alternatives = []
    for index, (column, direction) in enumerate(columns):
        value = values[index]
        if direction == 'asc':
            beyond = column.is_not(None) if value is None else column > value
        else:
            beyond = sa.false() if value is None else sa.or_(
                column < value, column.is_(None))
        equal = [c.is_(None) if v is None else c == v
                 for (c, _d), v in zip(columns[:index], values[:index],
                                             strict=True)]
        alternatives.append(sa.and_(*equal, beyond))
    return sa.or_(*alternatives)


def instance_get_all_by_filters(context, filters=None, sort_keys=None,
                                limit=None, marker=None, after=None):
    """Instances matching ``filters`` (exact matches, lists mean any of).

    ``deleted`` (bool) in filters overrides ``context.read_deleted``;
    ``changes-since`` and ``changes-before`` (datetimes) keep rows
    updated in that window, deleted ones too unless ``deleted`` is
    given (Nova's list of recent changes shows deletions);
    ``name`` a regular expression the display name matches;
    ``touched-since`` those created or updated since then (an instance
    created in its final state has no ``updated_at``); ``before``
    (``(created_at, uuid)``) those after that key in newest-first order
    (keyset paging: sort by created_at then uuid). Sorted by
    ``sort_keys`` (default created_at then id, newest first; a key alone
    sorts descending, a ``(key, 'asc'|'desc')`` pair as it says);
    ``after``: the values of the sort keys of a row, only the rows after
    it in that order (keyset paging for any order); ``marker`` is
    the uuid of the last instance of the previous page. Without tag
    filters or ``marker`` the ``limit`` is the query's.
    """
    filters = dict(filters or {})
    model = models.Instance
    query = sa.select(model)
    deleted = filters.pop('deleted', None)
    since = filters.pop('changes-since', None)
    until = filters.pop('changes-before', None)
    if deleted is not None:
        query = query.where(model.deleted != 0 if deleted
                            else model.deleted == 0)
    elif since is None and until is None:
        query = _filter_deleted(query, model, context)
    if since is not None:
        query = query.where(model.updated_at >= since)
    if until is not None:
        query = query.where(model.updated_at <= until)
    before = filters.pop('before', None)
    if before is not None:
        created, uuid = before
        query = query.where(sa.or_(
            model.created_at < created,
            sa.and_(model.created_at == created, model.uuid < uuid)))
    name = filters.pop('name', None)
    touched = filters.pop('touched-since', None)
    if touched is not None:
        query = query.where(sa.or_(model.created_at >= touched,
                                   model.updated_at >= touched))
    for key in _EXACT_FILTERS:
        if key in filters:
            value = filters[key]
            column = getattr(model, key)
            query = query.where(column.in_(value) if isinstance(
                value, (list, tuple, set)) else column == value)
    tag_filters = {k: filters.pop(k) for k in _TAG_FILTERS if k in filters}
    keys = [(k, 'desc') if isinstance(k, str) else tuple(k)
            for k in sort_keys or ['created_at', 'id']]
    if limit is not None and not tag_filters and marker is None:
        query = query.limit(limit)
    with _reader(context) as s:
        dialect = s.get_bind().dialect.name
        columns = [(_sort_column(model, key, dialect), direction)
                   for key, direction in keys]
        if after is not None:
            query = query.where(_after(columns, after))
        if name:
            # NOTE(nova_lite): a regular expression, as Nova (REGEXP on
            # MySQL, Python's re.search on SQLite); case-sensitive on
            # MariaDB too, as the API matches build requests.
            query = query.where(_sort_column(
                model, 'display_name', dialect).regexp_match(name))
        query = query.order_by(*[
            column.asc() if direction == 'asc' else column.desc()
            for column, direction in columns])
        rows = list(s.scalars(query))
    if tag_filters:
        rows = [r for r in rows if tags_match((r.extra or {}).get('tags'),
                                              tag_filters)]
    if marker is not None:
        uuids = [r.uuid for r in rows]
        if marker not in uuids:
            raise exception.NotFound('Marker %s could not be found.' % marker)
        rows = rows[uuids.index(marker) + 1:]
    return rows[:limit] if limit is not None else rows


def instance_get_active_by_window(context, begin, end=None,
                                  project_id=None, limit=None, marker=None,
                                  host=None):
    """Instances (deleted ones too) launched before ``end`` and not
    terminated before ``begin``, ordered by project and uuid, after the
    instance ``marker`` (MarkerNotFound when it does not exist)."""
    model = models.Instance
    query = sa.select(model).where(sa.or_(model.terminated_at.is_(None),
                                          model.terminated_at > begin))
    if end is not None:
        query = query.where(model.launched_at < end)
    if project_id is not None:
        query = query.where(model.project_id == project_id)
    if host is not None:
        query = query.where(model.host == host)
    query = query.order_by(model.project_id, model.uuid)
    with _reader(context) as s:
        if marker is not None:
            row = s.scalars(sa.select(model).where(
                model.uuid == marker)).first()
            if row is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(sa.or_(
                model.project_id > row.project_id,
                sa.and_(model.project_id == row.project_id,
                        model.uuid > row.uuid)))
        if limit is not None:
            query = query.limit(limit)
        return list(s.scalars(query))


def instance_get_all_by_host(context, host, node=None):
    """Live instances on ``host`` (and ``node`` when given)."""
    filters = {'host': host}
    if node is not None:
        filters['node'] = node
    return instance_get_all_by_filters(context, filters, sort_keys=['id'])


@session.retry_on_transient
def instance_count_by_host(context, host):
    """How many live instances ``host`` runs."""
    with _reader(context) as s:
        return s.scalar(sa.select(sa.func.count()).where(
            models.Instance.host == host, models.Instance.deleted == 0))


def instance_counts_statement(context, project_id, user_id=None):
    """The aggregate query of :func:`instance_counts`: every column it
    reads is in the ``project_id, deleted, user_id, vm_state, vcpus,
    memory_mb`` index, so no instance row is read (the whole project
    otherwise, on every server create)."""
    model = models.Instance
    query = _filter_deleted(sa.select(
        sa.func.count(model.id),
        sa.func.coalesce(sa.func.sum(model.vcpus), 0),
        sa.func.coalesce(sa.func.sum(model.memory_mb), 0)).where(
            model.project_id == project_id,
            sa.or_(model.vm_state.is_(None),
                   model.vm_state != 'soft-delete')), model, context)
    if user_id:
        query = query.where(model.user_id == user_id)
    return query


@session.retry_on_transient
def instance_counts(context, project_id, user_id=None):
    """{'instances', 'cores', 'ram'} of the project's (user's) live
    instances, soft-deleted ones left out (a restore checks the quota
    again), as Nova: one aggregate query."""
    query = instance_counts_statement(context, project_id, user_id)
    with _reader(context) as s:
        count, cores, ram = s.execute(query).one()
    return {'instances': int(count), 'cores': int(cores), 'ram': int(ram)}


def _check_expected(instance, expected, field, error):
    if expected is None:
        return
    allowed = expected if isinstance(expected, (list, tuple, set)) else [
        expected]
    actual = getattr(instance, field)
    if actual not in allowed:
        raise error(instance_uuid=instance.uuid, expected=list(allowed),
                    actual=actual)


@session.retry_on_transient
def instance_update(context, instance_uuid, values,
                    expected_task_state=None, expected_vm_state=None):
    """Update an instance, only if it is still in the expected states.

    ``expected_*`` take a value or a list of values (``None`` among them
    allowed); omitted means "any".
    """
    values = _instance_values(values)
    with _writer(context) as s:
        query = sa.select(models.Instance).where(
            models.Instance.uuid == instance_uuid,
            models.Instance.deleted == 0).with_for_update()
        instance = s.scalars(query).first()
        if instance is None:
            raise exception.InstanceNotFound(instance_id=instance_uuid)
        _check_expected(instance, expected_task_state, 'task_state',
                        exception.UnexpectedTaskStateError)
        _check_expected(instance, expected_vm_state, 'vm_state',
                        exception.UnexpectedVMStateError)
        instance.update(values)
        s.flush()
    return instance


def _update_live(context, instance_uuid, values):
    """``values`` written on the live row of ``instance_uuid`` (and its
    ``updated_at``) in one UPDATE that reads nothing: InstanceNotFound
    when there is no such row."""
    with _writer(context) as s:
        written = s.execute(sa.update(models.Instance).where(
            models.Instance.uuid == instance_uuid,
            models.Instance.deleted == 0).values(
            _instance_values(values)).execution_options(
            synchronize_session=False)).rowcount
    if not written:
        raise exception.InstanceNotFound(instance_id=instance_uuid)


@session.retry_on_transient
def instance_task_state_set(context, instance_uuid, task_state):
    """Set a live instance's task state from any state, reading nothing
    (see :func:`_update_live`): what a caller done with the row writes,
    such as a delete cast to its compute, which reads the instance
    again."""
    _update_live(context, instance_uuid, {'task_state': task_state})


@session.retry_on_transient
def instance_destroy(context, instance_uuid, values=None, read_back=True):
    """Soft-delete an instance, ``values`` written in the same UPDATE (a
    terminate's last state); returns the deleted row, or (``read_back``
    False) nothing: then the UPDATE is the only statement."""
    if not read_back:
        _update_live(context, instance_uuid, dict(
            values or {}, deleted=models.Instance.id,
            deleted_at=types.utcnow()))
        return None
    with _writer(context) as s:
        instance = _instance_get(s, context, instance_uuid)
        if instance.deleted:
            raise exception.InstanceNotFound(instance_id=instance_uuid)
        if values:
            instance.update(_instance_values(values))
        instance.deleted = instance.id
        instance.deleted_at = types.utcnow()
        s.flush()
    return instance


# -- faults -----------------------------------------------------------------

@session.retry_on_transient
def instance_fault_create(context, values):
    """Record a fault (``instance_uuid``, ``code``, ``message``, ...)."""
    fault = models.InstanceFault()
    fault.update(values)
    with _writer(context) as s:
        s.add(fault)
        s.flush()
    return fault


@session.retry_on_transient
def instance_fault_get_by_instance_uuids(context, instance_uuids,
                                         latest=False):
    """{instance_uuid: [faults, newest first]} (only the newest if latest)."""
    result = {uuid: [] for uuid in instance_uuids}
    if not instance_uuids:
        return result
    query = sa.select(models.InstanceFault).where(
        models.InstanceFault.instance_uuid.in_(list(instance_uuids)),
        models.InstanceFault.deleted == 0).order_by(
        models.InstanceFault.created_at.desc(),
        models.InstanceFault.id.desc())
    with _reader(context) as s:
        for fault in s.scalars(query):
            faults = result[fault.instance_uuid]
            if not (latest and faults):
                faults.append(fault)
    return result


# -- actions and events -----------------------------------------------------

def _action_row(context, values):
    values = dict(values)
    values.setdefault('request_id', context.request_id)
    values.setdefault('user_id', context.user_id)
    values.setdefault('project_id', context.project_id)
    values.setdefault('start_time', types.utcnow())
    action = models.InstanceAction()
    action.update(values)
    return action


@session.retry_on_transient
def action_start(context, values):
    """Record the start of an action (``action``, ``instance_uuid``, ...)."""
    action = _action_row(context, values)
    with _writer(context) as s:
        s.add(action)
        s.flush()
    return action


def _latest_action(what, instance_uuid, request_id):
    """A select of ``what`` (the action or one of its columns) from the
    latest action of ``instance_uuid`` for ``request_id``."""
    return sa.select(what).where(
        models.InstanceAction.instance_uuid == instance_uuid,
        models.InstanceAction.request_id == request_id).order_by(
        models.InstanceAction.id.desc()).limit(1)


def _action_get(s, instance_uuid, request_id):
    return rows.first_or_raise(
        s, _latest_action(models.InstanceAction, instance_uuid, request_id),
        exception.InstanceActionNotFound(request_id=request_id,
                                         instance_uuid=instance_uuid))


def _action_id(s, instance_uuid, request_id):
    """The id of the request's action (as :func:`_action_get` finds it),
    one column read: an event's start or finish needs nothing else."""
    return rows.first_or_raise(
        s, _latest_action(models.InstanceAction.id, instance_uuid,
                          request_id),
        exception.InstanceActionNotFound(request_id=request_id,
                                         instance_uuid=instance_uuid))


@session.retry_on_transient
def action_finish(context, instance_uuid, request_id=None, message=None):
    """Stamp the finish time (and message) of the request's action."""
    with _writer(context) as s:
        action = _action_get(s, instance_uuid,
                             request_id or context.request_id)
        action.finish_time = types.utcnow()
        if message is not None:
            action.message = message
        s.flush()
    return action


@session.retry_on_transient
def action_get_by_request_id(context, instance_uuid, request_id):
    with _reader(context) as s:
        return _action_get(s, instance_uuid, request_id)


@session.retry_on_transient
def actions_get(context, instance_uuid):
    """The instance's actions, newest first."""
    with _reader(context) as s:
        return list(s.scalars(sa.select(models.InstanceAction).where(
            models.InstanceAction.instance_uuid == instance_uuid).order_by(
            models.InstanceAction.created_at.desc(),
            models.InstanceAction.id.desc())))


@session.retry_on_transient
def action_event_start(context, instance_uuid, event, host=None,
                       request_id=None, read_back=True):
    """Start ``event`` under the request's action on the instance: its
    row, or (``read_back`` False) nothing: then one INSERT, no row
    object."""
    values = {'event': event, 'host': host, 'start_time': types.utcnow()}
    with _writer(context) as s:
        values['action_id'] = _action_id(s, instance_uuid,
                                         request_id or context.request_id)
        if not read_back:
            s.execute(sa.insert(models.InstanceActionEvent).values(values))
            return None
        row = models.InstanceActionEvent(**values)
        s.add(row)
        s.flush()
    return row


@session.retry_on_transient
def action_event_finish(context, instance_uuid, event, result='Success',
                        traceback=None, details=None, request_id=None,
                        read_back=True):
    """Finish ``event``; an 'Error' result also marks the action failed.
    The event's row, or (``read_back`` False) nothing: then only its id
    is read."""
    event_table = models.InstanceActionEvent
    with _writer(context) as s:
        action_id = _action_id(s, instance_uuid,
                               request_id or context.request_id)
        row = s.scalars(sa.select(
            event_table if read_back else event_table.id).where(
            event_table.action_id == action_id,
            event_table.event == event).order_by(
            event_table.id.desc()).limit(1)).first()
        if row is None:
            raise exception.InstanceActionEventNotFound(
                event=event, action_id=action_id)
        values = {'finish_time': types.utcnow(), 'result': result,
                  'traceback': traceback, 'details': details}
        if read_back:
            row.update(values)
        else:
            s.execute(sa.update(event_table).where(
                event_table.id == row).values(values).execution_options(
                synchronize_session=False))
        if result.lower() == 'error':
            s.execute(sa.update(models.InstanceAction).where(
                models.InstanceAction.id == action_id).values(
                message='Error'))
        s.flush()
    return row if read_back else None


@session.retry_on_transient
def action_event_record(context, instance_uuid, event, host=None,
                        result='Success', details=None, request_id=None,
                        action_id=None):
    """Record ``event`` started and finished now, in one transaction (a
    step the caller did already, such as the super conductor's
    scheduling); an 'Error' result also marks the action failed.
    ``action_id``: the request's action, when the caller has it (a
    success then reads nothing)."""
    now = types.utcnow()
    error = result.lower() == 'error'
    with _writer(context) as s:
        if action_id is None or error:
            action = _action_get(s, instance_uuid,
                                 request_id or context.request_id)
            action_id = action.id
        row = models.InstanceActionEvent(
            event=event, action_id=action_id, host=host, start_time=now,
            finish_time=now, result=result, details=details)
        s.add(row)
        if error:
            action.message = 'Error'
        s.flush()
    return row


@session.retry_on_transient
def action_events_get(context, action_id):
    with _reader(context) as s:
        return list(s.scalars(sa.select(models.InstanceActionEvent).where(
            models.InstanceActionEvent.action_id == action_id).order_by(
            models.InstanceActionEvent.id)))
