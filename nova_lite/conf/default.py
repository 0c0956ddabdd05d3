"""Options in [DEFAULT]: identity of the process, state and liveness.

``transport_url`` and ``rpc_response_timeout`` are oslo.messaging's own
options in [DEFAULT]; they appear in the sample through the
``oslo.messaging`` generator namespace.
"""

import os
import socket

from oslo_config import cfg
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
