"""Server actions of admins and of deferred delete: ``os-resetState``
(admins: vm state ``active`` or ``error``, no task), ``restore`` and
``forceDelete`` of a soft-deleted server (see
:mod:`nova_lite.api.compute.deferred_delete`). Each answers 202.
"""

import webob.exc

from nova_lite.compute import vm_states

_STATES = {'active': vm_states.ACTIVE, 'error': vm_states.ERROR}


def reset_state(req, api, context, server, body):
    api.reset_state(context, server, _STATES[body['os-resetState']['state']])


def inject_network_info(req, api, context, server, body):
    """Admins: Nova asks the compute to re-inject the network info into
    the guest; a server of nova_lite has no network, so there is nothing
    to send (202 all the same)."""


def reset_network(req, api, context, server, body):
    """nova-network's reset, removed in Nova 23: 410."""
    raise webob.exc.HTTPGone()


def restore(req, api, context, server, body):
    api.restore(context, server)


def force_delete(req, api, context, server, body):
    api.force_delete(context, server)


# action -> (policy rule, function)
ACTIONS = {
    'os-resetState': ('os-admin-actions:reset_state', reset_state),
    'injectNetworkInfo': ('os-admin-actions:inject_network_info',
                          inject_network_info),
    'resetNetwork': ('os-admin-actions:reset_network', reset_network),
    'restore': ('os-deferred-delete:restore', restore),
    'forceDelete': ('os-deferred-delete:force', force_delete),
}
