"""Options in [DEFAULT]: identity of the process, state and liveness.

``transport_url`` and ``rpc_response_timeout`` are oslo.messaging's own
options in [DEFAULT]; they appear in the sample through the
``oslo.messaging`` generator namespace.
"""

import os
import socket

from oslo_config import cfg
from oslo_utils import netutils
from oslo_service import opts as service_opts

default_opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='<current_hostname>',
               help="""
Name of this node, unique in the cloud.

It names the service record (with the binary) and is the RPC server name a
compute listens on, so two compute processes must never share it.

Possible values: any string without spaces; the machine's host name by
default.
"""),
    cfg.HostAddressOpt('my_ip',
                       default=netutils.get_my_ipv4(),
                       sample_default='<host_ipv4>',
                       help="""
Address of this host on the management network, as in Nova.

A compute reports it as the ``host_ip`` of its nodes (``openstack hypervisor
list``, the ``SimpleCIDRAffinityFilter``). A multi-node lab sets it to the
address the node is reached at (``NOVA_LITE_HOST_IP`` of devstack/stack.sh).

Possible values: an IPv4 or IPv6 address; by default the address of the
interface of this machine's default route (127.0.0.1 when it has none).
"""),
    cfg.StrOpt('state_path',
               default=os.path.join(os.path.expanduser('~'), '.nova-lite'),
               sample_default='$HOME/.nova-lite',
               help="""
Directory where nova_lite keeps local state: SQLite databases of the
embedded default, the fake driver's guest records, lock files.
"""),
    cfg.IntOpt('report_interval',
               default=10,
               min=1,
               help="""
Seconds between two heartbeats of a service in its cell's ``services`` table.

Related options: ``service_down_time`` should be several times this value.
"""),
    cfg.IntOpt('service_down_time',
               default=60,
               min=1,
               help="""
Seconds since the last heartbeat after which a service is reported down.

Related options: ``report_interval``.
"""),
    cfg.BoolOpt('periodic_enable',
                default=True,
                help="""
Run the periodic tasks of managers. Functional tests turn this off and run
them by hand.
"""),
    cfg.IntOpt('periodic_fuzzy_delay',
               default=5,
               min=0,
               help="""
Upper bound in seconds of a random delay before the first periodic task run,
so processes started together do not act in lock step.
"""),
    cfg.IntOpt('long_rpc_timeout',
               default=1800,
               min=1,
               help="""
Timeout in seconds for RPC calls known to take long, such as
``select_destinations``; liveness of the callee is checked every
``rpc_response_timeout`` meanwhile.
"""),
    cfg.StrOpt('default_availability_zone',
               default='nova',
               help="""
Availability zone of compute hosts that belong to no aggregate with an
``availability_zone`` metadata key.

Related options: ``default_schedule_zone``.
"""),
    cfg.StrOpt('default_schedule_zone',
               help="""
Availability zone given to servers created without one. Unset: the
scheduler may pick a host in any zone.
"""),
    cfg.StrOpt('compute_driver',
               default='fake.FakeDriver',
               help="""
Virt driver a compute uses, as ``module.Class`` under ``nova_lite.virt``.

Possible values: ``fake.FakeDriver``.
"""),
    cfg.BoolOpt('allow_resize_to_same_host',
                default=False,
                help="""
Let the scheduler keep a resized server on the host it runs on.

A resize normally moves the server: its host is in the request's
``ignore_hosts``. With this on the current host may be chosen too; the
migration then holds the old flavor and the server the new flavor on the
same resource provider until the resize is confirmed or reverted, so the
host needs room for both. A cold migration (same flavor) never stays on
its host because of this option: only a host whose provider has the trait
``COMPUTE_SAME_HOST_COLD_MIGRATE`` may keep it.
"""),
    cfg.IntOpt('resize_confirm_window',
               default=0,
               min=0,
               help="""
Seconds after which a compute confirms, by itself, a resize or cold
migration left in ``VERIFY_RESIZE``.

Possible values: ``0`` never confirms automatically (the default); a
positive number confirms migrations that finished more than that many
seconds ago, from a periodic task of the destination compute.
"""),
    cfg.IntOpt('shelved_offload_time',
               default=0,
               min=-1,
               help="""
Seconds a shelved server keeps its guest and its resources on its host
before the compute offloads it (destroys the guest, frees its allocation
in placement: status ``SHELVED_OFFLOADED``).

Possible values: ``0`` offloads right when the shelve finishes (the
default); a positive number offloads after that many seconds, from a
periodic task of the compute; ``-1`` never offloads by itself (an admin
can still ``shelveOffload``).
"""),
    cfg.IntOpt('reclaim_instance_interval',
               default=0,
               help="""
Seconds a deleted server stays ``SOFT_DELETED`` (its guest powered off,
its resources still claimed) before its compute reclaims it for good.

Possible values: ``0`` or less deletes servers right away (the default);
a positive number makes ``DELETE /servers/{id}`` a soft delete that the
owner can undo with the ``restore`` action (or finish with
``forceDelete``); a periodic task of the compute reclaims soft-deleted
servers older than this.
"""),
    cfg.BoolOpt('instance_usage_audit',
                default=False,
                help="""
Whether each compute audits, once per period (the last completed calendar
month), the instances that ran on its host and records the run as a task
log that ``os-instance_usage_audit_log`` reports. Off (the default),
every compute is listed as not run there, as in Nova.
"""),
    cfg.IntOpt('migrate_max_retries',
               default=-1,
               min=-1,
               help="""
How many more destinations a live migration may try after the first one
the scheduler picked was rejected by the destination's checks (each
rejected host is left out of the next scheduling round).

Possible values: ``-1`` retries until no host is left (the default);
``0`` never retries; a positive number of retries.
"""),
]


def register_opts(conf):
    conf.register_opts(default_opts)
    # NOTE(nova_lite): graceful_shutdown_timeout (seconds a service waits
    # for in-flight work after SIGTERM; 0 waits without limit) is
    # oslo.service's own option, which its launcher registers again: a
    # definition of ours would clash with it.
    service_opts.register_service_opts(conf)


def list_opts():
    return [('DEFAULT', default_opts)]
