"""Exceptions a virt driver raises, and what the compute does with each.

::

    NovaLiteException
    ├── VirtDriverError                 any driver failure not listed below
    │   ├── BuildFailed                 spawn failed; the compute cleans up
    │   │                               and reschedules to an alternate
    │   ├── BuildAbort                  spawn failed for good; no reschedule,
    │   │   │                           the instance goes to ERROR
    │   │   └── GuestExists             a guest with that uuid already runs
    │   ├── ReshapeNeeded               update_provider_tree must move
    │   │                               inventory; call again with allocations
    │   ├── ReshapeFailed               allocations could not be moved
    │   └── NodeNotFound                the driver does not serve that node
    └── NotFound
        └── InstanceNotFound (nova_lite.exception)
            └── GuestNotFound           the driver holds no such guest
"""

from nova_lite import exception


class VirtDriverError(exception.NovaLiteException):
    msg_fmt = 'Virt driver error: %(reason)s'


class BuildFailed(VirtDriverError):
    """A build failure worth retrying on another host."""

    msg_fmt = ('Build of instance %(instance_uuid)s failed on node '
               '%(node)s: %(reason)s')


class BuildAbort(VirtDriverError):
    """A build failure that another host would not fix."""

    msg_fmt = ('Build of instance %(instance_uuid)s aborted on node '
               '%(node)s: %(reason)s')


class GuestExists(BuildAbort):
    msg_fmt = ('Build of instance %(instance_uuid)s aborted on node '
               '%(node)s: a guest with this uuid already exists')


class ReshapeNeeded(VirtDriverError):
    msg_fmt = ('Inventory of node %(node)s must move between providers; '
               'call update_provider_tree again with allocations')


class ReshapeFailed(VirtDriverError):
    msg_fmt = 'Reshape of node %(node)s failed: %(reason)s'


class NodeNotFound(VirtDriverError):
    msg_fmt = 'Node %(node)s is not served by this compute.'
    code = 404


class GuestNotFound(exception.InstanceNotFound):
    msg_fmt = 'The virt driver holds no guest for instance %(instance_id)s.'
