"""Neutron's ``trunk`` and ``trunk-details``: VLAN-aware ports.

A trunk has a parent port and subports, each another port with a
``segmentation_type`` (``vlan``, with a ``segmentation_id`` 1-4094, or
``inherit``, taking the subport network's) unique on its trunk. A port
is the parent of at most one trunk and the subport of at most one, and
never both (409 ``TrunkPortInUse``, ``PortInUseAsSubPort``,
``PortInUseAsTrunkParent``). A subport's ``device_owner`` is
``trunk:subport`` and its ``device_id`` the trunk's while it is one; the
parent shows the trunk in ``trunk_details``, and neither port can be
deleted while it belongs to a trunk. A trunk is ``ACTIVE`` while its
parent is bound to a server and ``DOWN`` otherwise; a trunk whose parent
is bound cannot be deleted (409 ``TrunkInUse``), and a disabled trunk
(``admin_state_up`` false) takes no subport changes (409
``TrunkDisabled``).
"""

from oslo_log import log as logging

from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.network import ports
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)

KIND = 'trunk'
SUBPORT_OWNER = 'trunk:subport'
TYPES = ('vlan', 'inherit')
VLAN_RANGE = (1, 4094)
KEYS = ('name', 'description', 'port_id', 'admin_state_up', 'sub_ports',
        'project_id', 'tenant_id')


def _status(context, trunk):
    try:
        parent = net_obj.get(context, 'port', trunk['port_id'])
    except Exception:  # noqa: BLE001 - the parent went meanwhile
        return 'DOWN'
    return 'ACTIVE' if parent.get('device_id') else 'DOWN'


def _with_status(context, trunk):
    trunk['status'] = _status(context, trunk)
    return trunk


def list_trunks(context):
    return [_with_status(context, t) for t in net_obj.get_all(context, KIND)
            if common.owns(context, t)]


def get_trunk(context, trunk_id):
    return _with_status(context, common.get(context, KIND, trunk_id))


def _trunk_of(context, port_id):
    """(trunk, role) of the trunk ``port_id`` belongs to, role
    ``parent`` or ``subport``; (None, None) for a port of no trunk."""
    for trunk in net_obj.get_all(context.elevated(), KIND):
        if trunk['port_id'] == port_id:
            return trunk, 'parent'
        if any(s['port_id'] == port_id for s in trunk['sub_ports']):
            return trunk, 'subport'
    return None, None


def _in_use(port_id, trunk, role):
    if role == 'parent':
        return errors.conflict(
            'PortInUseAsTrunkParent', 'Port %s is currently a parent port '
            'for trunk %s.' % (port_id, trunk['id']))
    return errors.conflict(
        'PortInUseAsSubPort', 'Port %s is currently a subport for trunk '
        '%s.' % (port_id, trunk['id']))


def check_port_free(context, port_id):
    """409 when ``port_id`` belongs to a trunk (before deleting it)."""
    trunk, role = _trunk_of(context, port_id)
    if trunk is not None:
        raise _in_use(port_id, trunk, role)


def _subports(context, trunk, wanted):
    """The ``sub_ports`` entries of a request, checked against each
    other and ``trunk`` (its parent and present subports)."""
    if not isinstance(wanted, list) or not all(
            isinstance(s, dict) for s in wanted):
        raise errors.bad_request(
            "Invalid input for sub_ports. Reason: '%s' is not a list of "
            "dicts." % (wanted,))
    taken = {(s['segmentation_type'], s['segmentation_id'])
             for s in trunk['sub_ports']}
    seen, result = set(), []
    for item in wanted:
        common.check_keys(item, ('port_id', 'segmentation_type',
                                 'segmentation_id'), KIND)
        port_id = item.get('port_id')
        if not port_id or not isinstance(port_id, str):
            raise errors.bad_request(
                'Invalid input for sub_ports. Reason: a subport needs a '
                'port_id.')
        if port_id in seen:
            raise errors.bad_request(
                'Invalid input for sub_ports. Reason: port %s is given '
                'twice.' % port_id)
        seen.add(port_id)
        port = ports.get_port(context, port_id)
        kind, segment = _segmentation(context, item, port)
        if port_id == trunk['port_id']:
            raise _in_use(port_id, trunk, 'parent')
        other, role = _trunk_of(context, port_id)
        if other is not None:
            raise _in_use(port_id, other, role)
        if (kind, segment) in taken:
            raise errors.conflict(
                'DuplicateSubPort', 'segmentation_type %s and '
                'segmentation_id %s already in use on trunk %s.'
                % (kind, segment, trunk['id']))
        taken.add((kind, segment))
        result.append({'port_id': port_id, 'segmentation_type': kind,
                       'segmentation_id': segment})
    return result


