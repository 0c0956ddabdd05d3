"""Servers: create, list, detail, show, update, delete.

The handlers validate and authorize, then call the compute API facade
(:mod:`nova_lite.api.compute.api`), which knows whether a server is still a
build request or lives in a cell. Lists merge every cell (and the build
requests) newest first; at microversion 2.69 and later servers of a cell
that does not answer are listed as minimal ``UNKNOWN`` records.
"""

from urllib import parse

from oslo_utils import timeutils
from oslo_utils import uuidutils
import webob.exc

from nova_lite.api import admin_password
from nova_lite.api.compute import api as compute_api
from nova_lite.api.compute import server_edits
from nova_lite.api.compute import server_list
from nova_lite.api.compute import server_sort
from nova_lite.api.handlers import flavors
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api.schemas import servers as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.api.views import servers as views
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.network import interface as net_compute
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj

CONF = nl_conf.CONF


_COMPUTE_API = 'nova_lite.compute_api'


def compute(req):
    """The compute API facade, one per request (no stale bus): a
    handler that reads the server first (``get_server``) and then acts
    on it uses the same one."""
    api = req.environ.get(_COMPUTE_API)
    if api is None:
        api = req.environ[_COMPUTE_API] = compute_api.API()
    return api


def _owner_target(server):
    return {'project_id': server.instance.project_id,
            'user_id': server.instance.user_id}


def get_server(req, server_id, rule='servers:show'):
    """The server of the URL, authorized for ``rule``; 404 if unknown."""
    context = util.context(req)
    if not _is_uuid(server_id):
        raise webob.exc.HTTPNotFound('Instance %s could not be found.'
                                     % server_id)
    try:
        server = compute(req).get(context, server_id)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound('Instance %s could not be found.'
                                     % server_id)
    if not policy.check(context, 'servers:show', _owner_target(server)):
        raise webob.exc.HTTPNotFound('Instance %s could not be found.'
                                     % server_id)
    policy.authorize(context, rule, _owner_target(server))
    return server


def _is_uuid(value):
    return uuidutils.is_uuid_like(value)


# -- create ------------------------------------------------------------------

def create_schema(req):
    for version, create_schema in (('2.90', schema.CREATE_V2_90),
                                   ('2.74', schema.CREATE_V2_74),
                                   ('2.63', schema.CREATE_V2_63),
                                   ('2.52', schema.CREATE_V2_52),
                                   ('2.37', schema.CREATE_V2_37),
                                   ('2.19', schema.CREATE_V2_19)):
        if microversion.at_least(req, version):
            return create_schema
    return schema.CREATE


def _ref_id(ref):
    """The id at the end of a reference that may be a URL."""
    return str(ref).rstrip('/').rsplit('/', 1)[-1]


def _flavor(context, flavor_ref, allow_disabled=False):
    """The flavor to boot or resize to: 400 if unknown, disabled, or
    private and not shared with the caller's project (as Nova, which
    does not find it then). A disabled flavor is "not found" too, and
    Nova's message at create names the flavor's internal id; a resize
    checks it itself (``allow_disabled``), after the same-flavor check."""
    flavorid = _ref_id(flavor_ref)
    try:
        flavor = flavors.get_visible_flavor(context, flavorid)
    except exception.FlavorNotFound:
        raise webob.exc.HTTPBadRequest('Flavor %s could not be found.'
                                       % flavorid)
    if flavor.disabled and not allow_disabled:
        raise webob.exc.HTTPBadRequest('Flavor %s could not be found.'
                                       % flavor.id)
    return flavor


def _destination(req, server):
    """(zone, forced, host, node): ``az:host[:node]`` forces a host, 2.74
    ``host``/``hypervisor_hostname`` request one; both admins only."""
    zone = server.get('availability_zone')
    host = server.get('host')
    node = server.get('hypervisor_hostname')
    forced = bool(zone and ':' in zone)
    if forced or host or node:
        policy.authorize(util.context(req), 'servers:create:forced_host')
    return zone, forced, host, node


def _image_ref(server):
    """The image to boot: ``imageRef``, or the local image block device
    clients send along; anything needing a volume is a 400."""
    image_ref = server.get('imageRef')
    for bdm in server.get('block_device_mapping_v2') or []:
        if bdm.get('source_type') != 'image' or \
                bdm.get('destination_type') == 'volume':
            raise webob.exc.HTTPBadRequest(
                'Invalid input for field/attribute block_device_mapping_v2: '
                'volumes need a volume service, which nova_lite does not '
                'have.')
        if not image_ref and str(bdm.get('boot_index')) == '0':
            image_ref = bdm.get('uuid')
    if not image_ref:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for field/attribute imageRef: booting from a '
            'volume needs a volume service, which nova_lite does not have.')
    return image_ref


