"""os-hosts (admins, up to 2.42): the legacy view of hosts.

The list shows every service's host with its service topic and zone;
showing a compute host gives its capacity ``(total)``, what its nodes
report in use ``(used_now)``, what its instances add up to
``(used_max)``, and one line per project with instances there.

``PUT`` (enable/disable, maintenance mode) and the power actions
(``/reboot``, ``/shutdown``, ``/startup``) are driver calls in Nova: its
fake driver only echoes them (``enabled``, ``on_maintenance``, the
action), changing nothing. nova_lite's computes are that fake driver, so
the API answers as it would, once the host is known to be a compute host
(404 otherwise, as Nova).
"""

import collections

import webob.exc

from nova_lite import cells
from nova_lite.api import host_info
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api.schemas import hosts as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import exception
from nova_lite.objects import compute_node as compute_node_obj
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import service as service_obj


@microversion.require(max_version='2.42')
def list_hosts(req):
    """GET /os-hosts[?zone=]."""
    context = util.context(req)
    policy.authorize(context, 'os-hosts:list')
    services, _down = host_info.all_services(context)
    zones = host_info.zones_by_host(context)
    hosts = [{'host_name': e.item.host,
              'service': e.item.topic or e.item.binary,
              'zone': host_info.zone_of_service(e.item, zones)}
             for e in services]
    zone = req.GET.get('zone')
    if zone:
        hosts = [h for h in hosts if h['zone'] == zone]
    return util.json_response({'hosts': hosts})


def _resource(host, project, cpu, memory_mb, disk_gb):
    return {'resource': {'host': host, 'project': project, 'cpu': cpu,
                         'memory_mb': memory_mb, 'disk_gb': disk_gb}}


def _host_resources(cctxt, host):
    nodes = compute_node_obj.ComputeNodeList.get_all_by_host(cctxt, host)
    if not nodes:
        raise webob.exc.HTTPNotFound('Host %s could not be found.' % host)
    instances = instance_obj.InstanceList.get_by_host(cctxt, host)
    rows = [
        _resource(host, '(total)', sum(n.vcpus for n in nodes),
                  sum(n.memory_mb for n in nodes),
                  sum(n.local_gb for n in nodes)),
        _resource(host, '(used_now)', sum(n.vcpus_used for n in nodes),
                  sum(n.memory_mb_used for n in nodes),
                  sum(n.local_gb_used for n in nodes)),
    ]
    per_project = collections.defaultdict(lambda: [0, 0, 0])
    for instance in instances:
        sums = per_project[instance.project_id]
        sums[0] += instance.vcpus or 0
        sums[1] += instance.memory_mb or 0
        sums[2] += (instance.root_gb or 0) + (instance.ephemeral_gb or 0)
    total = [sum(s[i] for s in per_project.values()) for i in range(3)]
    rows.append(_resource(host, '(used_max)', *total))
    rows.extend(_resource(host, project, *sums)
                for project, sums in sorted(per_project.items()))
    return rows


@microversion.require(max_version='2.42')
def show_host(req):
    """GET /os-hosts/{host_name}: capacity and usage of a compute host."""
    context = util.context(req)
    policy.authorize(context, 'os-hosts:show')
    host = req.urlvars['host_name']
    try:
        cell = cells.cell_for_host(context, host)
    except exception.HostMappingNotFound:
        entry = host_info.compute_services_by_host(context).get(host)
        if entry is None:
            raise webob.exc.HTTPNotFound(
                'Host %s could not be found.' % host)
        cell = next(c for c in cells.get_cells(context)
                    if c.uuid == entry.cell_uuid)
    with cells.target_cell(context, cell) as cctxt:
        rows = _host_resources(cctxt, host)
    return util.json_response({'host': rows})


def _assert_compute_host(context, host):
    """404 unless ``host`` is mapped to a cell and runs a compute there
    (Nova's messages for either case)."""
    try:
        cell = cells.cell_for_host(context, host)
    except exception.HostMappingNotFound:
        raise webob.exc.HTTPNotFound(
            "Host '%s' is not mapped to any cell" % host)
    with cells.target_cell(context, cell) as cctxt:
        try:
            service_obj.Service.get_by_host_and_binary(
                cctxt, host, host_info.COMPUTE_BINARY)
        except exception.NotFound:
            raise webob.exc.HTTPNotFound(
                'Compute host %s could not be found.' % host)


def _enabled(value):
    return None if value is None else value.strip().lower() == 'enable'


@microversion.require(max_version='2.42')
def update_host(req):
    """PUT /os-hosts/{host_name} {"status"?, "maintenance_mode"?}: what the
    fake driver answers (``enabled``/``disabled``,
    ``on_maintenance``/``off_maintenance``)."""
    context = util.context(req)
    policy.authorize(context, 'os-hosts:update')
    body = validation.body(req, schema.UPDATE)
    host = req.urlvars['host_name']
    status = _enabled(body.get('status'))
    maintenance = _enabled(body.get('maintenance_mode'))
    _assert_compute_host(context, host)
    result = {'host': host}
    if status is not None:
        result['status'] = 'enabled' if status else 'disabled'
    if maintenance is not None:
        result['maintenance_mode'] = ('on_maintenance' if maintenance
                                      else 'off_maintenance')
    return util.json_response(result)


def _power_action(req, rule, action):
    context = util.context(req)
    policy.authorize(context, rule)
    host = req.urlvars['host_name']
    _assert_compute_host(context, host)
    return util.json_response({'host': host, 'power_action': action})


@microversion.require(max_version='2.42')
def reboot_host(req):
    """GET /os-hosts/{host_name}/reboot."""
    return _power_action(req, 'os-hosts:reboot', 'reboot')


@microversion.require(max_version='2.42')
def shutdown_host(req):
    """GET /os-hosts/{host_name}/shutdown."""
    return _power_action(req, 'os-hosts:shutdown', 'shutdown')


@microversion.require(max_version='2.42')
def startup_host(req):
    """GET /os-hosts/{host_name}/startup."""
    return _power_action(req, 'os-hosts:start', 'startup')
