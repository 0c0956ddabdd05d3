"""The network service's REST API under ``/network`` (Neutron v2.0).

``/network`` and ``/network/v2.0`` are the version and resource
documents; each collection (networks, subnets, ports, security groups and
their rules, floating IPs, routers) answers list (field filters, ``fields``),
create (201), show, update and delete (204) in Neutron's shapes. Errors
are Neutron's (``NeutronError``). The rules are in
:mod:`nova_lite.network`; the route table :mod:`.router`.
"""

from nova_lite.network import attributes
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import networks
from nova_lite.network import policy
from nova_lite.network import ports
from nova_lite.network import quotas
from nova_lite.network import routers
from nova_lite.network import secgroups
from nova_lite.network import tags
from nova_lite.wsgi import util

# The extensions of the resources above (aliases Tempest and the clients
# look for); the route table registers them with :mod:`.extensions`.
EXTENSIONS = (
    ('security-group', 'security-group', 'The security groups extension.'),
    ('external-net', 'Neutron external network',
     'Adds external network attribute to network resource.'),
    ('port-security', 'Port Security', 'Provides port security'),
    ('binding', 'Port Binding', 'Expose port bindings of a virtual port'),
    ('standard-attr-description', 'standard-attr-description',
     'Extension to add descriptions to standard attributes'),
    ('standard-attr-timestamp', 'Resource timestamps',
     'Adds created_at and updated_at fields to all Neutron resources.'),
    ('standard-attr-revisions', 'Resource revision numbers',
     'This extension will display the revision number of neutron '
     'resources.'),
    ('project-id', 'project_id field enabled',
     'Extension that indicates that project_id field is enabled.'),
    ('allowed-address-pairs', 'Allowed Address Pairs',
     'Provides allowed address pairs'),
    ('network-mtu', 'Network MTU', 'Provides MTU attribute for a network '
     'resource.'),
    ('router', 'Neutron L3 Router',
     'Router abstraction for basic L3 forwarding between L2 Neutron '
     'networks and access to external networks via a NAT gateway.'),
    ('ext-gw-mode', 'Neutron L3 Configurable external gateway mode',
     'Extension of the router abstraction for specifying whether SNAT '
     'should occur on the external gateway'),
    ('extraroute', 'Neutron Extra Route', 'Extra routes configuration for '
     'L3 router'),
    ('extraroute-atomic', 'Atomically add/remove extra routes',
     'Edit extra routes of a router on server side by atomically adding '
     'and/or removing extra routes'),
    ('fip-port-details', 'Floating IP Port Details Extension',
     'Add port_details attribute to Floating IP resource'),
)

# collection -> (member key, list, show, create, update, delete)
_COLLECTIONS = {
    'networks': ('network', networks.list_networks, networks.get_network,
                 networks.create_network, networks.update_network,
                 networks.delete_network),
    'subnets': ('subnet', networks.list_subnets, networks.get_subnet,
                networks.create_subnet, networks.update_subnet,
                networks.delete_subnet),
    'ports': ('port', ports.list_ports, ports.get_port, ports.create_port,
              ports.update_port, ports.delete_port),
    'security-groups': ('security_group', None, secgroups.get_group,
                        secgroups.create_group, secgroups.update_group,
                        secgroups.delete_group),
    'security-group-rules': ('security_group_rule', secgroups.list_rules,
                             secgroups.get_rule, secgroups.create_rule,
                             None, secgroups.delete_rule),
    'floatingips': ('floatingip', ports.list_floatingips,
                    ports.get_floatingip, ports.create_floatingip,
                    ports.update_floatingip, ports.delete_floatingip),
    'routers': ('router', routers.list_routers, routers.get_router,
                routers.create_router, routers.update_router,
                routers.delete_router),
}


def register(collection, key, lister, show, create, update, delete):
    """Serve another collection with the CRUD handlers below (list
    filters, ``fields``, bulk create, quotas); :func:`collection_routes`
    makes its routes."""
    _COLLECTIONS[collection] = (key, lister, show, create, update, delete)


def collections():
    """Collection name -> member key, of every collection served."""
    return {name: entry[0] for name, entry in _COLLECTIONS.items()}


def collection_routes(prefix, name):
    """A collection's routes; a member is updated only where the
    collection has an update (Neutron's security group rules have none:
    a PUT is 405, as any method a path does not serve)."""
    member = {'GET': show_resource, 'DELETE': delete_resource}
    if _COLLECTIONS[name][4] is not None:
        member['PUT'] = update_resource
    return {'%s/v2.0/%s' % (prefix, name): {
                'GET': list_resources, 'POST': create_resource},
            '%s/v2.0/%s/{id}' % (prefix, name): member}