def system_metadata_values(args):
    """The access addresses and trusted certificate ids given in a create,
    update or rebuild body, as system metadata items (see
    :func:`views.system_metadata_items`)."""
    return views.system_metadata_items(args)


def with_access_ips(instance, args, values):
    """``values`` plus the system metadata holding new access addresses
    (and trusted certificates)."""
    given = system_metadata_values(args)
    if given:
        system_metadata = dict(instance.system_metadata or {})
        for key, value in given.items():
            if value is None:
                system_metadata.pop(key, None)
            else:
                system_metadata[key] = value
        values['system_metadata'] = system_metadata
    return values


def _description(req, server):
    """Below 2.19 Nova stores the name as the description, which a
    later microversion then shows."""
    if microversion.at_least(req, '2.19'):
        return server.get('description')
    return server['name']


def disk_config(args):
    """``OS-DCF:diskConfig`` of a create, update, rebuild or resize
    body: True for ``AUTO``, False for ``MANUAL``, None when not given
    (the schemas allow only those two)."""
    value = args.get(views.DISK_CONFIG)
    return None if value is None else value == 'AUTO'


def _count(value, default):
    return default if value is None else int(value)


def _hints(body):
    return body.get('os:scheduler_hints') or body.get(
        'OS-SCH-HNT:scheduler_hints') or {}


def create_server(req):
    context = util.context(req)
    policy.authorize(context, 'servers:create')
    body = validation.body(req, create_schema(req))
    server = body['server']
    flavor = _flavor(context, server['flavorRef'])
    image_ref = _image_ref(server)
    zone, forced, host, node = _destination(req, server)
    if server.get('trusted_image_certificates'):
        policy.authorize(context, 'servers:create:trusted_certs')
    min_count = _count(server.get('min_count'), 1)
    max_count = _count(server.get('max_count'), min_count)
    try:
        instances, reservation_id = compute(req).create(
            context, flavor, _ref_id(image_ref), server['name'],
            min_count=min_count, max_count=max_count,
            availability_zone=zone, scheduler_hints=_hints(body),
            key_name=server.get('key_name'),
            metadata=server.get('metadata'),
            description=_description(req, server),
            networks=server.get('networks'),
            user_data=server.get('user_data'), forced_allowed=forced,
            hostname=server.get('hostname'), requested_host=host,
            requested_node=node, tags=server.get('tags'),
            security_groups=_security_group_names(server),
            config_drive=server.get('config_drive'),
            auto_disk_config=disk_config(server),
            system_metadata={
                key: value for key, value in
                system_metadata_values(server).items() if value is not None})
    except exception.ImageNotFound as exc:
        raise webob.exc.HTTPBadRequest(exc.message)
    return _create_response(req, server, instances, reservation_id,
                            admin_password.of_request(server))


def _security_group_names(server):
    """The groups a create names, each once; None for none (the
    default group). As in Nova, an entry without a name (``[{}]``, which
    the schema lets through) is skipped."""
    names = [g['name'] for g in server.get('security_groups') or []
             if g.get('name')]
    return list(dict.fromkeys(names)) or None


def _create_response(req, server, instances, reservation_id, password):
    if _wants_reservation_id(server):
        return util.json_response({'reservation_id': reservation_id},
                                  status=202)
    first = instances[0]
    links = util.links(req, 'servers', first.uuid)
    body = {'server': admin_password.add_to(
        {'id': first.uuid, 'links': links,
         views.DISK_CONFIG: views.disk_config(first),
         'security_groups': [{'name': name} for name in
                             _security_group_names(server) or
                             ['default']]}, password)}
    return util.json_response(body, status=202,
                              headers={'Location': links[0]['href']})


def _wants_reservation_id(server):
    value = server.get('return_reservation_id', False)
    return str(value).lower() in ('true', '1', 'yes', 'on')


# -- list ---------------------------------------------------------------------

def list_query_schema(req):
    """The query schema of the server lists at ``req``'s version."""
    return (schema.LIST_QUERY_V2_75 if microversion.at_least(req, '2.75')
            else schema.LIST_QUERY)


def _list_filters(req, context, rule):
    """Filters for the compute API, from the query string."""
    query = validation.query(req, list_query_schema(req))
    is_admin = policy.check(context, rule + ':get_all_tenants')
    filters = {}
    all_tenants = _all_tenants(req)
    if all_tenants and not is_admin:
        policy.authorize(context, rule + ':get_all_tenants')
    project = query.get('project_id') or query.get('tenant_id')
    if all_tenants:
        if project:
            filters['project_id'] = project
    else:
        # As Nova (lp:1185290): without all_tenants, the caller's own
        # project, whatever project_id/tenant_id say.
        filters['project_id'] = context.project_id
    _simple_filters(query, filters, is_admin)
    _state_filters(req, query, filters, is_admin)
    if microversion.at_least(req, '2.26'):
        server_edits.add_tag_filters(query, filters)
    return filters


