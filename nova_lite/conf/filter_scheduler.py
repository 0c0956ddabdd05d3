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

Possible values: 1 (always the best host, deterministic) or more (spreads
concurrent schedulers over several good hosts, fewer claim conflicts).
"""),
    cfg.BoolOpt('shuffle_best_same_weighed_hosts', default=False,
                help="""
Shuffle the hosts that share the best weight before picking, so that equal
hosts (e.g. identical empty nodes) are not always taken in the same order.
"""),
    cfg.IntOpt('max_io_ops_per_host', default=8, min=0,
               help="""
IoOpsFilter: a host with this many or more concurrent I/O-heavy tasks
(builds, resizes, snapshots...) is not picked. AggregateIoOpsFilter reads
an aggregate metadata key of the same name first.
"""),
    cfg.IntOpt('max_instances_per_host', default=50, min=1,
               help="""
NumInstancesFilter: a host with this many or more instances is not picked.
AggregateNumInstancesFilter reads an aggregate metadata key of the same
name first.
"""),
    cfg.StrOpt('aggregate_image_properties_isolation_namespace',
               help="""
AggregateImagePropertiesIsolation only compares aggregate metadata keys in
this namespace (e.g. ``isolation`` for keys ``isolation.os_distro``). Unset:
every key.

Related options: aggregate_image_properties_isolation_separator.
"""),
    cfg.StrOpt('aggregate_image_properties_isolation_separator',
               default='.',
               help="""
Separator between the namespace and the key name for
AggregateImagePropertiesIsolation.
"""),
    cfg.StrOpt('image_properties_default_architecture',
               help="""
ImagePropertiesFilter: architecture assumed for images that do not set
``hw_architecture``. Unset: such images match any architecture.
"""),
    cfg.FloatOpt('ram_weight_multiplier', default=1.0,
                 help="""
RAMWeigher multiplier. Positive spreads instances (most free RAM first),
negative stacks them. Aggregate metadata ``ram_weight_multiplier``
overrides it per host.
"""),
    cfg.FloatOpt('disk_weight_multiplier', default=1.0,
                 help="""
DiskWeigher multiplier. Positive spreads instances (most free disk
first), negative stacks them.
"""),
    cfg.FloatOpt('cpu_weight_multiplier', default=1.0,
                 help="""
CPUWeigher multiplier. Positive spreads instances (most free vCPUs
first), negative stacks them.
"""),
    cfg.FloatOpt('io_ops_weight_multiplier', default=-1.0,
                 help="""
IoOpsWeigher multiplier. Negative (default) prefers hosts with fewer
concurrent I/O-heavy tasks; positive prefers busy hosts.
"""),
    cfg.FloatOpt('num_instances_weight_multiplier', default=0.0,
                 help="""
NumInstancesWeigher multiplier. Positive prefers hosts with more
instances (packing), negative fewer (spreading); 0 (default) ignores it.
"""),
    cfg.FloatOpt('build_failure_weight_multiplier', default=1000000.0,
                 help="""
BuildFailureWeigher multiplier: how strongly hosts with recent build
failures are avoided. The large default outweighs every other weigher;
0 disables it.
"""),
    cfg.FloatOpt('cross_cell_move_weight_multiplier', default=1000000.0,
                 help="""
CrossCellWeigher multiplier: during a move that may cross cells, positive
prefers hosts in the instance's current cell, negative other cells.
"""),
    cfg.FloatOpt('soft_affinity_weight_multiplier', default=1.0, min=0.0,
                 help="""
ServerGroupSoftAffinityWeigher multiplier for ``soft-affinity`` groups:
hosts running more group members weigh more.
"""),
    cfg.FloatOpt('soft_anti_affinity_weight_multiplier', default=1.0,
                 min=0.0, help="""
ServerGroupSoftAntiAffinityWeigher multiplier for ``soft-anti-affinity``
groups: hosts running more group members weigh less.
"""),
]

# NOTE(sched): these request prefilter switches keep Nova's names and group
# ([scheduler]); they are defined here, next to the code that reads them,
# and may move to nova_lite/conf/scheduler.py unchanged.
prefilter_opts = [
    cfg.BoolOpt('limit_tenants_to_placement_aggregate', default=False,
                help="""
Send requests of a project only to the placement aggregates whose host
aggregate metadata ``filter_tenant_id`` (or ``filter_tenant_id<suffix>``)
names that project. Projects named nowhere go anywhere unless
placement_aggregate_required_for_tenants is set.
"""),
    cfg.BoolOpt('placement_aggregate_required_for_tenants', default=False,
                help="""
With limit_tenants_to_placement_aggregate, a project named by no
aggregate gets no host (instead of any host).
"""),
    cfg.BoolOpt('query_placement_for_image_type_support', default=False,
                help="""
Ask placement only for compute nodes with the trait
``COMPUTE_IMAGE_TYPE_<disk format>`` of the image (e.g. QCOW2, RAW).
"""),
]

# NOTE(sched): Nova's [metrics] group, read by MetricsWeigher/MetricsFilter.
metrics_group = cfg.OptGroup('metrics', title='Metrics weigher', help="""
How host metrics reported by computes weigh hosts.
""")

metrics_opts = [
    cfg.FloatOpt('weight_multiplier', default=1.0, help="""
MetricsWeigher multiplier.
"""),
    cfg.ListOpt('weight_setting', default=[], help="""
Metrics and their ratios, as ``name=ratio`` items (e.g.
``cpu.frequency=1.0, load=-0.5``); a host weighs the sum of metric times
ratio.
"""),
    cfg.BoolOpt('required', default=True, help="""
Whether the metrics of weight_setting are required: MetricsFilter removes
hosts missing one. Hosts that reach MetricsWeigher without a metric weigh
weight_of_unavailable either way.
"""),
    cfg.FloatOpt('weight_of_unavailable', default=-10000.0, help="""
Weight of a host missing a metric of weight_setting.
"""),
]


def register_opts(conf):
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)
    conf.register_opts(prefilter_opts, group='scheduler')
    conf.register_group(metrics_group)
    conf.register_opts(metrics_opts, group=metrics_group)


def list_opts():
    return [(filter_scheduler_group, filter_scheduler_opts),
            ('scheduler', prefilter_opts),
            (metrics_group, metrics_opts)]
