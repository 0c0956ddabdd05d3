"""Glance's metadata definitions (metadefs): their store and rules.

A namespace, with its properties, objects, tags and resource type
associations, is one JSON file under ``[image_catalog]
store_path``/``metadefs``, written whole by a rename under a lock file,
so every API worker sees the same definitions. The store is seeded with
:mod:`nova_lite.image.metadef_defaults` the first time it is used, as a
fresh Glance loads its namespaces. Public namespaces are seen by
everyone, private ones by their owner and admins; only admins change
them (the handlers' policy), and a protected namespace is not deleted.
"""

import contextlib
import fcntl
import json
import os
import urllib.parse

from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite.image import metadef_defaults

VISIBILITIES = ('public', 'private')


class NotFound(Exception):
    pass


class Exists(Exception):
    pass


def _directory(conf):
    return os.path.join(conf.image_catalog.store_path, 'metadefs')


def _file(conf, name):
    return os.path.join(_directory(conf),
                        urllib.parse.quote(name, safe='') + '.json')


def now():
    return timeutils.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ')


@contextlib.contextmanager
def locked(conf):
    """The store, seeded if new, held against other writers."""
    directory = _directory(conf)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, '.lock'), 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            _seed(conf)
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _seed(conf):
    marker = os.path.join(_directory(conf), '.seeded')
    if os.path.exists(marker):
        return
    for namespace in metadef_defaults.NAMESPACES:
        record = stamped(dict(namespace, visibility='public',
                              protected=True, owner=None))
        if not os.path.exists(_file(conf, record['namespace'])):
            write(conf, record)
    with open(marker, 'w'):
        pass


def stamped(record):
    """A new namespace record with its times and empty parts."""
    when = now()
    record = dict(record)
    record.setdefault('created_at', when)
    record['updated_at'] = record.get('updated_at') or when
    for key, empty in (('properties', {}), ('objects', []), ('tags', []),
                       ('resource_type_associations', [])):
        record.setdefault(key, empty)
    for item in record['objects'] + record['tags'] + \
            record['resource_type_associations']:
        item.setdefault('created_at', when)
        item.setdefault('updated_at', when)
    return record


def write(conf, record):
    final = _file(conf, record['namespace'])
    partial = '%s.%s.part' % (final, uuidutils.generate_uuid())
    with open(partial, 'w') as out:
        json.dump(record, out)
    os.replace(partial, final)


def remove(conf, name):
    try:
        os.unlink(_file(conf, name))
    except FileNotFoundError:
        raise NotFound(name)


def read(conf, name):
    try:
        with open(_file(conf, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        raise NotFound(name)


def all_namespaces(conf):
    names = [n[:-len('.json')] for n in os.listdir(_directory(conf))
             if n.endswith('.json')]
    found = []
    for quoted in sorted(names):
        try:
            found.append(read(conf, urllib.parse.unquote(quoted)))
        except NotFound:
            continue
    return found


def can_see(context, record):
    return context.is_admin or record['visibility'] == 'public' or (
        record.get('owner') and record['owner'] == context.project_id)


def resource_types(conf):
    """Every resource type: the known ones and any associated."""
    names = set(metadef_defaults.RESOURCE_TYPES)
    for record in all_namespaces(conf):
        names.update(a['name'] for a in
                     record['resource_type_associations'])
    return sorted(names)
