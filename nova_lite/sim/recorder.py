"""A workload trace recorded from a running cloud's compute API.

``sim record`` reads what was done to every server, deleted ones too,
from public routes of the compute API only (as an admin)::

    GET /                                       (the microversion served)
    GET /servers/detail?all_tenants=1           (and &deleted=True)
    GET /servers/{id}/os-instance-actions       (start_time of each action)
    GET /servers/{id}/os-instance-actions/{request id}   (events, hosts)
    GET /os-migrations?instance_uuid={id}       (resize or migration)
    GET /os-server-groups/{id}                  (the group's policy)
    GET /images/{id}                            (image properties, 2.35)

and writes one trace event per action that the scheduler decided:

- ``create`` at the ``create`` action's ``start_time``, with the server's
  flavor (its name), image properties, scheduler hints (2.100: the hints
  the server was booted with; ``same_host`` / ``different_host`` name
  servers, and trace ids are server uuids, so they stay valid), server
  group (its uuid and policy, 2.71), project and user;
- ``resize`` (with the new flavor) and ``migrate`` (cold or live) at
  their action's ``start_time``, for moves that were confirmed or
  completed; a reverted resize, a failed move and an evacuation leave the
  trace unchanged;
- ``delete`` at the ``delete`` action's ``start_time`` (a deleted
  server without one - deleted before it had a host - at its last
  ``updated`` time).

Times are seconds since the first recorded create. Each create also
carries ``observed``: where the cloud really put it (the host of the
build's compute event, the node from the server when it never moved), or
``{"result": "NoValidHost"}`` when it went to ERROR without a host; the
replay ignores it, a comparison of the replay with the cloud reads it.

The flavor a server was created with is its current flavor unless it was
resized: then it is the first resize's old flavor, when that flavor's id
can be matched to a name (a migration names flavors by database id, which
the flavors API does not show; the ids are learnt from servers whose
latest resize ended on their current flavor). A create whose flavor
cannot be told is recorded with its current flavor and ``"flavor_guess":
true``.
"""

import datetime

from oslo_utils import timeutils

from nova_lite.sim import importer

WANTED_VERSION = (2, 100)
MOVE_ACTIONS = {'resize': 'resize', 'migrate': 'migrate',
                'live-migration': 'migrate'}
DONE_MIGRATIONS = ('confirmed', 'completed', 'finished', 'done')
# Nova names the build's compute event compute__do_build_and_run_instance,
# nova_lite compute_build_and_run_instance.
BUILD_EVENT = 'build_and_run_instance'


def _version(text):
    major, minor = text.split('.')
    return int(major), int(minor)


def negotiate(url, token, session=None):
    """The compute microversion to read with: the server's maximum, at
    most 2.100 (``"2.1"`` for an API that names none)."""
    reader = importer._Reader(url, token, {}, session)
    body = reader.get(url.rstrip('/') + '/')
    found = (body.get('version') or {}).get('version') or '2.1'
    return '%d.%d' % min(_version(found), WANTED_VERSION)


def reader(url, token, version, session=None):
    return importer._Reader(url, token, {
        'OpenStack-API-Version': 'compute %s' % version,
        'X-OpenStack-Nova-API-Version': version}, session)


def _parse_time(text):
    when = timeutils.parse_isotime(text)
    return timeutils.normalize_time(when)


def list_servers(api):
    """Every server, live and deleted, once each, oldest first; a
    deleted one has ``deleted`` set."""
    found = {}
    for query, deleted in (('all_tenants=1', False),
                           ('all_tenants=1&deleted=True', True)):
        for server in api.pages('/servers/detail?' + query, 'servers'):
            if server['id'] not in found:
                found[server['id']] = dict(server, deleted=deleted)
    return sorted(found.values(), key=lambda s: (s.get('created') or '',
                                                 s['id']))


def server_actions(api, server_id):
    """The server's actions, oldest first, each with its events."""
    actions = api.get('/servers/%s/os-instance-actions' % server_id)[
        'instanceActions']
    detailed = []
    for action in actions:
        try:
            detail = api.get('/servers/%s/os-instance-actions/%s' % (
                server_id, action['request_id']))['instanceAction']
        except importer.SourceError:
            detail = action
        detailed.append(detail)
    return sorted(detailed, key=lambda a: a['start_time'])


