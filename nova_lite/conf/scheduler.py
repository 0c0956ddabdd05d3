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
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)


def list_opts():
    return [(scheduler_group, scheduler_opts)]
