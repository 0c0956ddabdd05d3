"""os-migrations (admins): migrations of every cell, newest first.

Filters: ``host`` (source or destination), ``status``,
``instance_uuid``, ``source_compute``, ``migration_type``, ``hidden``;
2.59 adds ``uuid``, paging (``limit``/``marker``) and ``changes-since``;
2.80 ``user_id``/``project_id``. An empty list is normal until moves
happen.
"""

from oslo_utils import timeutils
import webob.exc

from nova_lite import cells
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.objects import migration as migration_obj

_EXACT = ('status', 'instance_uuid', 'source_compute', 'migration_type')
_EXACT_V2_80 = ('user_id', 'project_id')


def _view(req, migration):
    item = {'id': migration.id, 'status': migration.status,
            'source_node': migration.source_node,
            'dest_node': migration.dest_node,
            'source_compute': migration.source_compute,
            'dest_compute': migration.dest_compute,
            'dest_host': migration.dest_host,
            'instance_uuid': migration.instance_uuid,
            'old_instance_type_id': migration.old_instance_type_id,
            'new_instance_type_id': migration.new_instance_type_id,
            'created_at': util.isotime_micro(migration.created_at),
            'updated_at': util.isotime_micro(migration.updated_at)}
    if microversion.at_least(req, '2.23'):
        item['migration_type'] = migration.migration_type
    if microversion.at_least(req, '2.59'):
        item['uuid'] = migration.uuid
    if microversion.at_least(req, '2.80'):
        item['user_id'] = migration.user_id
        item['project_id'] = migration.project_id
    return item


def _filters(req):
    names = _EXACT + (_EXACT_V2_80 if microversion.at_least(req, '2.80')
                      else ())
    filters = {name: req.GET[name] for name in names if name in req.GET}
    hidden = util.query_bool(req, 'hidden')
    filters['hidden'] = bool(hidden)
    return filters


def _since(req):
    value = req.GET.get('changes-since')
    if value is None or not microversion.at_least(req, '2.59'):
        return None
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for query parameters changes-since. Value: %s. '
            'Not a date-time.' % value)


def list_migrations(req):
    """GET /os-migrations."""
    context = util.context(req)
    policy.authorize(context, 'os-migrations:index')
    filters = _filters(req)
    results = cells.scatter_gather_all(
        context, migration_obj.MigrationList.get_by_filters, filters)
    migrations = [m for _cell, rows in cells.successful(results)
                  for m in rows]
    host = req.GET.get('host')
    if host:
        migrations = [m for m in migrations
                      if host in (m.source_compute, m.dest_compute)]
    since = _since(req)
    if since is not None:
        migrations = [m for m in migrations
                      if m.updated_at and m.updated_at.replace(
                          tzinfo=None) >= since]
    migrations.sort(key=lambda m: (m.created_at, m.id), reverse=True)
    if microversion.at_least(req, '2.59'):
        migrations = util.paginate(migrations, req, lambda m: m.uuid,
                                   util.conf(req).api.max_limit)
    return util.json_response({'migrations': [_view(req, m)
                                              for m in migrations]})
