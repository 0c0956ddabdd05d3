"""Options in [scheduler]: nova-lite-scheduler."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup('scheduler', title='Scheduler', help="""
How nova-lite-scheduler picks hosts.
""")

scheduler_opts = [
    cfg.StrOpt('driver', default='filter_scheduler',
               choices=[('filter_scheduler', 'Filter and weigh the hosts '
                         'placement returned, claim the best.'),
                        ('chance_scheduler', 'Pick at random among the '
                         'hosts placement returned.')],
               help='Scheduler driver.'),
    cfg.IntOpt('max_attempts', default=3, min=1,
               help="""
Hosts tried for one build: the chosen host plus ``max_attempts - 1``
alternates from the same cell, used by reschedules.
"""),
    cfg.IntOpt('max_placement_results', default=1000, min=1,
               help="""
``limit`` of the allocation candidates query sent to placement.
"""),
    cfg.IntOpt('discover_hosts_in_cells_interval', default=-1, min=-1,
               help="""
Seconds between two automatic host discoveries by the scheduler; -1
disables it (use ``nova-lite-manage cell_v2 discover_hosts``).
"""),
    cfg.IntOpt('workers', default=1, min=1,
               help='Number of scheduler worker processes.'),
    cfg.FloatOpt('cell_timeout', default=10.0, min=0.1,
                 help="""
Seconds the host manager waits for one cell database when it refreshes host
states. A cell that errors or does not answer in time is skipped (with a
warning) for that request: its hosts are not scheduled to.
"""),
    cfg.FloatOpt('host_state_refresh_margin', default=2.0, min=0.0,
                 help="""
The host manager re-reads only the compute nodes and instances changed since
its last read, minus this many seconds (rows written by a transaction that
committed late, or by a host whose clock is a little behind).

Related options: host_state_full_refresh_interval.
"""),
    cfg.FloatOpt('host_state_full_refresh_interval', default=60.0, min=0.0,
                 help="""
Seconds between two full reloads of a cell's compute nodes and instances by
the host manager (between them, only changed rows are read). 0 reloads
everything on every request.

Related options: host_state_refresh_margin.
"""),
    cfg.IntOpt('claim_retries', default=3, min=0,
               help="""
How many times the scheduler retries a claim on the same host when placement
answers 409 because a provider's generation changed under it (another claim
landed on the same provider). A 409 for lack of room moves on to the next
host at once.
"""),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)


def list_opts():
    return [(scheduler_group, scheduler_opts)]
