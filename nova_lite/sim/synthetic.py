"""A synthetic cloud to replay against, and the worked example's two
weigher settings (doc/simulation.md).

:func:`cloud` is ``hosts`` identical compute nodes (32 VCPU at 4.0,
128 GiB with 512 MiB reserved, 2 TB disk), ten to a compute host, split
into ``zones`` availability zones (one aggregate each, hosts in turn),
with three flavors. ``sim synthetic`` writes it as a snapshot.
"""

from nova_lite.sim import snapshot

FLAVORS = [{'name': 'small', 'vcpus': 1, 'ram': 2048, 'disk': 20},
           {'name': 'medium', 'vcpus': 4, 'ram': 8192, 'disk': 40},
           {'name': 'large', 'vcpus': 8, 'ram': 32768, 'disk': 80}]
MIX = {'small': 5, 'medium': 3, 'large': 1}
# The worked example's two configurations: every resource weigher
# negative (fill the fullest host that fits) or positive (the emptiest).
PACK = ('[filter_scheduler]\nram_weight_multiplier = -1.0\n'
        'cpu_weight_multiplier = -1.0\ndisk_weight_multiplier = -1.0\n')
SPREAD = ('[filter_scheduler]\nram_weight_multiplier = 1.0\n'
          'cpu_weight_multiplier = 1.0\n')


def _uuid(index):
    return '00000000-0000-4000-8000-%012d' % index


def cloud(hosts=1000, zones=2):
    """The validated snapshot of a synthetic cloud of ``hosts`` nodes."""
    per_compute = 10
    aggregates = [{'name': 'az%d' % (z + 1),
                   'metadata': {'availability_zone': 'az%d' % (z + 1)},
                   'hosts': sorted({'compute%03d' % (i // per_compute)
                                    for i in range(hosts)
                                    if (i // per_compute) % zones == z})}
                  for z in range(zones)] if zones > 1 else []
    return snapshot.validate({
        'providers': [
            {'uuid': _uuid(i), 'name': 'node%04d' % i,
             'inventories': {
                 'VCPU': {'total': 32, 'allocation_ratio': 4.0},
                 'MEMORY_MB': {'total': 131072, 'reserved': 512},
                 'DISK_GB': {'total': 2000}}} for i in range(hosts)],
        'flavors': FLAVORS,
        'aggregates': aggregates,
        'hypervisors': [{'id': _uuid(i), 'hypervisor_hostname':
                         'node%04d' % i,
                         'service': {'host': 'compute%03d' % (
                             i // per_compute)}}
                        for i in range(hosts)]})