def versions(req):
    """GET /network: the version list."""
    href = '%s/network/v2.0/' % req.application_url
    return util.json_response({'versions': [{
        'id': 'v2.0', 'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': href}]}]})


def resources(req):
    """GET /network/v2.0: the collections served."""
    base = '%s/network/v2.0' % req.application_url
    return util.json_response({'resources': [
        {'name': key, 'collection': name,
         'links': [{'rel': 'self', 'href': '%s/%s' % (base, name)}]}
        for name, (key, *_) in sorted(_COLLECTIONS.items())]})


def _collection(req):
    return _COLLECTIONS[common.collection_of(req, _COLLECTIONS)]


def plural_of(key):
    """The list key of a member key (``rbac_policy``: ``rbac_policies``)."""
    return key[:-1] + 'ies' if key.endswith('y') else key + 's'


def _view(context, key, item):
    """``item`` as ``context`` may see it (Neutron's attribute policy)."""
    return common.public(policy.hide(context, key, item))


def list_resources(req):
    context = util.context(req)
    key, lister = _collection(req)[:2]
    if key == 'security_group':
        project = req.GET.get('project_id') or req.GET.get('tenant_id')
        items = secgroups.list_groups(context, project)
    else:
        items = lister(context)
    plural = plural_of(key)
    items = [policy.hide(context, key, item)
             for item in tags.filter_items(req, items)]
    return util.json_response({plural: common.filtered(req, items)})


def show_resource(req):
    context = util.context(req)
    key, _, show = _collection(req)[:3]
    return util.json_response({key: common.shown(
        req, policy.hide(context, key, show(context, req.urlvars['id'])))})


def create_resource(req):
    context = util.context(req)
    key, _, _, create = _collection(req)[:4]
    try:
        body = req.json_body if req.body else None
    except ValueError:
        raise errors.bad_request('Malformed request body')
    plural = plural_of(key)
    if isinstance(body, dict) and isinstance(body.get(plural), list):
        if not all(isinstance(item, dict) for item in body[plural]):
            raise errors.bad_request(
                "Resource body required: expected a list of '%s'" % key)
        items = [dict(item) for item in body[plural]]
        for item in items:
            attributes.check(key, item)
        _check_quota(context, key, items)
        made = [_view(context, key, create(context, item))
                for item in items]
        return util.json_response({plural: made}, status=201)
    values = dict(common.body_of(req, key))
    attributes.check(key, values)
    _check_quota(context, key, [values])
    return util.json_response({key: _view(context, key,
                                          create(context, values))},
                              status=201)


def _check_quota(context, key, items):
    """Neutron's 409 OverQuota before creating ``items`` of ``key``."""
    projects = {}
    for item in items:
        project = item.get('project_id') or item.get('tenant_id') or \
            context.project_id
        projects[project] = projects.get(project, 0) + 1
    for project, count in projects.items():
        quotas.check(context, key, project, count)


def update_resource(req):
    context = util.context(req)
    entry = _collection(req)
    key = entry[0]
    values = dict(common.body_of(req, key))
    attributes.check(key, values)
    return util.json_response({key: _view(context, key, entry[4](
        context, req.urlvars['id'], values))})


def delete_resource(req):
    _collection(req)[5](util.context(req), req.urlvars['id'])
    return util.no_content()


def router_interface(req):
    """PUT /routers/{id}/add_router_interface or remove_router_interface:
    Neutron answers with the interface itself, not wrapped."""
    context = util.context(req)
    try:
        body = req.json_body
    except ValueError:
        raise errors.bad_request('Malformed request body')
    action = routers.add_interface
    if req.path_info.rstrip('/').endswith('remove_router_interface'):
        action = routers.remove_interface
    return util.json_response(action(context, req.urlvars['id'], body))


def router_extraroutes(req):
    """PUT /routers/{id}/add_extraroutes or remove_extraroutes: the
    router with its routes changed."""
    context = util.context(req)
    try:
        body = req.json_body
    except ValueError:
        raise errors.bad_request('Malformed request body')
    adding = req.path_info.rstrip('/').endswith('add_extraroutes')
    return util.json_response({'router': routers.change_extraroutes(
        context, req.urlvars['id'], body, adding)})


def routes(prefix='/network'):
    """The route table entries of the network service."""
    table = {prefix: {'GET': versions},
             prefix + '/v2.0': {'GET': resources}}
    for name in list(_COLLECTIONS):
        table.update(collection_routes(prefix, name))
    return table
