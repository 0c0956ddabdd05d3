"""Options in [fake_driver]: the fake virt driver's nodes and faults.

One compute process serving many fake nodes (as Ironic does) lets a lab run
thousands of hypervisors on one machine; the fault injection options make
reschedules reproducible. Everything is read and checked once, when the
compute starts: a bad value stops it with one line naming the option.
"""

from oslo_config import cfg

fake_driver_group = cfg.OptGroup('fake_driver', title='Fake virt driver',
                                 help=__doc__)

fake_driver_opts = [
    cfg.StrOpt('nodes', default='1',
               help="""
Nodes this compute serves.

Possible values:

* a count N: nodes ``<host>-node-0`` ... ``<host>-node-<N-1>``, unique in
  the cloud because ``[DEFAULT] host`` is;
* a comma-separated list of node names, which must be unique in the whole
  cloud (they name the compute node records and placement providers).

Each node's provider uuid is derived from its name, so it stays the same
across restarts.
"""),
    cfg.IntOpt('vcpus', default=16, min=0,
               help='VCPU inventory per node (0 reports none).'),
    cfg.IntOpt('memory_mb', default=32768, min=0,
               help="""
MEMORY_MB inventory per node (0 reports none).

Related options: ``[DEFAULT] reserved_host_memory_mb`` (capped at this).
"""),
    cfg.IntOpt('disk_gb', default=1024, min=0,
               help='DISK_GB inventory per node (0 reports none).'),
    cfg.IntOpt('numa_nodes', default=0, min=0,
               help="""
NUMA cell child providers (``<node>_numa<i>``) per nested node. With one or
more, VCPU and MEMORY_MB (and their reserved amounts) are split evenly
across the cells instead of sitting on the root, and the root gets the
``HW_NUMA_ROOT`` trait. Changing it on a node with VCPU or memory
allocations needs a reshape.

Related options: ``nested_nodes``.
"""),
    cfg.IntOpt('sriov_pfs', default=0, min=0,
               help="""
SR-IOV physical function child providers (``<node>_pf<i>``) per nested
node, each with SRIOV_NET_VF inventory and the ``HW_NIC_SRIOV`` trait.

Related options: ``vfs_per_pf``, ``physnets``, ``nested_nodes``.
"""),
    cfg.IntOpt('vfs_per_pf', default=8, min=0,
               help='SRIOV_NET_VF inventory of each physical function.'),
    cfg.ListOpt('physnets', default=['physnet1'],
                help="""
Physical networks; PF number i carries the trait ``CUSTOM_PHYSNET_<NAME>``
of ``physnets[i % len(physnets)]`` (the name upper-cased, other characters
than letters and digits turned into ``_``). Empty: no physnet trait.
"""),
    cfg.IntOpt('pgpus', default=0, min=0,
               help="""
Physical GPUs per nested node; they provide VGPU inventory, on the root or
on one child per GPU (``<node>_pgpu<i>``).

Related options: ``vgpus_per_pgpu``, ``vgpu_on_children``.
"""),
    cfg.IntOpt('vgpus_per_pgpu', default=4, min=0,
               help='VGPU inventory of each physical GPU.'),
    cfg.StrOpt('nested_nodes', default='all',
               help="""
Which nodes get the nested children (``numa_nodes``, ``sriov_pfs``,
``pgpus``).

Possible values: ``all``; a count N (the first N nodes); a comma-separated
list of names, each one of ``nodes``; an empty string for none.
"""),
    cfg.BoolOpt('vgpu_on_children', default=False,
                help="""
False reports VGPU inventory on the root provider; True on one child
provider per physical GPU. Flipping it (either way) moves the inventory
between providers: the resource tracker is told a reshape is needed, and
the existing VGPU allocations move with the inventory in one
``POST /reshaper``.
"""),
    cfg.ListOpt('fail_spawn_nodes', default=[],
                help="""
Spawns on these nodes fail with a reschedulable error, so the build moves
to an alternate host. Each name must be one of ``nodes``.
"""),
    cfg.IntOpt('fail_every_nth_spawn', default=0, min=0,
               help="""
Every Nth spawn of this compute process (counted over all its nodes since
it started) fails with a reschedulable error; 0 never.
"""),
    cfg.FloatOpt('fail_probability', default=0.0, min=0.0, max=1.0,
                 help="""
Probability that a spawn fails with a reschedulable error.

Related options: ``seed``.
"""),
    cfg.IntOpt('seed',
               help="""
Seed of the random failures: with the same seed, the same spawns (by
order since start) fail in every run. Unset: a different sequence each run.
"""),
    cfg.ListOpt('abort_spawn_nodes', default=[],
                help="""
Spawns on these nodes abort: the build fails without reschedule and the
instance goes to ERROR, as Nova's build-abort errors do. Checked before
the other failures. Each name must be one of ``nodes``.
"""),
    cfg.FloatOpt('spawn_delay', default=0.0, min=0.0,
                 help='Seconds every spawn takes, before any failure.'),
]


def register_opts(conf):
    conf.register_group(fake_driver_group)
    conf.register_opts(fake_driver_opts, group=fake_driver_group)


def list_opts():
    return [(fake_driver_group, fake_driver_opts)]
