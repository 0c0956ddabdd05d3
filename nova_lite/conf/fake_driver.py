"""Options in [fake_driver]: the fake virt driver's nodes and faults.

One compute process serving many fake nodes (as Ironic does) lets a lab run
thousands of hypervisors on one machine; the fault injection options make
reschedules reproducible.
"""

from oslo_config import cfg

fake_driver_group = cfg.OptGroup('fake_driver', title='Fake virt driver',
                                 help=__doc__)

fake_driver_opts = [
    cfg.StrOpt('nodes', default='1',
               help="""
Nodes this compute serves: a count (nodes named ``<host>-node-<i>``) or a
comma-separated list of node names, unique in the whole cloud.
"""),
    cfg.IntOpt('vcpus', default=16, min=0, help='VCPU inventory per node.'),
    cfg.IntOpt('memory_mb', default=32768, min=0,
               help='MEMORY_MB inventory per node.'),
    cfg.IntOpt('disk_gb', default=1024, min=0,
               help='DISK_GB inventory per node.'),
    cfg.IntOpt('numa_nodes', default=0, min=0,
               help='NUMA cell child providers per nested node.'),
    cfg.IntOpt('sriov_pfs', default=0, min=0,
               help='SR-IOV physical function child providers per node.'),
    cfg.IntOpt('vfs_per_pf', default=8, min=0,
               help='SRIOV_NET_VF inventory of each physical function.'),
    cfg.ListOpt('physnets', default=['physnet1'],
                help="""
Physical networks; PF number i carries the trait ``CUSTOM_PHYSNET_<NAME>``
of ``physnets[i % len(physnets)]``.
"""),
    cfg.IntOpt('pgpus', default=0, min=0,
               help='Physical GPUs per node (VGPU inventory).'),
    cfg.IntOpt('vgpus_per_pgpu', default=4, min=0,
               help='VGPU inventory of each physical GPU.'),
    cfg.StrOpt('nested_nodes', default='all',
               help="""
Which nodes get the nested children above: ``all``, a count (the first N
nodes) or a comma-separated list of node names.
"""),
    cfg.BoolOpt('vgpu_on_children', default=False,
                help="""
False reports VGPU inventory on the root provider; True on one child
provider per physical GPU. Flipping it on a node with VGPU allocations
triggers a reshape.
"""),
    cfg.ListOpt('fail_spawn_nodes', default=[],
                help='Spawns on these nodes fail (and reschedule).'),
    cfg.IntOpt('fail_every_nth_spawn', default=0, min=0,
               help='Every Nth spawn of this process fails; 0 never.'),
    cfg.FloatOpt('fail_probability', default=0.0, min=0.0, max=1.0,
                 help='Probability that a spawn fails.'),
    cfg.IntOpt('seed', help='Seed of the random failures, for repeatable runs.'),
    cfg.ListOpt('abort_spawn_nodes', default=[],
                help="""
Spawns on these nodes abort: the build fails without reschedule, as Nova's
build-abort errors do.
"""),
    cfg.FloatOpt('spawn_delay', default=0.0, min=0.0,
                 help='Seconds every spawn takes.'),
]


def register_opts(conf):
    conf.register_group(fake_driver_group)
    conf.register_opts(fake_driver_opts, group=fake_driver_group)


def list_opts():
    return [(fake_driver_group, fake_driver_opts)]
