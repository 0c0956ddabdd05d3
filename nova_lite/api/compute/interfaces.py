"""Interfaces attached and detached after boot (``os-interface``).

As in Nova: the server must be active, paused or stopped with no task
(409 otherwise, or when locked); the port comes from the network service
(:mod:`nova_lite.network.interface`), bound to the server and its host,
then the server's compute plugs it into the guest over an RPC call. A
failed plug gives the port back (a port the caller gave is unbound, one
made for the attach is deleted), so nothing is left half attached.
Detach unplugs first, then releases the port the same way.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.api.compute import actions
from nova_lite import cells
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite.network import interface as net_compute
from nova_lite import objects

LOG = logging.getLogger(__name__)

_ALLOWED = (vm_states.ACTIVE, vm_states.PAUSED, vm_states.STOPPED)


class InterfacesAPI:
    """Attach and detach ports through the server's compute
    (``compute_rpcapi``)."""

    def __init__(self, compute_rpcapi):
        self.compute_rpcapi = compute_rpcapi

    def attach(self, context, server, network_id=None, port_id=None,
               fixed_ip=None, tag=None):
        """The port now attached to the server (``tag``: its device tag,
        shown from 2.70)."""
        instance = actions.instance_for(context, server, 'attach_interface',
                                        _ALLOWED)
        port = net_compute.attach_port(context, instance,
                                       network_id=network_id,
                                       port_id=port_id, fixed_ip=fixed_ip,
                                       tag=tag)
        with cells.target_cell(context, server.cell) as cctxt:
            objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                'attach_interface')
            try:
                _call(self.compute_rpcapi.attach_interface, cctxt,
                      instance, port['id'])
            except Exception:
                net_compute.detach_port(context, port)
                raise
        LOG.info('Port %s attached to instance %s', port['id'],
                 instance.uuid)
        return port

    def detach(self, context, server, port_id):
        instance = actions.instance_for(context, server, 'detach_interface',
                                        _ALLOWED)
        port = net_compute.bound_port(context, instance.uuid, port_id)
        with cells.target_cell(context, server.cell) as cctxt:
            objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                'detach_interface')
            _call(self.compute_rpcapi.detach_interface, cctxt, instance,
                  port_id)
        net_compute.detach_port(context, port)
        LOG.info('Port %s detached from instance %s', port_id,
                 instance.uuid)


def _call(method, cctxt, instance, port_id):
    """An RPC call to the instance's compute; 503 when it does not
    answer in time (the port stays as it was)."""
    try:
        method(cctxt, instance, port_id)
    except messaging.MessagingTimeout:
        raise exception.ServiceUnavailable(
            reason='the compute %s did not answer' % instance.host)
