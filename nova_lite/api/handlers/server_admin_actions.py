"""Server actions of admins and of deferred delete: ``os-resetState``
(admins: vm state ``active`` or ``error``, no task), ``restore`` and
``forceDelete`` of a soft-deleted server (see
:mod:`nova_lite.api.compute.deferred_delete`). Each answers 202.
"""

from nova_lite.compute import vm_states

_STATES = {'active': vm_states.ACTIVE, 'error': vm_states.ERROR}


def reset_state(req, api, context, server, body):
    api.reset_state(context, server, _STATES[body['os-resetState']['state']])


def restore(req, api, context, server, body):
    api.restore(context, server)


def force_delete(req, api, context, server, body):
    api.force_delete(context, server)


# action -> (policy rule, function)
ACTIONS = {
    'os-resetState': ('os-admin-actions:reset_state', reset_state),
    'restore': ('os-deferred-delete:restore', restore),
    'forceDelete': ('os-deferred-delete:force', force_delete),
}
