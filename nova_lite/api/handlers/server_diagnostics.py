"""GET /servers/{server_id}/diagnostics (admins): the guest's
diagnostics, asked of its compute.

Before 2.48 the driver's free-form counters; from 2.48 the standard
format (``state``, ``driver``, ``hypervisor``, ``num_cpus``,
``cpu_details``, ``memory_details``...). A server with no host, or whose
guest is not running, is a 409, as in Nova.
"""

import webob.exc

from nova_lite.api.handlers import servers
from nova_lite.api import microversion
from nova_lite.api import util
from nova_lite import cells
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception

# The 2.48 view: every field, None when the driver did not say.
_FIELDS = ('state', 'driver', 'hypervisor', 'hypervisor_os', 'uptime',
           'config_drive', 'num_cpus', 'num_nics', 'num_disks')
_LISTS = {
    'cpu_details': ('id', 'time', 'utilisation'),
    'nic_details': ('mac_address', 'rx_octets', 'rx_errors', 'rx_drop',
                    'rx_packets', 'rx_rate', 'tx_octets', 'tx_errors',
                    'tx_drop', 'tx_packets', 'tx_rate'),
    'disk_details': ('read_bytes', 'read_requests', 'write_bytes',
                     'write_requests', 'errors_count'),
}
_OBJECTS = {'memory_details': ('maximum', 'used')}


def _standard(diagnostics):
    view = {name: diagnostics.get(name) for name in _FIELDS}
    for name, keys in _LISTS.items():
        view[name] = [{key: item.get(key) for key in keys}
                      for item in diagnostics.get(name) or []]
    for name, keys in _OBJECTS.items():
        item = diagnostics.get(name) or {}
        view[name] = {key: item.get(key) for key in keys}
    return view


def show_diagnostics(req):
    """GET: 200 with the diagnostics; 409 without a running guest."""
    server = servers.get_server(req, req.urlvars['server_id'],
                                'os-server-diagnostics')
    instance = server.instance
    if server.build_request or server.cell is None or not instance.host:
        raise webob.exc.HTTPConflict(
            'Instance %s is not ready yet: it has no host.' % server.uuid)
    rpcapi = compute_rpcapi.ComputeAPI()
    standard = microversion.at_least(req, '2.48')
    with cells.target_cell(util.context(req), server.cell) as cctxt:
        try:
            if standard:
                return util.json_response(_standard(
                    rpcapi.get_instance_diagnostics(cctxt, instance)))
            return util.json_response(rpcapi.get_diagnostics(cctxt,
                                                             instance))
        except exception.InstanceInvalidState as error:
            raise webob.exc.HTTPConflict(
                "Cannot 'get_diagnostics' instance %s while it is in %s" % (
                    server.uuid, error.kwargs.get('state')))
