"""Glance's tasks: the record of each image import.

A task is a small JSON file under ``[image_catalog] store_path``
(``tasks/<id>.json``), next to the data it describes, written whole by a
rename, so every API worker of the lab sees the same tasks and an import
thread's progress is visible to whichever worker answers ``GET
/v2/tasks/{id}``. Tasks expire as Glance's do (48 hours after they end)
and are pruned when tasks are listed.
"""

import datetime
import json
import os

from oslo_utils import timeutils
from oslo_utils import uuidutils

TIME_TO_LIVE = datetime.timedelta(hours=48)
STATUSES = ('pending', 'processing', 'success', 'failure')


def _directory(conf):
    return os.path.join(conf.image_catalog.store_path, 'tasks')


def _path(conf, task_id):
    if not uuidutils.is_uuid_like(task_id):
        raise KeyError(task_id)
    return os.path.join(_directory(conf), '%s.json' % task_id)


def _now():
    return timeutils.utcnow().strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def _write(conf, task):
    os.makedirs(_directory(conf), exist_ok=True)
    final = _path(conf, task['id'])
    partial = '%s.%s.part' % (final, uuidutils.generate_uuid())
    with open(partial, 'w') as out:
        json.dump(task, out)
    os.replace(partial, final)


def create(conf, context, task_type, task_input, image_id=None):
    """A new ``pending`` task owned by the caller's project."""
    now = _now()
    task = {'id': uuidutils.generate_uuid(), 'type': task_type,
            'status': 'pending', 'input': task_input, 'result': None,
            'owner': context.project_id, 'message': '',
            'expires_at': None, 'created_at': now, 'updated_at': now,
            'image_id': image_id, 'request_id': context.request_id,
            'user_id': context.user_id}
    _write(conf, task)
    return task


def get(conf, task_id):
    """The task ``task_id`` (KeyError when there is none)."""
    try:
        with open(_path(conf, task_id)) as f:
            return json.load(f)
    except (OSError, ValueError):
        raise KeyError(task_id)


def update(conf, task_id, **values):
    """Write ``values`` into a task; a task that ends gets its expiry."""
    task = get(conf, task_id)
    task.update(values, updated_at=_now())
    if task['status'] in ('success', 'failure') and not task['expires_at']:
        task['expires_at'] = (timeutils.utcnow() + TIME_TO_LIVE).strftime(
            '%Y-%m-%dT%H:%M:%S.%fZ')
    _write(conf, task)
    return task


def _expired(task, now):
    expires = task.get('expires_at')
    return bool(expires) and timeutils.normalize_time(
        timeutils.parse_isotime(expires)) < now


def all_tasks(conf):
    """Every task not expired, newest first (expired ones removed)."""
    try:
        names = os.listdir(_directory(conf))
    except FileNotFoundError:
        return []
    now = timeutils.utcnow()
    found = []
    for name in names:
        if not name.endswith('.json'):
            continue
        try:
            task = get(conf, name[:-len('.json')])
        except KeyError:
            continue
        if _expired(task, now):
            _remove(_path(conf, task['id']))
        else:
            found.append(task)
    return sorted(found, key=lambda t: (t['created_at'], t['id']),
                  reverse=True)


def _remove(name):
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass


def view(task, with_image=False):
    """A task in Glance's representation; shown alone or in its image's
    tasks it also says which image and who asked (the listing of all
    tasks leaves that out)."""
    keys = ('id', 'type', 'status', 'input', 'result', 'owner', 'message',
            'expires_at', 'created_at', 'updated_at')
    body = {key: task[key] for key in keys}
    for key in ('expires_at', 'created_at', 'updated_at'):
        if body[key]:
            body[key] = body[key][:19] + 'Z'     # seconds, as Glance
    if body['expires_at'] is None:
        del body['expires_at']
    body.update(self='/v2/tasks/%s' % task['id'], schema='/v2/schemas/task')
    if with_image:
        body.update(image_id=task['image_id'],
                    request_id=task['request_id'],
                    user_id=task['user_id'])
    return body
