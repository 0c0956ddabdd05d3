"""gabbi fixtures with the names of upstream Placement's, over HTTP.

Upstream's ``placement/tests/functional/fixtures/gabbits.py`` starts an
in-process Placement on a fresh database for each YAML file and creates its
data through the object layer, publishing uuids in environment variables
that the files read (``$ENVIRON['RP_UUID']``). These classes set the same
variables and create the same providers, inventories, traits, aggregates
and allocations, in the same order, through the REST API of a live service,
after wiping it (:meth:`PlacementClient.wipe`).

The policy and CORS fixtures (``SecureRBACPolicyFixture``,
``OpenPolicyFixture``, ``CORSFixture``) change the server's configuration
upstream; a live server cannot be reconfigured from here, so they are plain
``APIFixture``s and the runner's ``--group`` names the configuration the
server must have.

:func:`bind` gives gabbi a namespace of these classes tied to one client.
"""

import collections
import os
import types
import uuid

from gabbi import fixture

# NOTE(nova_lite): upstream names providers' uuids with a sentinel (one
# uuid per name for the whole process); the files only read them through
# the environment, so fresh random ones per process are equivalent.
_SENTINEL = collections.defaultdict(lambda: str(uuid.uuid4()))

_API_FIXTURE_VARIABLES = (
    'RP_UUID', 'RP_NAME', 'RP_UUID1', 'RP_NAME1', 'RP_UUID2', 'RP_NAME2',
    'PROJECT_ID', 'ADMIN_PROJECT_ID', 'SERVICE_PROJECT_ID', 'USER_ID',
    'PROJECT_ID_ALT', 'USER_ID_ALT', 'INSTANCE_UUID', 'MIGRATION_UUID',
    'CONSUMER_UUID', 'PARENT_PROVIDER_UUID', 'ALT_PARENT_PROVIDER_UUID')


def _new_uuid():
    return str(uuid.uuid4())


class APIFixture(fixture.GabbiFixture):
    """An empty service and the variables every file may use."""

    client = None

    def start_fixture(self):
        self.client.wipe()
        for name in _API_FIXTURE_VARIABLES:
            os.environ[name] = _new_uuid()
        for suffix in ('', '1', '2'):
            os.environ['CUSTOM_RES_CLASS' + suffix] = (
                'CUSTOM_IRON_NFV' + suffix)

    def provider(self, name, *aggs, parent=None, rp_uuid=None):
        return self.client.create_provider(
            name, *aggs, uuid=rp_uuid or _SENTINEL[name], parent=parent)

    def inventory(self, rp, rc, total, **fields):
        self.client.add_inventory(rp, rc, total, **fields)

    def traits(self, rp, *names):
        self.client.set_traits(rp, *names)

    def allocate(self, rp, resources, project, user, consumer=None):
        consumer = consumer or _new_uuid()
        self.client.set_allocation(consumer, rp, resources, project, user)
        return consumer


class LegacyRBACPolicyFixture(APIFixture):
    """The server must run the legacy rules (enforce_new_defaults false)."""


class SecureRBACPolicyFixture(APIFixture):
    """The server must run the new defaults (enforce_new_defaults true)."""


class OpenPolicyFixture(APIFixture):
    """The server must allow every rule but admin_api to anyone ('@')."""


class CORSFixture(APIFixture):
    """The server must allow origin http://valid.example.com and the
    openstack-api-version header."""


class AllocationFixture(APIFixture):
    """One provider (VCPU 10, DISK_GB 2048) and three consumers of it."""

    def start_fixture(self):
        super().start_fixture()
        env = os.environ
        env['ALT_USER_ID'] = _new_uuid()
        project, user = env['PROJECT_ID'], env['USER_ID']
        rp = self.provider(env['RP_NAME'], rp_uuid=env['RP_UUID'])
        self.inventory(rp, 'DISK_GB', 2048, step_size=10, min_unit=10,
                       max_unit=1000)
        self.inventory(rp, 'VCPU', 10, max_unit=10)
        env['CONSUMER_0'] = self.allocate(rp, {'DISK_GB': 1000}, project,
                                          user)
        env['CONSUMER_ID'] = self.allocate(rp, {'VCPU': 6}, project, user)
        env['ALT_CONSUMER_ID'] = self.allocate(
            rp, {'DISK_GB': 20, 'VCPU': 1}, project, env['ALT_USER_ID'])
        env['ALT_RP_UUID'] = _new_uuid()
        env['ALT_RP_NAME'] = _new_uuid()