def _segmentation(context, item, port):
    """(type, id) of a subport: ``vlan`` needs an id in 1-4094,
    ``inherit`` takes its network's segmentation id."""
    kind = item.get('segmentation_type')
    segment = item.get('segmentation_id')
    if kind not in TYPES:
        raise errors.bad_request(
            "Invalid input for segmentation_type. Reason: '%s' is not in "
            "%s." % (kind, list(TYPES)))
    if kind == 'inherit':
        network = net_obj.get(context.elevated(), 'network',
                              port['network_id'])
        segment = network.get('provider:segmentation_id')
        if segment is None:
            raise errors.bad_request(
                'Invalid input for operation: network %s of subport %s '
                'has no segmentation id to inherit.'
                % (port['network_id'], port['id']), 'InvalidInput')
        return kind, segment
    if isinstance(segment, str) and segment.isdigit():
        segment = int(segment)
    if isinstance(segment, bool) or not isinstance(segment, int) or \
            not VLAN_RANGE[0] <= segment <= VLAN_RANGE[1]:
        raise errors.bad_request(
            "Invalid input for segmentation_id. Reason: '%s' is not an "
            "integer in the range %d-%d." % ((segment,) + VLAN_RANGE))
    return kind, segment


def _attach(context, trunk, subports):
    """Mark the ``subports`` as the trunk's, and the parent's
    ``trunk_details``."""
    elevated = context.elevated()
    for subport in subports:
        port = net_obj.get(elevated, 'port', subport['port_id'])
        port.update(device_owner=SUBPORT_OWNER, device_id=trunk['id'])
        net_obj.update(elevated, 'port', common.touch(port))
    _details(context, trunk)


def _detach(context, trunk, port_ids):
    elevated = context.elevated()
    for port_id in port_ids:
        try:
            port = net_obj.get(elevated, 'port', port_id)
        except Exception:  # noqa: BLE001 - the port went meanwhile
            continue
        if port.get('device_owner') == SUBPORT_OWNER:
            port.update(device_owner='', device_id='')
            net_obj.update(elevated, 'port', common.touch(port))


def _details(context, trunk, gone=False):
    """The parent port's ``trunk_details`` (dropped when ``gone``)."""
    elevated = context.elevated()
    try:
        parent = net_obj.get(elevated, 'port', trunk['port_id'])
    except Exception:  # noqa: BLE001 - the parent went meanwhile
        return
    if gone:
        parent.pop('trunk_details', None)
    else:
        macs = {}
        for subport in trunk['sub_ports']:
            try:
                macs[subport['port_id']] = net_obj.get(
                    elevated, 'port', subport['port_id'])['mac_address']
            except Exception:  # noqa: BLE001 - the port went meanwhile
                macs[subport['port_id']] = None
        parent['trunk_details'] = {'trunk_id': trunk['id'], 'sub_ports': [
            dict(s, mac_address=macs[s['port_id']])
            for s in trunk['sub_ports']]}
    net_obj.update(elevated, 'port', common.touch(parent))


def create_trunk(context, values):
    common.check_keys(values, KEYS, KIND)
    common.check_string(values, 'name')
    common.check_string(values, 'description')
    common.check_bool(values, 'admin_state_up')
    common.check_project(context, values)
    policy.authorize(context, 'create', KIND, values)
    port_id = values.get('port_id')
    if not port_id or not isinstance(port_id, str):
        raise errors.bad_request(
            "Failed to parse request. Required attribute 'port_id' not "
            "specified")
    ports.get_port(context, port_id)
    other, role = _trunk_of(context, port_id)
    if role == 'parent':
        raise errors.conflict('TrunkPortInUse', 'Port %s is in use by '
                              'another trunk.' % port_id)
    if role == 'subport':
        raise _in_use(port_id, other, role)
    trunk = common.standard(context, {
        'name': values.get('name', ''), 'port_id': port_id,
        'admin_state_up': values.get('admin_state_up', True),
        'sub_ports': [], 'description': values.get('description', '')},
        values.get('project_id') or values.get('tenant_id'))
    trunk['sub_ports'] = _subports(context, trunk,
                                   values.get('sub_ports', []))
    net_obj.create(context, KIND, trunk)
    _attach(context, trunk, trunk['sub_ports'])
    LOG.info('Trunk %s created on port %s with %d subports', trunk['id'],
             port_id, len(trunk['sub_ports']))
    return _with_status(context, trunk)


