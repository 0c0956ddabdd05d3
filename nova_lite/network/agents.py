"""Neutron's ``agent``, ``l3_agent_scheduler`` and ``dhcp_agent_scheduler``.

The agents an ML2/Open vSwitch deployment reports, for the lab's hosts:
the host serving the network service (``[DEFAULT] host`` of
nova-lite-api) is the network node, with a DHCP, an L3, a metadata and
an Open vSwitch agent; every compute service of every cell adds the Open
vSwitch agent of its host, alive while the compute service is up.
Nothing is wired, so an agent's state is what an admin set on it
(``admin_state_up``, ``description``) and which routers and networks it
was given (``/agents/{id}/l3-routers``, ``/agents/{id}/dhcp-networks``);
routers and networks are not scheduled by themselves. Deleting an agent
forgets that state; a running agent registers again at once, as
Neutron's do on their next report, under a new id. Agents are the
admin's (Neutron's ``get_agent`` and friends are admin-only): others
list none and see none (404).
"""

import uuid

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import networks
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.network import routers
from nova_lite.objects import service as service_obj
from nova_lite import servicegroup
from nova_lite.wsgi import util

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

KIND = 'agent'
COMPUTE_BINARY = 'nova-lite-compute'
_NAMESPACE = uuid.UUID('6f1c3e4a-27b5-4d0e-9a51-0c8a2f3b7d19')
_STARTED = timeutils.utcnow()

DHCP = 'DHCP agent'
L3 = 'L3 agent'
# agent type -> (binary, topic, availability zone, configurations)
TYPES = {
    DHCP: ('neutron-dhcp-agent', 'dhcp_agent', 'nova',
           {'dhcp_driver': 'neutron.agent.linux.dhcp.Dnsmasq',
            'dhcp_lease_duration': 86400}),
    L3: ('neutron-l3-agent', 'l3_agent', 'nova',
         {'agent_mode': 'legacy', 'interface_driver': 'openvswitch'}),
    'Metadata agent': ('neutron-metadata-agent', 'N/A', None,
                       {'metadata_proxy_socket': '/var/lib/neutron/'
                        'metadata_proxy'}),
    'Open vSwitch agent': ('neutron-openvswitch-agent', 'N/A', None,
                           {'bridge_mappings': {'public': 'br-ex'},
                            'tunnel_types': ['vxlan'],
                            'integration_bridge': 'br-int'}),
}
NETWORK_NODE_TYPES = (DHCP, L3, 'Metadata agent', 'Open vSwitch agent')
COMPUTE_TYPES = ('Open vSwitch agent',)
def _stamp(when):
    return timeutils.normalize_time(when).strftime('%Y-%m-%d %H:%M:%S') \
        if when else None


def _slot(host, binary):
    """The id of the record holding one (host, binary)'s state."""
    return str(uuid.uuid5(_NAMESPACE, 'slot:%s:%s' % (host, binary)))


def _reports(context):
    """[(host, agent type, alive, started, heartbeat)] of every agent the
    lab's hosts run."""
    now = timeutils.utcnow()
    found = [(CONF.host, kind, True, _STARTED, now)
             for kind in NETWORK_NODE_TYPES]
    results = cells.scatter_gather_all(
        context, service_obj.ServiceList.get_all, include_cell0=False,
        binary=COMPUTE_BINARY)
    for _, services in cells.successful(results):
        for service in services:
            if service.host == CONF.host:
                continue
            alive = servicegroup.is_up(service)
            for kind in COMPUTE_TYPES:
                found.append((service.host, kind, alive,
                              service.created_at,
                              service.updated_at or service.created_at))
    return found


def _states(context):
    return {s['id']: s for s in net_obj.get_all(context, KIND)}


def _state(host, binary, states):
    return states.get(_slot(host, binary)) or {
        'id': _slot(host, binary), 'host': host, 'binary': binary,
        'epoch': 0, 'admin_state_up': True, 'description': None,
        'routers': [], 'networks': [], 'created_at': None}