class SharedStorageFixture(APIFixture):
    """Two compute trees (cn, 2 NUMA nodes, a PF under each) sharing two
    storage providers through one aggregate."""

    def start_fixture(self):
        super().start_fixture()
        env = os.environ
        agg = env['AGG_UUID'] = _new_uuid()
        rps = {}
        for name in ('cn1', 'cn2', 'ss', 'ss2'):
            rps[name] = self.provider(name, agg)
        for cn in ('1', '2'):
            for numa in ('1', '2'):
                rps['numa%s_%s' % (cn, numa)] = self.provider(
                    'numa%s_%s' % (cn, numa), parent=rps['cn' + cn])
        for cn in ('1', '2'):
            for numa in ('1', '2'):
                rps['pf%s_%s' % (cn, numa)] = self.provider(
                    'pf%s_%s' % (cn, numa),
                    parent=rps['numa%s_%s' % (cn, numa)])
        for name, rp in rps.items():
            env['%s_UUID' % name.upper()] = rp
        for cn in ('cn1', 'cn2'):
            self.inventory(rps[cn], 'VCPU', 24, allocation_ratio=16.0)
            self.inventory(rps[cn], 'MEMORY_MB', 128 * 1024,
                           allocation_ratio=1.5)
        self.traits(rps['cn1'], 'HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2')
        self.inventory(rps['cn2'], 'DISK_GB', 2000, reserved=100,
                       allocation_ratio=1.0)
        for ss in ('ss', 'ss2'):
            self.inventory(rps[ss], 'DISK_GB', 2000, reserved=100,
                           allocation_ratio=1.0)
            self.traits(rps[ss], 'MISC_SHARES_VIA_AGGREGATE')
        for pf in ('pf1_1', 'pf1_2', 'pf2_1', 'pf2_2'):
            self.inventory(rps[pf], 'SRIOV_NET_VF', 8, allocation_ratio=1.0)


class NUMAAggregateFixture(APIFixture):
    """Two resourceless compute nodes with two NUMA nodes (VCPU) each,
    sharing storage through aggregates A (both) and C (numa1_1 only)."""

    def start_fixture(self):
        super().start_fixture()
        env = os.environ
        agg_a = env['AGGA_UUID'] = _new_uuid()
        agg_b = env['AGGB_UUID'] = _new_uuid()
        agg_c = env['AGGC_UUID'] = _new_uuid()
        cn1 = env['CN1_UUID'] = self.provider('cn1', agg_a)
        cn2 = env['CN2_UUID'] = self.provider('cn2', agg_a, agg_b)
        ss1 = env['SS1_UUID'] = self.provider('ss1', agg_a)
        ss2 = env['SS2_UUID'] = self.provider('ss2', agg_c)
        numas = [
            self.provider('numa1_1', agg_c, parent=cn1),
            self.provider('numa1_2', parent=cn1),
            self.provider('numa2_1', parent=cn2),
            self.provider('numa2_2', parent=cn2),
        ]
        for name, rp in zip(('1_1', '1_2', '2_1', '2_2'), numas, strict=True):
            env['NUMA%s_UUID' % name] = rp
        for numa in numas:
            self.inventory(numa, 'VCPU', 24, allocation_ratio=16.0)
        for ss in (ss1, ss2):
            self.inventory(ss, 'DISK_GB', 2000, reserved=100,
                           allocation_ratio=1.0)
            self.traits(ss, 'MISC_SHARES_VIA_AGGREGATE')