def update_trunk(context, trunk_id, values):
    trunk = get_trunk(context, trunk_id)
    policy.authorize(context, 'update', KIND, trunk)
    common.check_keys(values, ('name', 'description', 'admin_state_up'),
                      KIND)
    common.check_string(values, 'name')
    common.check_string(values, 'description')
    common.check_bool(values, 'admin_state_up')
    trunk.update(values)
    net_obj.update(context, KIND, common.touch(trunk))
    return _with_status(context, trunk)


def delete_trunk(context, trunk_id):
    trunk = get_trunk(context, trunk_id)
    policy.authorize(context, 'delete', KIND, trunk)
    if trunk['status'] == 'ACTIVE':
        raise errors.conflict('TrunkInUse', 'Trunk %s is currently in use.'
                              % trunk_id)
    net_obj.destroy(context, KIND, trunk_id)
    _detach(context, trunk, [s['port_id'] for s in trunk['sub_ports']])
    _details(context, trunk, gone=True)
    LOG.info('Trunk %s deleted', trunk_id)


def _changeable(context, trunk_id):
    trunk = get_trunk(context, trunk_id)
    policy.authorize(context, 'update', KIND, trunk)
    if not trunk['admin_state_up']:
        raise errors.conflict('TrunkDisabled', 'Trunk %s is currently '
                              'disabled.' % trunk_id)
    return trunk


def _sub_ports_of(body):
    if not isinstance(body, dict) or 'sub_ports' not in body:
        raise errors.bad_request(
            "Resource body required: expected 'sub_ports'")
    return body['sub_ports']


def add_subports(context, trunk_id, body):
    """PUT /trunks/{id}/add_subports: the trunk with the new subports."""
    trunk = _changeable(context, trunk_id)
    added = _subports(context, trunk, _sub_ports_of(body))
    trunk['sub_ports'] = trunk['sub_ports'] + added
    net_obj.update(context, KIND, common.touch(trunk))
    _attach(context, trunk, added)
    LOG.info('Trunk %s: %d subports added', trunk_id, len(added))
    return _with_status(context, trunk)


def remove_subports(context, trunk_id, body):
    """PUT /trunks/{id}/remove_subports: 404 for a port that is not a
    subport of the trunk."""
    trunk = _changeable(context, trunk_id)
    wanted = _sub_ports_of(body)
    if not isinstance(wanted, list) or not all(
            isinstance(s, dict) and s.get('port_id') for s in wanted):
        raise errors.bad_request(
            "Invalid input for sub_ports. Reason: expected a list of "
            "{'port_id': ...}.")
    present = {s['port_id'] for s in trunk['sub_ports']}
    for item in wanted:
        if item['port_id'] not in present:
            raise errors.NeutronError(
                404, 'SubPortNotFound', 'SubPort on trunk %s with parent '
                'port %s could not be found.' % (trunk_id, trunk['port_id']))
    gone = {item['port_id'] for item in wanted}
    trunk['sub_ports'] = [s for s in trunk['sub_ports']
                          if s['port_id'] not in gone]
    net_obj.update(context, KIND, common.touch(trunk))
    _detach(context, trunk, gone)
    _details(context, trunk)
    LOG.info('Trunk %s: %d subports removed', trunk_id, len(gone))
    return _with_status(context, trunk)


def get_subports(context, trunk_id):
    return {'sub_ports': get_trunk(context, trunk_id)['sub_ports']}


# -- the subport actions' routes ----------------------------------------------

def _json(req):
    try:
        return req.json_body
    except ValueError:
        raise errors.bad_request('Malformed request body')


def add_subports_handler(req):
    """Neutron answers with the trunk itself, not wrapped."""
    return util.json_response(common.public(add_subports(
        util.context(req), req.urlvars['id'], _json(req))))


def remove_subports_handler(req):
    return util.json_response(common.public(remove_subports(
        util.context(req), req.urlvars['id'], _json(req))))


def get_subports_handler(req):
    return util.json_response(get_subports(util.context(req),
                                           req.urlvars['id']))


def routes(prefix):
    base = prefix + '/v2.0/trunks/{id}/'
    return {base + 'add_subports': {'PUT': add_subports_handler},
            base + 'remove_subports': {'PUT': remove_subports_handler},
            base + 'get_subports': {'GET': get_subports_handler}}
