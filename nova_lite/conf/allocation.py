"""Options in [DEFAULT]: allocation ratios and reserved host resources.

They live in [DEFAULT], as in Nova, and go into the inventory each virt
driver reports to placement (``ComputeDriver.update_provider_tree``);
placement's capacity for a resource class is ``(total - reserved) *
allocation_ratio``. No scheduler filter reads them.
"""

from oslo_config import cfg

_RATIO_HELP = """
Virtual %(what)s per physical %(what)s reported to placement as the
``allocation_ratio`` of the %(rc)s inventory of every compute node.

Unset (the default) keeps whatever the inventory already has, so a ratio
set through the placement API survives; a new provider then starts with
``initial_%(name)s``. Setting it overrides placement on every periodic
update.

Possible values: unset, or a float >= 0.0.

Related options: ``initial_%(name)s``.
"""

_INITIAL_HELP = """
``allocation_ratio`` of the %(rc)s inventory of a provider reported for
the first time, used only while ``%(name)s`` is unset.

Related options: ``%(name)s``.
"""


def _ratio_opts(name, what, rc, initial):
    values = {'name': name, 'what': what, 'rc': rc}
    return [
        cfg.FloatOpt(name, min=0.0, help=_RATIO_HELP % values),
        cfg.FloatOpt('initial_' + name, default=initial, min=0.0,
                     help=_INITIAL_HELP % values),
    ]


allocation_opts = (
    _ratio_opts('cpu_allocation_ratio', 'CPU', 'VCPU', 4.0) +
    _ratio_opts('ram_allocation_ratio', 'RAM', 'MEMORY_MB', 1.0) +
    _ratio_opts('disk_allocation_ratio', 'disk', 'DISK_GB', 1.0) +
    [
        cfg.IntOpt('reserved_host_cpus', default=0, min=0, help="""
VCPUs of every compute node kept for the host, reported as the
``reserved`` amount of its VCPU inventory.
"""),
        cfg.IntOpt('reserved_host_memory_mb', default=512, min=0, help="""
Memory in MB of every compute node kept for the host, reported as the
``reserved`` amount of its MEMORY_MB inventory (capped at the total).
"""),
        cfg.IntOpt('reserved_host_disk_mb', default=0, min=0, help="""
Disk in MB of every compute node kept for the host, reported as the
``reserved`` amount of its DISK_GB inventory, rounded up to whole GB.
"""),
    ])


def register_opts(conf):
    conf.register_opts(allocation_opts)


def list_opts():
    return [('DEFAULT', allocation_opts)]
