"""Options in [compute]: nova-lite-compute and its resource tracker."""

from oslo_config import cfg

compute_group = cfg.OptGroup('compute', title='Compute', help="""
How a compute process tracks and reports its resources.
""")

compute_opts = [
    cfg.IntOpt('update_resources_interval', default=60, min=0,
               help="""
Seconds between two runs of the resource tracker's periodic update
(refresh ``compute_nodes`` through the conductor, flush provider trees to
placement). 0 runs it at the default periodic spacing.
"""),
    cfg.IntOpt('instance_build_timeout', default=0, min=0,
               help="""
Seconds after which an instance still building on this host is put in
ERROR with a fault. 0 disables the check.
"""),
]


def register_opts(conf):
    conf.register_group(compute_group)
    conf.register_opts(compute_opts, group=compute_group)


def list_opts():
    return [(compute_group, compute_opts)]
