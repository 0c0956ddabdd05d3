"""``/servers/{id}/migrations``: a server's in-progress live migrations.

Admins only, as Nova's defaults:

* ``GET`` (2.23) lists the live migrations still ``queued``,
  ``preparing``, ``running`` or ``post-migrating``; ``GET .../{mid}``
  shows one (404 when it is not one of those);
* ``DELETE .../{mid}`` (2.24) aborts one: 409 when the server is not
  migrating, 400 when the migration is past aborting: ``queued`` and
  ``preparing`` ones are abortable from 2.65 (before, Nova aborts only
  ``running`` ones, which nova_lite's drivers cannot stop: 400 at every
  version);
* ``POST .../{mid}/action {"force_complete": null}`` (2.22) finishes a
  ``running`` one now (400 otherwise, 409 when the server is not
  migrating).

2.59 adds ``uuid``, 2.80 ``user_id`` and ``project_id`` to the view.
"""

import webob.exc

from nova_lite.api.compute import live as compute_live
from nova_lite.api import microversion
from nova_lite.api.handlers import servers
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import cells
from nova_lite import exception
from nova_lite import objects

FORCE_COMPLETE = {'type': 'object',
                  'properties': {'force_complete': {'type': 'null'}},
                  'required': ['force_complete'],
                  'additionalProperties': False}


def _view(req, migration):
    item = {'id': migration.id, 'server_uuid': migration.instance_uuid,
            'status': migration.status,
            'source_compute': migration.source_compute,
            'source_node': migration.source_node,
            'dest_compute': migration.dest_compute,
            'dest_host': migration.dest_host,
            'dest_node': migration.dest_node,
            'memory_total_bytes': migration.memory_total,
            'memory_processed_bytes': migration.memory_processed,
            'memory_remaining_bytes': migration.memory_remaining,
            'disk_total_bytes': migration.disk_total,
            'disk_processed_bytes': migration.disk_processed,
            'disk_remaining_bytes': migration.disk_remaining,
            'created_at': util.isotime_micro(migration.created_at),
            'updated_at': util.isotime_micro(migration.updated_at)}
    if microversion.at_least(req, '2.59'):
        item['uuid'] = migration.uuid
    if microversion.at_least(req, '2.80'):
        item['user_id'] = migration.user_id
        item['project_id'] = migration.project_id
    return item


def _require(req, version):
    if not microversion.at_least(req, version):
        raise webob.exc.HTTPNotFound('The resource could not be found.')


def _migration_id(req):
    """The id in the path; 404 unless an integer a migration can have
    (the database cannot even compare larger ones)."""
    value = req.urlvars['migration_id']
    try:
        migration_id = int(value)
    except ValueError:
        migration_id = None
    if migration_id is None or \
            not 1 <= migration_id <= compute_live.MAX_MIGRATION_ID:
        raise webob.exc.HTTPNotFound(
            'Migration %s could not be found.' % value)
    return migration_id


def _server(req, rule):
    server = servers.get_server(req, req.urlvars['server_id'], rule)
    if server.down:
        raise webob.exc.HTTPServiceUnavailable(
            'The cell of server %s does not answer.' % server.uuid)
    return server


def list_server_migrations(req):
    _require(req, '2.23')
    server = _server(req, 'servers:migrations:index')
    if server.cell is None:
        return util.json_response({'migrations': []})
    migrations = servers.compute(req).live_migrations_in_progress(
        util.context(req), server)
    return util.json_response({'migrations': [_view(req, m)
                                              for m in migrations]})


def show_server_migration(req):
    _require(req, '2.23')
    server = _server(req, 'servers:migrations:show')
    migration_id = _migration_id(req)
    migration = None
    if server.cell is not None:
        with cells.target_cell(util.context(req),
                               server.cell) as cctxt:
            try:
                migration = objects.Migration.get_by_id(cctxt, migration_id)
            except exception.MigrationNotFound:
                migration = None
    if migration is None or migration.instance_uuid != server.uuid:
        raise webob.exc.HTTPNotFound(
            'Migration %s could not be found for server %s.' % (
                migration_id, server.uuid))
    if migration.migration_type != 'live-migration':
        raise webob.exc.HTTPNotFound(
            'Migration %s for server %s is not live-migration.' % (
                migration_id, server.uuid))
    if migration.status not in compute_live.LIVE_IN_PROGRESS:
        raise webob.exc.HTTPNotFound(
            'Live migration %s for server %s is not in progress.' % (
                migration_id, server.uuid))
    return util.json_response({'migration': _view(req, migration)})


def delete_server_migration(req):
    _require(req, '2.24')
    server = _server(req, 'servers:migrations:delete')
    servers.compute(req).live_migration_abort(
        util.context(req), server, _migration_id(req),
        support_abort_in_queue=microversion.at_least(req, '2.65'))
    return util.no_content(202)


def server_migration_action(req):
    _require(req, '2.22')
    server = _server(req, 'servers:migrations:force_complete')
    validation.body(req, FORCE_COMPLETE)
    servers.compute(req).live_migration_force_complete(
        util.context(req), server, _migration_id(req))
    return util.no_content(202)