def _build_host(action):
    """The host of the build's successful compute event (the last
    attempt: a rescheduled build has one event per host tried)."""
    hosts = [(e.get('result') == 'Success', e['host'])
             for e in sorted(action.get('events') or [],
                             key=lambda e: e.get('start_time') or '')
             if BUILD_EVENT in (e.get('event') or '') and e.get('host')]
    done = [host for ok, host in hosts if ok]
    return (done or [host for _ok, host in hosts] or [None])[-1]


class Recorder:
    """Reads a cloud's servers and writes them as trace events."""

    def __init__(self, api):
        self.api = api
        self._images = {}
        self._groups = {}
        self.flavor_ids = {}    # migration flavor id -> flavor name
        self.warnings = []

    def image_properties(self, image):
        image_id = image.get('id') if isinstance(image, dict) else None
        if not image_id:
            return {}
        if image_id not in self._images:
            props = {}
            try:
                meta = importer._Reader(
                    self.api.base, self.api.headers['X-Auth-Token'], {
                        'OpenStack-API-Version': 'compute 2.35',
                        'X-OpenStack-Nova-API-Version': '2.35'},
                    self.api.session).get('/images/%s' % image_id)
                props = {k: v for k, v in (meta['image'].get('metadata')
                                           or {}).items()
                         if k.startswith(('hw_', 'img_', 'os_',
                                          'trait:', 'traits:'))}
            except (importer.SourceError, KeyError):
                pass    # the image is gone, or no image proxy
            self._images[image_id] = props
        return self._images[image_id]

    def server_group(self, server):
        groups = server.get('server_groups') or []
        if not groups:
            return None
        group_id = groups[0]
        if group_id not in self._groups:
            try:
                group = self.api.get('/os-server-groups/%s' % group_id)[
                    'server_group']
                policy = group.get('policy') or (
                    group.get('policies') or [None])[0]
            except (importer.SourceError, KeyError):
                policy = None
            self._groups[group_id] = {'id': group_id, 'policy': policy}
        return self._groups[group_id]

    def migrations(self, server_id):
        try:
            found = self.api.get('/os-migrations?instance_uuid=%s'
                                 % server_id)['migrations']
        except importer.SourceError:
            return []
        return sorted(found, key=lambda m: m.get('created_at') or '')

    def learn_flavor_ids(self, server, migrations):
        """Migration flavor ids named by this server's current flavor."""
        name = (server.get('flavor') or {}).get('original_name')
        done = [m for m in migrations if m['status'] in DONE_MIGRATIONS]
        if name and done:
            self.flavor_ids.setdefault(done[-1]['new_instance_type_id'],
                                       name)

    def events_of(self, server, actions, migrations):
        """The trace events of one server (times absolute, datetimes)."""
        flavor = server.get('flavor') or {}
        current = flavor.get('original_name') or flavor.get('id')
        resizes = [m for m in migrations
                   if m['status'] in DONE_MIGRATIONS and
                   m['old_instance_type_id'] != m['new_instance_type_id']]
        events = []
        moves = [a for a in actions if a['action'] in MOVE_ACTIONS]
        moved = bool(moves)
        create_flavor, guess = current, False
        if resizes:
            create_flavor = self.flavor_ids.get(
                resizes[0]['old_instance_type_id'])
            if create_flavor is None:
                create_flavor, guess = current, True
        done_moves = [m for m in migrations
                      if m['status'] in DONE_MIGRATIONS and
                      m.get('migration_type') in (None, 'resize',
                                                  'migration',
                                                  'live-migration')]
        for action in actions:
            when = _parse_time(action['start_time'])
            if action['action'] == 'create':
                event = {'when': when, 'action': 'create',
                         'id': server['id'], 'flavor': create_flavor,
                         'project': server.get('tenant_id'),
                         'user': server.get('user_id')}
                if guess:
                    event['flavor_guess'] = True
                props = self.image_properties(server.get('image'))
                if props:
                    event['image_properties'] = props
                hints = server.get('scheduler_hints') or {}
                if hints:
                    event['hints'] = hints
                group = self.server_group(server)
                if group:
                    event['server_group'] = group
                event['observed'] = self._observed(server, action, moved)
                events.append(event)
            elif action['action'] in MOVE_ACTIONS:
                migration = self._migration_for(done_moves, when)
                if migration is None:
                    continue   # reverted, failed, or not found
                done_moves.remove(migration)
                kind = MOVE_ACTIONS[action['action']]
                event = {'when': when, 'action': kind, 'id': server['id'],
                         'observed': {
                             'host': migration.get('dest_compute'),
                             'node': migration.get('dest_node')}}
                if kind == 'resize':
                    name = self.flavor_ids.get(
                        migration['new_instance_type_id'])
                    if name is None:
                        self.warnings.append(
                            'server %s: a resize to an unknown flavor '
                            '(id %s) is left out' % (
                                server['id'],
                                migration['new_instance_type_id']))
                        continue
                    event['flavor'] = name
                events.append(event)
            elif action['action'] == 'delete':
                events.append({'when': when, 'action': 'delete',
                               'id': server['id']})
        if server.get('deleted') and server.get('updated') and not any(
                e['action'] == 'delete' for e in events):
            # NOTE(sim): a server deleted before it had a host (one that
            # went to ERROR, say) may have no delete action: its last
            # update is when it went.
            events.append({'when': _parse_time(server['updated']),
                           'action': 'delete', 'id': server['id']})
        return events

    @staticmethod
    def _migration_for(migrations, when):
        """The first completed migration created at or after ``when``
        (within a minute: the action comes first)."""
        for migration in migrations:
            created = _parse_time(migration['created_at'])
            if created >= when - datetime.timedelta(seconds=1) and \
                    created - when <= datetime.timedelta(minutes=1):
                return migration
        return None

    @staticmethod
    def _observed(server, action, moved):
        host = _build_host(action)
        if host is None and not moved:
            host = server.get('OS-EXT-SRV-ATTR:host')
        if host is None:
            # Never on a host: the scheduler found none (the server went
            # to ERROR in cell0).
            return {'result': 'NoValidHost'}
        observed = {'result': 'placed', 'host': host}
        if not moved and server.get('OS-EXT-SRV-ATTR:hypervisor_hostname'):
            observed['node'] = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        return observed

    def record(self, since=None):
        """The trace: every recorded event, ``time`` in seconds since the
        first create, in time order (ties: creates before moves before
        deletes of the same instant, then by server)."""
        servers = list_servers(self.api)
        per_server = []
        for server in servers:
            actions = server_actions(self.api, server['id'])
            migrations = self.migrations(server['id']) if any(
                a['action'] in MOVE_ACTIONS for a in actions) else []
            self.learn_flavor_ids(server, migrations)
            per_server.append((server, actions, migrations))
        events = []
        for server, actions, migrations in per_server:
            events.extend(self.events_of(server, actions, migrations))
        if since is not None:
            events = [e for e in events if e['when'] >= since]
        creates = {e['id'] for e in events if e['action'] == 'create'}
        # A trace starts with each server's create: moves and deletes of
        # servers created before the window are left out.
        events = [e for e in events if e['id'] in creates]
        if not events:
            return []
        start = min(e['when'] for e in events)
        order = {'create': 0, 'resize': 1, 'migrate': 1, 'delete': 2}
        events.sort(key=lambda e: (e['when'], order[e['action']]))
        for event in events:
            event['time'] = round(
                (event.pop('when') - start).total_seconds(), 6)
            for key in [k for k, v in event.items() if v is None]:
                del event[key]
        return events


def record(compute_url, token, session=None, since=None):
    """``(events, warnings)`` of the cloud behind ``compute_url``."""
    version = negotiate(compute_url, token, session)
    rec = Recorder(reader(compute_url, token, version, session))
    return rec.record(since), rec.warnings