class NUMANetworkFixture(APIFixture):
    """cn1: no inventory, two NUMA nodes with devices, two network agents
    with devices; cn2: a flat compute node with three NICs of PFs; ss1
    shares DISK_GB with both through aggregate A."""

    def start_fixture(self):
        super().start_fixture()
        self.make_entities(None, None)

    def make_entities(self, cn1, cn2):
        env = os.environ
        agg_a = env['AGGA_UUID'] = _new_uuid()
        ss1 = self.provider('ss1', agg_a)
        self.traits(ss1, 'MISC_SHARES_VIA_AGGREGATE')
        self.inventory(ss1, 'DISK_GB', 2000)
        env['SS1_UUID'] = ss1

        cn1 = cn1 or self.provider('cn1', agg_a)
        self.client.set_aggregates(cn1, [agg_a])
        self.traits(cn1, 'COMPUTE_VOLUME_MULTI_ATTACH')
        env['CN1_UUID'] = cn1
        numas = []
        for i in (0, 1):
            numa = self.provider('numa%d' % i, parent=cn1)
            traits = ['HW_NUMA_ROOT'] + (['CUSTOM_FOO'] if i else [])
            self.traits(numa, *traits)
            self.inventory(numa, 'VCPU', 4)
            numas.append(numa)
            env['NUMA%d_UUID' % i] = numa
        self.inventory(numas[0], 'MEMORY_MB', 2048, min_unit=512,
                       step_size=256)
        self.inventory(numas[1], 'MEMORY_MB', 2048, min_unit=256,
                       max_unit=1024)
        project, user = 'numafx-project', 'numafx-user'
        self.allocate(numas[0], {'VCPU': 2}, project, user)

        fpga = env['FPGA0_UUID'] = self.provider('fpga0', parent=numas[0])
        self.inventory(fpga, 'FPGA', 1)
        pgpu = env['PGPU0_UUID'] = self.provider('pgpu0', parent=numas[0])
        self.inventory(pgpu, 'VGPU', 8)
        for i in (0, 1):
            fpga = self.provider('fpga1_%d' % i, parent=numas[1])
            self.inventory(fpga, 'FPGA', 1)
            env['FPGA1_%d_UUID' % i] = fpga

        agent = self.provider('sriov_agent', parent=cn1)
        self.traits(agent, 'CUSTOM_VNIC_TYPE_DIRECT')
        env['SRIOV_AGENT_UUID'] = agent
        for i in (1, 2):
            dev = self.provider('esn%d' % i, parent=agent)
            self.traits(dev, 'CUSTOM_PHYSNET%d' % i)
            self.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000 * i)
            env['ESN%d_UUID' % i] = dev
        agent = self.provider('ovs_agent', parent=cn1)
        self.traits(agent, 'CUSTOM_VNIC_TYPE_NORMAL')
        env['OVS_AGENT_UUID'] = agent
        dev = self.provider('br_int', parent=agent)
        self.traits(dev, 'CUSTOM_PHYSNET0')
        self.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        env['BR_INT_UUID'] = dev

        cn2 = cn2 or self.provider('cn2')
        self.client.set_aggregates(cn2, [agg_a])
        self.inventory(cn2, 'VCPU', 8)
        self.allocate(cn2, {'VCPU': 3}, project, user)
        self.inventory(cn2, 'MEMORY_MB', 2048, min_unit=1024, step_size=128)
        self.inventory(cn2, 'DISK_GB', 1000)
        self.traits(cn2, 'CUSTOM_FOO')
        env['CN2_UUID'] = cn2
        nics = []
        for i in (1, 2, 3):
            nic = self.provider('nic%d' % i, parent=cn2)
            self.traits(nic, 'CUSTOM_HW_NIC_ROOT')
            nics.append(nic)
            env['NIC%d_UUID' % i] = nic
        # (nic, pf suffix, physnet, VFs)
        pfs = [(0, '1_1', 1, 4), (0, '1_2', 2, 4),
               (1, '2_1', 1, 2), (1, '2_2', 2, 2), (1, '2_3', 1, 2),
               (1, '2_4', 2, 2), (2, '3_1', 1, 8)]
        for nic, suffix, physnet, vfs in pfs:
            pf = self.provider('pf' + suffix, parent=nics[nic])
            self.traits(pf, 'CUSTOM_PHYSNET%d' % physnet)
            self.inventory(pf, 'CUSTOM_VF', vfs)
            env['PF%s_UUID' % suffix] = pf