def _all_tenants(req):
    """Nova's reading of ``all_tenants``: present and empty is true."""
    if 'all_tenants' not in req.GET:
        return False
    if req.GET['all_tenants'] == '':
        return True
    return util.query_bool(req, 'all_tenants', False)


_ADMIN_EXACT = {'host': 'host', 'node': 'node'}
_EXACT = {'reservation_id': 'reservation_id', 'image': 'image_ref',
          'key_name': 'key_name', 'user_id': 'user_id',
          'availability_zone': 'availability_zone'}


def _simple_filters(query, filters, is_admin):
    for param, column in _EXACT.items():
        if param in query:
            filters[column] = (query[param] if param != 'image'
                               else query[param].rstrip('/').rsplit('/')[-1])
    if is_admin:
        for param, column in _ADMIN_EXACT.items():
            if param in query:
                filters[column] = query[param]
    if 'name' in query:
        filters['name'] = query['name']
    if 'flavor' in query:
        filters['instance_type_id'] = _flavor_pk(query['flavor'])


def _flavor_pk(flavorid):
    try:
        return objects.Flavor.get_by_flavor_id(
            nl_context.get_admin_context(), flavorid).id
    except exception.FlavorNotFound:
        return -1


def _state_filters(req, query, filters, is_admin):
    _change_filters(req, query, filters, is_admin)
    status = query.get('status')
    if status is not None:
        status = status.upper()
        if status == 'DELETED':
            if not is_admin:
                raise webob.exc.HTTPForbidden(
                    'Only administrators may list deleted instances')
            filters['deleted'] = True
        filters['vm_state'] = views.STATUS_VM_STATES.get(status, ['none'])
    if 'deleted' in query and is_admin:
        filters['deleted'] = util.query_bool(req, 'deleted')
        if filters['deleted'] is False and not _CHANGES & set(filters):
            filters.pop('deleted')
    if 'locked' in query and microversion.at_least(req, '2.73'):
        filters['locked'] = util.query_bool(req, 'locked')


# The filters on a server's last change; with either, a list shows the
# servers deleted in that window too (unless an admin's ``deleted``
# says otherwise), as Nova's does.
_CHANGES = {'changes-since', 'changes-before'}


def _change_filters(req, query, filters, is_admin):
    """``changes-since`` and, from 2.66 (or for admins, whom Nova
    lets filter on anything), ``changes-before``: 400 when the window
    ends before it starts."""
    for name in sorted(_CHANGES):
        if name in query and (name == 'changes-since' or is_admin or
                              microversion.at_least(req, '2.66')):
            filters[name] = _parse_time(name, query[name])
    since, before = (filters.get('changes-since'),
                     filters.get('changes-before'))
    if since and before and before < since:
        raise webob.exc.HTTPBadRequest(
            'The value of changes-since must be less than or equal to '
            'changes-before.')


def _parse_time(name, text):
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(text))
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for query parameters %s. Value: %s.'
            % (name, text))


def _list(req, rule, render):
    """A list's API database reads in one transaction."""
    return server_list.reading(util.context(req), _read_list, req, rule,
                               render)


def _read_list(req, rule, render):
    context = util.context(req)
    policy.authorize(context, rule)
    filters = _list_filters(req, context, rule)
    limit = util.query_int(req, 'limit', minimum=0)
    limit = CONF.api.max_limit if limit is None else min(
        limit, CONF.api.max_limit)
    try:
        sort = server_sort.parse(
            req.GET.getall('sort_key'), req.GET.getall('sort_dir'),
            policy.check(context, rule + ':get_all_tenants'))
    except exception.InvalidSort as exc:
        raise webob.exc.HTTPBadRequest(str(exc))
    by_ip = _ip_filter(req, context)
    try:
        servers = compute(req).get_all(
            context, filters, limit=None if by_ip is not None else limit,
            marker=req.GET.get('marker'),
            want_down_cells=microversion.at_least(req, '2.69'), sort=sort)
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(exc.message)
    if by_ip is not None:
        servers = [s for s in servers if s.uuid in by_ip][:limit]
    views.network_snapshot(req, device_ids=[s.uuid for s in servers])
    if render is _list_item:
        _prefetch_hints(req, context, servers)
    body = {'servers': [render(req, s) for s in servers]}
    if limit and len(servers) == limit:
        body['servers_links'] = [{'rel': 'next', 'href': '%s?%s' % (
            req.path_url, _next_query(req, servers[-1].uuid))}]
    return util.json_response(body)