def _body(host, kind, alive, started, heartbeat, state):
    binary, topic, zone, configurations = TYPES[kind]
    return {
        'id': str(uuid.uuid5(_NAMESPACE, '%s:%s:%d' % (
            host, binary, state['epoch']))),
        'agent_type': kind, 'binary': binary, 'topic': topic,
        'host': host, 'admin_state_up': state['admin_state_up'],
        'alive': alive, 'availability_zone': zone,
        'configurations': dict(configurations),
        'created_at': state['created_at'] or _stamp(started),
        'started_at': _stamp(started),
        'heartbeat_timestamp': _stamp(heartbeat),
        'description': state['description'], 'resources_synced': None,
        '_state': state}


def _all(context):
    if not policy.check(context, 'get_agent'):
        return []
    states = _states(context)
    return [_body(host, kind, alive, started, heartbeat,
                  _state(host, TYPES[kind][0], states))
            for host, kind, alive, started, heartbeat in _reports(context)]


def list_agents(context):
    return _all(context)


def get_agent(context, agent_id, rule='get_agent'):
    """The agent, 404 when there is none or the caller may not see it
    (or use ``rule`` on it)."""
    for agent in _all(context):
        if agent['id'] == agent_id and policy.check(context, rule):
            return agent
    raise errors.not_found(KIND, agent_id)


def _save(context, state):
    try:
        net_obj.update(context, KIND, state)
    except exception.NetworkResourceNotFound:
        try:
            net_obj.create(context, KIND, state)
        except exception.NetworkResourceExists:
            net_obj.update(context, KIND, state)


def update_agent(context, agent_id, values):
    agent = get_agent(context, agent_id, 'update_agent')
    common.check_keys(values, ('admin_state_up', 'description'), KIND)
    common.check_bool(values, 'admin_state_up')
    common.check_string(values, 'description')
    state = dict(agent['_state'])
    state.update(values)
    _save(context, state)
    LOG.info('Agent %s (%s on %s) updated: %s', agent_id,
             agent['agent_type'], agent['host'], sorted(values))
    agent.update(values, _state=state)
    return agent


def delete_agent(context, agent_id):
    """Forget the agent's state; it registers again under a new id."""
    agent = get_agent(context, agent_id, 'delete_agent')
    state = agent['_state']
    _save(context, dict(state, epoch=state['epoch'] + 1,
                        admin_state_up=True, description=None,
                        routers=[], networks=[],
                        created_at=_stamp(timeutils.utcnow())))
    LOG.info('Agent %s (%s on %s) deleted', agent_id, agent['agent_type'],
             agent['host'])


# -- which agent hosts what ---------------------------------------------------

# scheduler -> (agent type, state key, member kind)
_SCHEDULERS = {
    'l3': (L3, 'routers', 'router'),
    'dhcp': (DHCP, 'networks', 'network'),
}


def _hosted(context, which, agent):
    """The routers (networks) ``agent`` hosts that still exist."""
    _, key, kind = _SCHEDULERS[which]
    found = []
    for item_id in agent['_state'][key]:
        try:
            found.append(_get_member(context, kind, item_id))
        except errors.NeutronError:
            continue
    return found


def _get_member(context, kind, item_id):
    if kind == 'router':
        return routers.get_router(context, item_id)
    return networks.get_network(context, item_id)


def _hosts(context, which, item_id):
    """The agents hosting router (network) ``item_id``."""
    kind, key, _ = _SCHEDULERS[which]
    return [a for a in _all(context) if a['agent_type'] == kind and
            item_id in a['_state'][key]]


def add_to_agent(context, which, agent_id, item_id):
    kind, key, member = _SCHEDULERS[which]
    agent = get_agent(context, agent_id, 'create_%s' % (
        'l3-router' if which == 'l3' else 'dhcp-network'))
    if agent['agent_type'] != kind or not agent['admin_state_up']:
        raise errors.bad_request(
            'Agent %s is not a %s or has been disabled.' % (
                agent_id, 'L3 Agent' if which == 'l3' else
                'valid DHCP Agent'),
            'InvalidL3Agent' if which == 'l3' else 'InvalidDHCPAgent')
    _get_member(context, member, item_id)
    hosting = _hosts(context, which, item_id)
    if which == 'l3' and any(a['id'] != agent_id for a in hosting):
        raise errors.conflict(
            'RouterHostedByL3Agent', 'The router %s has been already '
            'hosted by the L3 Agent %s.' % (item_id, hosting[0]['id']))
    if which == 'dhcp' and any(a['id'] == agent_id for a in hosting):
        raise errors.conflict(
            'NetworkHostedByDHCPAgent', 'The network %s has been already '
            'hosted by the DHCP Agent %s.' % (item_id, agent_id))
    state = agent['_state']
    if item_id not in state[key]:
        _save(context, dict(state, **{key: state[key] + [item_id]}))
        LOG.info('%s %s scheduled to agent %s', member.capitalize(),
                 item_id, agent_id)


