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
    cfg.IntOpt('resource_provider_association_refresh', default=300,
               min=0, help="""
Seconds between two checks that the provider trees placement holds are
still the ones the compute last wrote (one provider listing for all the
compute's nodes, or one ``GET /resource_providers?in_tree=`` for a single
node; providers whose generation moved are re-read). Allocations move
generations too, so allocated providers are re-read at each check. Between
checks a periodic update with nothing changed sends placement no request
at all. 0 checks at every periodic update.

Related options: ``update_resources_interval``.
"""),
    cfg.IntOpt('max_concurrent_builds', default=10, min=1,
               help="""
Builds this compute runs at the same time; more wait their turn.
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