def _ip_filter(req, context):
    """The servers the ``ip`` / ``ip6`` filters allow (None: no filter):
    their fixed IPs on the network service, matched as regular
    expressions, as Nova matches them."""
    allowed = None
    for name, version in (('ip', 4), ('ip6', 6)):
        pattern = req.GET.get(name)
        if pattern is None:
            continue
        try:
            found = net_compute.servers_with_ip(context, pattern, version)
        except ValueError as exc:
            raise webob.exc.HTTPBadRequest(
                'Invalid %s filter %r: %s' % (name, pattern, exc))
        allowed = found if allowed is None else allowed & found
    return allowed


def _next_query(req, marker):
    params = [(k, v) for k, v in req.GET.items() if k != 'marker']
    params.append(('marker', marker))
    return parse.urlencode(params)


def list_servers(req):
    return _list(req, 'servers:index', views.summary)


def list_servers_detail(req):
    return _list(req, 'servers:detail', _list_item)


def _list_item(req, server):
    """A server of the detailed list (no ``server_groups``, as Nova)."""
    if server.down:
        return views.down_detail(req, server)
    return views.detail(req, server, hints=_hints_of(req, server))


def _detail_with_extras(req, server, mutation=None):
    """One server's view: show, or a PUT/rebuild response (``mutation``)."""
    if server.down:
        return views.down_detail(req, server)
    groups = None
    if microversion.at_least(req, '2.71'):
        groups = _groups_of(req, server)
    return views.detail(req, server, groups=groups,
                        hints=_hints_of(req, server), mutation=mutation)


def _groups_of(req, server):
    try:
        return [group_obj.InstanceGroup.get_by_instance_uuid(
            util.context(req), server.uuid).uuid]
    except exception.InstanceGroupNotFound:
        return []


# Where a list keeps the scheduler hints of its page's servers.
_HINTS_KEY = 'nova_lite.servers.hints'


def _prefetch_hints(req, context, servers):
    """At 2.100+ a detailed list shows each server's scheduler hints:
    read the page's request specs in one query, not one per server."""
    if not microversion.at_least(req, '2.100'):
        return
    uuids = [s.uuid for s in servers if not s.down]
    specs = objects.RequestSpec.get_by_instance_uuids(context, uuids)
    req.environ[_HINTS_KEY] = {
        uuid: dict(spec.get('scheduler_hints', {}))
        for uuid, spec in specs.items()}


def _hints_of(req, server):
    if not microversion.at_least(req, '2.100'):
        return None
    prefetched = req.environ.get(_HINTS_KEY)
    if prefetched is not None:
        return prefetched.get(server.uuid, {})
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(util.context(req),
                                                        server.uuid)
    except exception.RequestSpecNotFound:
        return {}
    return dict(spec.get('scheduler_hints', {}))


# -- show, update, delete ----------------------------------------------------

def show_server(req):
    """The server's API database reads (mapping, build request, group,
    spec, ports) in one transaction."""
    return server_list.reading(util.context(req), _show, req)


def _show(req):
    server = get_server(req, req.urlvars['server_id'])
    if server.down:
        if not microversion.at_least(req, '2.69'):
            raise webob.exc.HTTPServiceUnavailable(
                'The cell of server %s does not answer.' % server.uuid)
        return util.json_response(
            {'server': views.down_detail(req, server, show=True)})
    return util.json_response({'server': _detail_with_extras(req, server)})


def update_schema(req):
    if microversion.at_least(req, '2.90'):
        return schema.UPDATE_V2_90
    if microversion.at_least(req, '2.19'):
        return schema.UPDATE_V2_19
    return schema.UPDATE


def update_server(req):
    server = get_server(req, req.urlvars['server_id'], 'servers:update')
    body = validation.body(req, update_schema(req))['server']
    values = {}
    if 'name' in body:
        values['display_name'] = body['name']
    if 'description' in body:
        values['display_description'] = body['description']
    if 'hostname' in body:
        values['hostname'] = body['hostname']
    if disk_config(body) is not None:
        values['auto_disk_config'] = disk_config(body)
    if server.down:
        raise webob.exc.HTTPServiceUnavailable(
            'The cell of server %s does not answer.' % server.uuid)
    with_access_ips(server.instance, body, values)
    if values:
        server = compute(req).update(util.context(req), server, values)
    return util.json_response(
        {'server': _detail_with_extras(req, server, mutation='update')})


def delete_server(req):
    server = get_server(req, req.urlvars['server_id'], 'servers:delete')
    if server.down:
        raise webob.exc.HTTPServiceUnavailable(
            'The cell of server %s does not answer.' % server.uuid)
    if server.instance.vm_state == vm_states.DELETED:
        raise webob.exc.HTTPNotFound('Instance %s could not be found.'
                                     % server.uuid)
    try:
        compute(req).delete(util.context(req), server)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound('Instance %s could not be found.'
                                     % server.uuid)
    return util.no_content()