def remove_from_agent(context, which, agent_id, item_id):
    _, key, member = _SCHEDULERS[which]
    agent = get_agent(context, agent_id, 'delete_%s' % (
        'l3-router' if which == 'l3' else 'dhcp-network'))
    state = agent['_state']
    if item_id not in state[key]:
        if which == 'l3':
            raise errors.NeutronError(
                404, 'RouterNotHostedByL3Agent', 'The router %s is not '
                'hosted by L3 agent %s.' % (item_id, agent_id))
        raise errors.conflict(
            'NetworkNotHostedByDhcpAgent', 'The network %s is not hosted '
            'by the DHCP agent %s.' % (item_id, agent_id))
    _save(context, dict(state, **{key: [i for i in state[key]
                                        if i != item_id]}))
    LOG.info('%s %s removed from agent %s', member.capitalize(), item_id,
             agent_id)


# -- routes -------------------------------------------------------------------

def _ctx(req):
    return util.context(req)


def _shown(req, items, key):
    return util.json_response({key: common.filtered(req, items)})


def _list(req):
    return _shown(req, list_agents(_ctx(req)), 'agents')


def _show(req):
    return util.json_response({'agent': common.shown(
        req, get_agent(_ctx(req), req.urlvars['id']))})


def _update(req):
    values = dict(common.body_of(req, 'agent'))
    return util.json_response({'agent': common.public(update_agent(
        _ctx(req), req.urlvars['id'], values))})


def _delete(req):
    delete_agent(_ctx(req), req.urlvars['id'])
    return util.no_content()


def _member_id(req, name):
    try:
        body = req.json_body
    except ValueError:
        raise errors.bad_request('Malformed request body')
    if not isinstance(body, dict) or not isinstance(body.get(name), str):
        raise errors.bad_request(
            "Failed to parse request. Required attribute '%s' not "
            "specified" % name)
    return body[name]


def _scheduler_routes(which, path, name, listed):
    def hosted(req):
        context = _ctx(req)
        agent = get_agent(context, req.urlvars['id'], 'get_' + path)
        return _shown(req, [common.public(i) for i in _hosted(
            context, which, agent)], listed)

    def add(req):
        add_to_agent(_ctx(req), which, req.urlvars['id'],
                     _member_id(req, name))
        return util.json_response(None, status=201)

    def remove(req):
        remove_from_agent(_ctx(req), which, req.urlvars['id'],
                          req.urlvars['member'])
        return util.no_content()

    return hosted, add, remove


def _agents_of(which, rule, member_getter):
    def listed(req):
        context = _ctx(req)
        if not policy.check(context, rule):
            raise errors.not_found(
                'router' if which == 'l3' else 'network', req.urlvars['id'])
        member_getter(context, req.urlvars['id'])
        found = _hosts(context, which, req.urlvars['id'])
        for agent in found:
            if which == 'l3':
                agent['ha_state'] = None
        return _shown(req, found, 'agents')
    return listed


def routes(prefix):
    base = prefix + '/v2.0/agents'
    table = {base: {'GET': _list},
             base + '/{id}': {'GET': _show, 'PUT': _update,
                              'DELETE': _delete}}
    for which, path, name, listed in (
            ('l3', 'l3-routers', 'router_id', 'routers'),
            ('dhcp', 'dhcp-networks', 'network_id', 'networks')):
        hosted, add, remove = _scheduler_routes(which, path, name, listed)
        table['%s/{id}/%s' % (base, path)] = {'GET': hosted, 'POST': add}
        table['%s/{id}/%s/{member}' % (base, path)] = {'DELETE': remove}
    table[prefix + '/v2.0/routers/{id}/l3-agents'] = {
        'GET': _agents_of('l3', 'get_l3-agents', routers.get_router)}
    table[prefix + '/v2.0/networks/{id}/dhcp-agents'] = {
        'GET': _agents_of('dhcp', 'get_dhcp-agents',
                          networks.get_network)}
    return table