class DeepNUMANetworkFixture(NUMANetworkFixture):
    """NUMANetworkFixture with cn1 and cn2 under parents p1 and p2 of a
    grandparent gp1."""

    def start_fixture(self):
        APIFixture.start_fixture(self)
        gp1 = self.provider('gp1')
        p1 = self.provider('p1', parent=gp1)
        p2 = self.provider('p2', parent=gp1)
        cn1 = self.provider('cn1', parent=p1)
        cn2 = self.provider('cn2', parent=p2)
        self.make_entities(cn1, cn2)


class NonSharedStorageFixture(APIFixture):
    """Three compute nodes with VCPU, MEMORY_MB and local DISK_GB."""

    def start_fixture(self):
        super().start_fixture()
        env = os.environ
        for name in ('AGGA', 'AGGB', 'AGGC'):
            env[name + '_UUID'] = _new_uuid()
        cns = [self.provider('cn%d' % i) for i in (1, 2, 3)]
        for i, cn in enumerate(cns, 1):
            env['CN%d_UUID' % i] = cn
        for cn in cns:
            self.inventory(cn, 'VCPU', 24)
            self.inventory(cn, 'MEMORY_MB', 128 * 1024)
            self.inventory(cn, 'DISK_GB', 2000)


class GranularFixture(APIFixture):
    """Three compute nodes (cn_left, cn_middle, cn_right) and three
    sharing providers (two disks, one network) in aggregates A, B, C."""

    def start_fixture(self):
        super().start_fixture()
        env = os.environ
        self.client.ensure_resource_class('CUSTOM_NET_MBPS')
        agg = {}
        for name in ('A', 'B', 'C'):
            agg[name] = env['AGG' + name] = _SENTINEL['agg' + name]

        left = env['CN_LEFT'] = self.provider('cn_left', agg['A'])
        for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500),
                          ('VGPU', 8), ('SRIOV_NET_VF', 8),
                          ('CUSTOM_NET_MBPS', 4000)):
            self.inventory(left, rc, total)
        self.traits(left, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2',
                    'HW_GPU_API_DXVA', 'HW_NIC_DCB_PFC', 'CUSTOM_FOO')

        middle = env['CN_MIDDLE'] = self.provider('cn_middle', agg['A'],
                                                  agg['B'])
        for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096),
                          ('SRIOV_NET_VF', 8), ('CUSTOM_NET_MBPS', 4000)):
            self.inventory(middle, rc, total)
        self.traits(middle, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2',
                    'HW_CPU_X86_SSE', 'HW_NIC_ACCEL_TLS')

        right = env['CN_RIGHT'] = self.provider('cn_right', agg['B'],
                                                agg['C'])
        for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500)):
            self.inventory(right, rc, total)
        self.inventory(right, 'VGPU', 8, max_unit=2)
        self.traits(right, 'HW_CPU_X86_MMX', 'HW_GPU_API_DXVA',
                    'CUSTOM_DISK_SSD')

        disk1 = env['SHR_DISK_1'] = self.provider('shr_disk_1', agg['A'])
        self.inventory(disk1, 'DISK_GB', 1000)
        self.traits(disk1, 'MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_DISK_SSD')
        disk2 = env['SHR_DISK_2'] = self.provider('shr_disk_2', agg['A'],
                                                  agg['B'])
        self.inventory(disk2, 'DISK_GB', 1000)
        self.traits(disk2, 'MISC_SHARES_VIA_AGGREGATE')
        net = env['SHR_NET'] = self.provider('shr_net', agg['C'])
        self.inventory(net, 'SRIOV_NET_VF', 16)
        self.inventory(net, 'CUSTOM_NET_MBPS', 40000)
        self.traits(net, 'MISC_SHARES_VIA_AGGREGATE')


_VNIC_SRIOV = ('CUSTOM_VNIC_TYPE_DIRECT', 'CUSTOM_VNIC_TYPE_DIRECT_PHYSICAL',
               'CUSTOM_VNIC_TYPE_MACVTAP')


