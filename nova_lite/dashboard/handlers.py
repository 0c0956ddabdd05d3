"""The dashboard's request handlers (see the package docstring)."""

from oslo_log import log as logging
from oslo_utils import uuidutils
import webob
import webob.dec
import webob.exc

from nova_lite import cells
from nova_lite.dashboard import policy
from nova_lite.dashboard import server_view
from nova_lite.dashboard import session
from nova_lite.dashboard import sim_reports
from nova_lite.dashboard import views
from nova_lite import exception
from nova_lite import objects
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)

RULE = 'os-dashboard'
CACHE_KEY = 'nova_lite.dashboard_cache'
# Migrations that still hold (or will hold) allocations.
_OPEN_MIGRATIONS = ['queued', 'pre-migrating', 'migrating', 'post-migrating',
                    'finished', 'running', 'preparing', 'accepted', 'done',
                    'reverting', 'confirming']


def _html(body, status=200):
    return webob.Response(body=body.encode('utf-8'), status=status,
                          content_type='text/html', charset='utf-8',
                          headerlist=[('Cache-Control', 'no-store')])


def _admin(req):
    """The admin's context; 403 (which shows nothing) for anyone else."""
    ctx = util.context(req)
    if not policy.check(ctx, RULE):
        LOG.info('Dashboard refused to user %s of project %s',
                 ctx.user_id, ctx.project_id)
        raise webob.exc.HTTPForbidden(
            'The dashboard is for administrators.')
    return ctx


def _snapshot(req, ctx):
    conf = util.conf(req)
    return req.environ[CACHE_KEY].get(ctx, util.placement(req),
                                      conf.dashboard.cell_refresh_interval)


def overview(req):
    ctx = _admin(req)
    conf = util.conf(req)
    snapshot = _snapshot(req, ctx)
    per_page = conf.dashboard.nodes_per_page
    page_no = _page(req, snapshot, per_page)
    return _html(views.overview(snapshot, page_no, per_page,
                                conf.dashboard.refresh_interval,
                                '/dashboard/api/capacity'))


def _page(req, snapshot, per_page):
    node = req.GET.get('node')
    if node:
        for index, (_c, _h, n) in enumerate(snapshot.nodes()):
            if n['name'] == node:
                return index // per_page
    try:
        return max(0, int(req.GET.get('page', 0)))
    except ValueError:
        raise webob.exc.HTTPBadRequest('page must be a number.')


def capacity_api(req):
    ctx = _admin(req)
    body, etag = _snapshot(req, ctx).live()
    headers = [('ETag', etag), ('Cache-Control', 'no-cache')]
    if etag in (req.headers.get('If-None-Match') or ''):
        return webob.Response(status=304, headerlist=headers)
    return webob.Response(body=body, content_type='application/json',
                          charset=None, headerlist=headers)


def _server(req, ctx, uuid):
    if not uuidutils.is_uuid_like(uuid):
        raise webob.exc.HTTPNotFound('No server %s.' % uuid)
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)
    except exception.InstanceMappingNotFound:
        raise webob.exc.HTTPNotFound('No server %s.' % uuid)
    cell = mapping.cell_mapping
    if cell is None:
        raise webob.exc.HTTPConflict('Server %s is still being scheduled.'
                                     % uuid)
    with cells.target_cell(ctx, cell) as cctxt:
        try:
            server = objects.Instance.get_by_uuid(cctxt, uuid)
        except exception.InstanceNotFound:
            raise webob.exc.HTTPNotFound('No server %s.' % uuid)
        decisions = objects.SchedulingDecisionList.get_by_instance_uuid(
            cctxt, uuid).objects
        migrations = [
            (m.uuid, m.migration_type, m.status, m.source_compute,
             m.dest_compute)
            for m in objects.MigrationList.get_by_filters(
                cctxt, {'instance_uuid': uuid,
                        'status': _OPEN_MIGRATIONS}).objects]
    placement = util.placement(req)
    allocations = {}
    for consumer in [uuid] + [m[0] for m in migrations]:
        allocations[consumer] = placement.get_allocations(consumer).get(
            'allocations') or {}
    return server, cell, decisions, allocations, migrations


def server_page(req, uuid):
    ctx = _admin(req)
    server, cell, decisions, allocations, migrations = _server(req, ctx,
                                                               uuid)
    providers = _snapshot(req, ctx).providers
    return _html(server_view.server_page(server, cell.name, decisions,
                                         allocations, providers,
                                         migrations))


def server_api(req, uuid):
    ctx = _admin(req)
    server, cell, decisions, allocations, migrations = _server(req, ctx,
                                                               uuid)
    return util.json_response({'server': {
        'id': server.uuid, 'name': server.display_name,
        'project_id': server.project_id, 'cell': cell.name,
        'host': server.host, 'node': server.node,
        'vm_state': server.vm_state,
        'allocations': allocations,
        'migrations': [{'uuid': m[0], 'type': m[1], 'status': m[2]}
                       for m in migrations],
        'decisions': [{'kind': d.kind, 'summary': d.summary,
                       'created_at': util.isotime(d.created_at)
                       if d.created_at else None,
                       'attempts': d.attempts} for d in decisions]}})


def login(req):
    conf = util.conf(req)
    strategy = conf.api.auth_strategy
    if req.method == 'GET':
        return _html(views.login_page(strategy,
                                      project=conf.dashboard.login_project))
    if req.method != 'POST':
        raise webob.exc.HTTPMethodNotAllowed(allow='GET, POST')
    form = req.POST
    try:
        value = session.credential(conf, form.get('username', '').strip(),
                                   form.get('password', ''),
                                   form.get('project', '').strip() or None)
    except session.LoginFailed as err:
        return _html(views.login_page(strategy, error=str(err),
                                      project=form.get('project', '')),
                     status=401)
    LOG.info('Dashboard login of %s', form.get('username'))
    resp = webob.exc.HTTPSeeOther(location=session.PREFIX)
    session.remember(req, resp, value)
    return resp


def logout(req):
    resp = webob.exc.HTTPSeeOther(location=session.LOGIN_PATH)
    session.forget(resp)
    return resp


def _route(req):
    path = req.path_info.rstrip('/') or '/'
    parts = path[len(session.PREFIX):].strip('/').split('/')
    if path == session.LOGIN_PATH:
        return login(req)
    if req.method not in ('GET', 'HEAD'):
        raise webob.exc.HTTPMethodNotAllowed(allow='GET, HEAD')
    if parts == ['']:
        return overview(req)
    if parts == ['logout']:
        return logout(req)
    if parts == ['api', 'capacity']:
        return capacity_api(req)
    if len(parts) == 2 and parts[0] == 'servers':
        return server_page(req, parts[1])
    if parts == ['sim']:
        _admin(req)
        return _html(sim_reports.listing(util.conf(req)))
    if len(parts) == 2 and parts[0] == 'sim':
        _admin(req)
        return _html(sim_reports.report(util.conf(req), parts[1]))
    if len(parts) == 3 and parts[:2] == ['api', 'servers']:
        return server_api(req, parts[2])
    raise webob.exc.HTTPNotFound('No such dashboard page.')


@webob.dec.wsgify
def application(req):
    try:
        return _route(req)
    except webob.exc.HTTPException as err:
        if req.path_info.startswith(session.DATA_PREFIX):
            return util.json_response(
                {'error': {'code': err.code, 'message': err.detail or
                           err.title}}, status=err.code)
        return _html(views.page(err.title, '<h1>%s</h1><p>%s</p>' % (
            views.esc(err.title), views.esc(err.detail or ''))),
            status=err.code)
