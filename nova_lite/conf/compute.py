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
    cfg.IntOpt('instance_build_timeout', default=1800, min=0,
               help="""
Seconds after which an instance still building is put in ERROR with a
fault and its claim and guest are freed: by its compute for builds on that
host, by the super conductor for instances that never got a host and for
build requests never scheduled. 0 disables these checks.

Nova's default is 0 (never); nova_lite's is 1800 because a build can be
lost between the API's 202 and ACTIVE (a compute killed mid-build, a
message lost in a broker crash) and then nothing else would ever end it:
it would stay BUILD, holding its claim and its quota, until an operator
noticed. Half an hour is far longer than any build of the fake driver and
than ``conductor_retry_timeout``, so a slow build is never cut short; the
labs set a few minutes.

Related options: ``conductor_retry_timeout``.
"""),
    cfg.IntOpt('conductor_retry_timeout', default=180, min=0,
               help="""
Seconds for which a compute retries a call to its cell conductor that a
build cannot do without (recording the build's start, its outcome, its
fault), when the call fails for a reason that says nothing about the
instance: a ``MessagingTimeout`` (the conductor or the bus restarting) or
the conductor's database being unreachable. Each attempt may itself wait
``[DEFAULT] rpc_response_timeout``. When the calls still fail, the build is
abandoned: its guest destroyed, its allocation deleted, and the instance
put in ERROR once the conductor answers again (or by the build timeout).
0 does not retry.

Related options: ``instance_build_timeout``.
"""),
]


def register_opts(conf):
    conf.register_group(compute_group)
    conf.register_opts(compute_opts, group=compute_group)


def list_opts():
    return [(compute_group, compute_opts)]