class NeutronQoSMultiSegmentFixture(APIFixture):
    """Four computes as Neutron's QoS (min bandwidth and packet rate)
    reports them: an OVS agent with bridges and an SR-IOV agent with PFs,
    the bridges and PFs on physnets OTHER (compute0), MSN_S1 (compute1),
    MSN_S2 (compute2) or both (compute3, with less bandwidth)."""

    # compute: ([(bridge, physnet)], [(pf, physnet)], bandwidth)
    _COMPUTES = (
        ('compute0', [('br-ex', 'OTHER')], [('enp129s0f0', 'OTHER')], 5000,
         10000),
        ('compute1', [('br-ex', 'MSN_S1')], [('enp129s0f0', 'MSN_S1')], 5000,
         10000),
        ('compute2', [('br-ex', 'MSN_S2')], [('enp129s0f0', 'MSN_S2')], 5000,
         10000),
        ('compute3', [('br-ex', 'MSN_S1'), ('br-ex2', 'MSN_S2')],
         [('enp129s0f0', 'MSN_S1'), ('enp129s0f1', 'MSN_S2')], 1000, 1000),
    )

    def start_fixture(self):
        super().start_fixture()
        env = os.environ
        for name, bridges, pfs, br_bw, pf_bw in self._COMPUTES:
            cn = env[name] = self.provider(name)
            self.inventory(cn, 'VCPU', 8)
            self.inventory(cn, 'MEMORY_MB', 4096)
            self.inventory(cn, 'DISK_GB', 500)

            ovs_name = name + ':Open vSwitch agent'
            ovs = env[name + ':ovs_agent'] = self.provider(ovs_name,
                                                           parent=cn)
            self.inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
            self.traits(ovs, 'CUSTOM_VNIC_TYPE_NORMAL')
            for bridge, physnet in bridges:
                br = self.provider('%s:%s' % (ovs_name, bridge), parent=ovs)
                env['%s:%s' % (name, bridge.replace('-', '_'))] = br
                self.inventory(br, 'NET_BW_EGR_KILOBIT_PER_SEC', br_bw)
                self.inventory(br, 'NET_BW_IGR_KILOBIT_PER_SEC', br_bw)
                self.traits(br, 'CUSTOM_VNIC_TYPE_NORMAL',
                            'CUSTOM_PHYSNET_' + physnet)

            sriov_name = name + ':NIC Switch agent'
            sriov = self.provider(sriov_name, parent=cn)
            # NOTE(nova_lite): upstream publishes compute2's agent as
            # compute3's too (compute3 is created after it); the files
            # see what upstream's fixture gives them.
            env[name + ':sriov_agent'] = (
                env['compute2:sriov_agent'] if name == 'compute3' else sriov)
            self.traits(sriov, *_VNIC_SRIOV)
            for i, (pf_name, physnet) in enumerate(pfs):
                pf = self.provider('%s:%s' % (sriov_name, pf_name),
                                   parent=sriov)
                env['%s:pf%d' % (name, i)] = pf
                self.inventory(pf, 'NET_BW_EGR_KILOBIT_PER_SEC', pf_bw)
                self.inventory(pf, 'NET_BW_IGR_KILOBIT_PER_SEC', pf_bw)
                self.traits(pf, *_VNIC_SRIOV, 'CUSTOM_PHYSNET_' + physnet)


FIXTURES = (
    APIFixture, AllocationFixture, CORSFixture, DeepNUMANetworkFixture,
    GranularFixture, LegacyRBACPolicyFixture, NeutronQoSMultiSegmentFixture,
    NonSharedStorageFixture, NUMAAggregateFixture, NUMANetworkFixture,
    OpenPolicyFixture, SecureRBACPolicyFixture, SharedStorageFixture)


def bind(client):
    """A namespace of the fixtures above that use ``client``; gabbi looks
    the names in a file's ``fixtures:`` list up in it."""
    return types.SimpleNamespace(**{
        cls.__name__: type(cls.__name__, (cls,), {'client': client})
        for cls in FIXTURES})
