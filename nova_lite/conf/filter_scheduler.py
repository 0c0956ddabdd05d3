"""Options in [filter_scheduler]: filters and weighers."""

from oslo_config import cfg

filter_scheduler_group = cfg.OptGroup(
    'filter_scheduler', title='Filter scheduler', help="""
Which filters and weighers the filter scheduler runs, and how weights count.
""")

filter_scheduler_opts = [
    cfg.ListOpt('enabled_filters',
                default=['ComputeFilter', 'AvailabilityZoneFilter',
                         'ImagePropertiesFilter',
                         'ServerGroupAntiAffinityFilter',
                         'ServerGroupAffinityFilter'],
                help="""
Filters run, in order, on the hosts placement returned. Names are the
filter classes of ``nova_lite.scheduler.filters``.
"""),
    cfg.ListOpt('weight_classes', default=['all'],
                help="""
Weighers applied to the hosts that passed the filters; ``all`` means every
weigher of ``nova_lite.scheduler.weights``.
"""),
    cfg.IntOpt('host_subset_size', default=1, min=1,
               help="""
The chosen host is picked at random among this many best-weighed hosts.
"""),
]


def register_opts(conf):
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts():
    return [(filter_scheduler_group, filter_scheduler_opts)]
