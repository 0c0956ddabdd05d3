"""The fake driver: nodes, provider trees, reshapes, faults, guests."""

import json
import os
import threading
import time

import fixtures
from oslo_config import cfg
import testtools

from nova_lite import conf as nl_conf
from nova_lite.conf import allocation
from nova_lite import exception
from nova_lite.provider_tree import diff as ptd
from nova_lite.provider_tree import tree as pt
from nova_lite.virt import driver
from nova_lite.virt import exception as virt_exc
from nova_lite.virt import fake
from nova_lite.virt import fake_layout
from nova_lite.virt import fake_state
from nova_lite.virt import power_state


class FakeDriverTestCase(testtools.TestCase):
    """Each test gets a private ConfigOpts and state directory."""

    def setUp(self):
        super().setUp()
        self.state_path = self.useFixture(fixtures.TempDir()).path
        self.conf = self._new_conf()

    def _new_conf(self, config_file=None):
        conf = cfg.ConfigOpts()
        nl_conf.register_opts(conf)
        allocation.register_opts(conf)
        args = ['--config-file', config_file] if config_file else []
        conf(args, default_config_files=[])
        conf.set_override('state_path', self.state_path)
        return conf

    def flags(self, **options):
        # NOTE(nova_lite): the [fake_driver] OptGroup object is shared by
        # every ConfigOpts it is registered on (the global CONF too), and
        # overrides live on it; undo them.
        for name, value in options.items():
            self.conf.set_override(name, value, group='fake_driver')
            self.addCleanup(self.conf.clear_override, name,
                            group='fake_driver')

    def start(self, host='cmp1', conf=None):
        drv = fake.FakeDriver(conf=conf or self.conf)
        drv.init_host(host)
        return drv

    def tree_for(self, drv, nodename, tree=None, allocations=None):
        tree = tree or pt.ProviderTree()
        if not tree.exists(nodename):
            tree.new_root(nodename,
                          drv.get_available_resource(nodename)['uuid'])
        drv.update_provider_tree(tree, nodename, allocations=allocations)
        return tree


class TestNodes(FakeDriverTestCase):

    def test_count_names_nodes_after_the_host(self):
        self.flags(nodes='3')
        self.assertEqual(['cmp1-node-0', 'cmp1-node-1', 'cmp1-node-2'],
                         self.start().get_available_nodes())

    def test_explicit_list(self):
        self.flags(nodes=' rack1-a, rack1-b ,')
        self.assertEqual(['rack1-a', 'rack1-b'],
                         self.start().get_available_nodes())

    def test_provider_uuids_are_stable_and_distinct(self):
        self.flags(nodes='3')
        first = self.start().get_nodenames_by_uuid()
        again = self.start().get_nodenames_by_uuid()
        self.assertEqual(first, again)
        self.assertEqual(3, len(set(first)))
        drv = self.start()
        for uuid, name in first.items():
            self.assertEqual(uuid, drv.get_available_resource(name)['uuid'])

    def test_unknown_node(self):
        self.assertRaises(virt_exc.NodeNotFound,
                          self.start().get_available_resource, 'other')

    def test_must_be_started(self):
        drv = fake.FakeDriver(conf=self.conf)
        self.assertRaises(virt_exc.VirtDriverError, drv.get_available_nodes)


class TestBadConfiguration(FakeDriverTestCase):

    def assertConfigError(self, option, conf=None):
        error = self.assertRaises(exception.ConfigInvalid, self.start,
                                  conf=conf)
        message = str(error)
        self.assertIn('[fake_driver] %s:' % option, message)
        self.assertNotIn('\n', message)
        return message

    def test_negative_node_count(self):
        self.flags(nodes='-2')
        self.assertIn('negative', self.assertConfigError('nodes'))

    def test_duplicate_node_names(self):
        self.flags(nodes='a,b,a')
        self.assertIn('twice', self.assertConfigError('nodes'))

    def test_unknown_names_in_fault_injection(self):
        self.flags(nodes='2', fail_spawn_nodes=['cmp1-node-7'])
        self.assertIn('cmp1-node-7',
                      self.assertConfigError('fail_spawn_nodes'))
        self.flags(fail_spawn_nodes=[], abort_spawn_nodes=['x'])
        self.assertConfigError('abort_spawn_nodes')

    def test_bad_nested_nodes(self):
        self.flags(nodes='2', nested_nodes='cmp1-node-0,ghost')
        self.assertIn('ghost', self.assertConfigError('nested_nodes'))
        self.flags(nested_nodes='3')
        self.assertConfigError('nested_nodes')
        self.flags(nested_nodes='-1')
        self.assertConfigError('nested_nodes')

    def test_negative_count_in_config_file(self):
        path = os.path.join(self.state_path, 'bad.conf')
        with open(path, 'w') as handle:
            handle.write('[fake_driver]\nvcpus = -4\n')
        self.assertConfigError('vcpus', conf=self._new_conf(path))

    def test_load_driver_then_init_host(self):
        self.flags(nodes='-1')
        drv = driver.load_driver(conf=self.conf)
        self.assertRaises(exception.ConfigInvalid, drv.init_host, 'cmp1')


class TestProviderTree(FakeDriverTestCase):

    def test_flat_node_inventory_and_traits(self):
        self.flags(vcpus=8, memory_mb=4096, disk_gb=100)
        drv = self.start()
        tree = self.tree_for(drv, 'cmp1-node-0')
        root = tree.data('cmp1-node-0')
        self.assertEqual([root.uuid], tree.get_provider_uuids())
        self.assertEqual({'total': 8, 'reserved': 0, 'min_unit': 1,
                          'max_unit': 8, 'step_size': 1,
                          'allocation_ratio': 4.0},
                         root.inventory['VCPU'])
        self.assertEqual(512, root.inventory['MEMORY_MB']['reserved'])
        self.assertEqual(100, root.inventory['DISK_GB']['total'])
        self.assertTrue({'HW_CPU_X86_AVX2', 'COMPUTE_IMAGE_TYPE_RAW'} <=
                        root.traits)
        self.assertNotIn('COMPUTE_VOLUME_MULTI_ATTACH', root.traits)

    def test_ratios_and_reserved_from_configuration(self):
        self.flags(memory_mb=256)
        self.conf.set_override('ram_allocation_ratio', 1.5)
        drv = self.start()
        tree = pt.ProviderTree()
        tree.new_root('cmp1-node-0', fake_layout.node_uuid('cmp1-node-0'))
        tree.update_inventory('cmp1-node-0', {
            'VCPU': {'total': 16, 'allocation_ratio': 2.0}})
        self.tree_for(drv, 'cmp1-node-0', tree)
        inventory = tree.data('cmp1-node-0').inventory
        self.assertEqual(2.0, inventory['VCPU']['allocation_ratio'])
        self.assertEqual(1.5, inventory['MEMORY_MB']['allocation_ratio'])
        self.assertEqual(256, inventory['MEMORY_MB']['reserved'])

    def test_nested_children(self):
        self.flags(nodes='2', nested_nodes='1', vcpus=15, memory_mb=4096,
                   numa_nodes=2, sriov_pfs=3, vfs_per_pf=8,
                   physnets=['net-a', 'net_b'], pgpus=2, vgpus_per_pgpu=4)
        drv = self.start()
        tree = self.tree_for(drv, 'cmp1-node-0')
        names = [tree.data(u).name for u in tree.get_provider_uuids()]
        self.assertEqual(['cmp1-node-0', 'cmp1-node-0_numa0',
                          'cmp1-node-0_numa1', 'cmp1-node-0_pf0',
                          'cmp1-node-0_pf1', 'cmp1-node-0_pf2'], names)
        root = tree.data('cmp1-node-0')
        self.assertEqual({'DISK_GB', 'VGPU'}, set(root.inventory))
        self.assertEqual(8, root.inventory['VGPU']['total'])
        self.assertIn('HW_NUMA_ROOT', root.traits)
        cell0 = tree.data('cmp1-node-0_numa0').inventory
        cell1 = tree.data('cmp1-node-0_numa1').inventory
        self.assertEqual((8, 7), (cell0['VCPU']['total'],
                                  cell1['VCPU']['total']))
        self.assertEqual((256, 256), (cell0['MEMORY_MB']['reserved'],
                                      cell1['MEMORY_MB']['reserved']))
        self.assertEqual({'HW_NIC_SRIOV', 'CUSTOM_PHYSNET_NET_A'},
                         tree.data('cmp1-node-0_pf0').traits)
        self.assertEqual({'HW_NIC_SRIOV', 'CUSTOM_PHYSNET_NET_B'},
                         tree.data('cmp1-node-0_pf1').traits)
        self.assertEqual({'HW_NIC_SRIOV', 'CUSTOM_PHYSNET_NET_A'},
                         tree.data('cmp1-node-0_pf2').traits)
        self.assertEqual(8, tree.data('cmp1-node-0_pf2').inventory[
            'SRIOV_NET_VF']['total'])
        # The second node is not nested.
        other = self.tree_for(drv, 'cmp1-node-1')
        self.assertEqual(1, len(other.get_provider_uuids()))

    def test_vgpus_on_children(self):
        self.flags(pgpus=2, vgpus_per_pgpu=4, vgpu_on_children=True)
        tree = self.tree_for(self.start(), 'cmp1-node-0')
        self.assertNotIn('VGPU', tree.data('cmp1-node-0').inventory)
        for i in range(2):
            child = tree.data('cmp1-node-0_pgpu%d' % i)
            self.assertEqual(4, child.inventory['VGPU']['total'])
            self.assertEqual(fake_layout.child_uuid('cmp1-node-0', 'pgpu', i),
                             child.uuid)

    def test_second_run_changes_nothing(self):
        self.flags(numa_nodes=2, sriov_pfs=1, pgpus=1)
        drv = self.start()
        tree = self.tree_for(drv, 'cmp1-node-0')
        again = self.tree_for(self.start(), 'cmp1-node-0', tree.copy())
        self.assertTrue(ptd.diff_trees(tree, again).is_empty)

    def test_foreign_traits_and_providers_are_kept(self):
        drv = self.start()
        tree = self.tree_for(drv, 'cmp1-node-0')
        tree.add_traits('cmp1-node-0', 'COMPUTE_STATUS_DISABLED',
                        'CUSTOM_OPERATOR')
        tree.add_aggregates('cmp1-node-0', 'agg1')
        tree.new_child('sharing-child', 'cmp1-node-0', uuid='foreign')
        self.tree_for(drv, 'cmp1-node-0', tree)
        root = tree.data('cmp1-node-0')
        self.assertTrue({'COMPUTE_STATUS_DISABLED', 'CUSTOM_OPERATOR'} <=
                        root.traits)
        self.assertEqual({'agg1'}, root.aggregates)
        self.assertTrue(tree.exists('foreign'))

    def test_children_go_when_the_node_is_no_longer_nested(self):
        self.flags(sriov_pfs=2)
        tree = self.tree_for(self.start(), 'cmp1-node-0')
        self.assertEqual(3, len(tree.get_provider_uuids()))
        self.flags(nested_nodes='')
        self.tree_for(self.start(), 'cmp1-node-0', tree)
        self.assertEqual(1, len(tree.get_provider_uuids()))


class TestReshape(FakeDriverTestCase):

    def setUp(self):
        super().setUp()
        self.flags(pgpus=2, vgpus_per_pgpu=4)
        self.tree = self.tree_for(self.start(), 'cmp1-node-0')
        self.root = self.tree.data('cmp1-node-0').uuid

    def _allocations(self, *vgpus):
        return {
            'consumer-%d' % i: {
                'allocations': {self.root: {
                    'generation': 1,
                    'resources': {'VGPU': n, 'VCPU': 1}}},
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': 1}
            for i, n in enumerate(vgpus)}

    def _flip(self):
        self.flags(vgpu_on_children=True)
        return self.start()

    def test_flip_without_allocations_raises_and_leaves_the_tree(self):
        before = self.tree.copy()
        self.assertRaises(virt_exc.ReshapeNeeded, self._flip().
                          update_provider_tree, self.tree, 'cmp1-node-0')
        self.assertTrue(ptd.diff_trees(before, self.tree).is_empty)

    def test_flip_with_allocations_moves_them_to_the_gpus(self):
        allocations = self._allocations(3, 3, 2)
        before = self.tree.copy()
        self._flip().update_provider_tree(self.tree, 'cmp1-node-0',
                                          allocations=allocations)
        gpu0 = fake_layout.child_uuid('cmp1-node-0', 'pgpu', 0)
        gpu1 = fake_layout.child_uuid('cmp1-node-0', 'pgpu', 1)
        moved = {c: {rp: a['resources'] for rp, a in
                     allocations[c]['allocations'].items()}
                 for c in allocations}
        self.assertEqual({self.root: {'VCPU': 1}, gpu0: {'VGPU': 3}},
                         moved['consumer-0'])
        self.assertEqual({self.root: {'VCPU': 1}, gpu1: {'VGPU': 3}},
                         moved['consumer-1'])
        # Two left: one on each GPU.
        self.assertEqual({self.root: {'VCPU': 1}, gpu0: {'VGPU': 1},
                          gpu1: {'VGPU': 1}}, moved['consumer-2'])
        changes = ptd.diff_trees(before, self.tree)
        self.assertEqual([gpu0, gpu1], [p.uuid for p in changes.creates])
        self.assertNotIn('VGPU', self.tree.data(self.root).inventory)
        body = ptd.reshaper_body(changes, {self.root: 1, gpu0: 0, gpu1: 0},
                                 allocations)
        self.assertEqual({self.root, gpu0, gpu1}, set(body['inventories']))

    def test_flip_back_moves_them_to_the_root(self):
        allocations = self._allocations(3)
        self._flip().update_provider_tree(self.tree, 'cmp1-node-0',
                                          allocations=allocations)
        self.flags(vgpu_on_children=False)
        drv = self.start()
        self.assertRaises(virt_exc.ReshapeNeeded, drv.update_provider_tree,
                          self.tree, 'cmp1-node-0')
        drv.update_provider_tree(self.tree, 'cmp1-node-0',
                                 allocations=allocations)
        self.assertEqual(
            {self.root: {'generation': 1,
                         'resources': {'VCPU': 1, 'VGPU': 3}}},
            allocations['consumer-0']['allocations'])
        self.assertEqual(1, len(self.tree.get_provider_uuids()))

    def test_no_room_fails_the_reshape(self):
        self.flags(vgpus_per_pgpu=2)
        self.assertRaises(virt_exc.ReshapeFailed,
                          self._flip().update_provider_tree, self.tree,
                          'cmp1-node-0',
                          allocations=self._allocations(3, 2))


class TestFaultInjection(FakeDriverTestCase):

    def _spawn(self, drv, uuid, node='cmp1-node-0'):
        drv.spawn(None, {'uuid': uuid, 'node': node}, {}, {})

    def _outcomes(self, drv, count):
        results = []
        for i in range(count):
            try:
                self._spawn(drv, 'i-%d' % i)
                results.append('ok')
            except virt_exc.BuildFailed:
                results.append('fail')
        return results

    def test_abort_does_not_reschedule_and_fail_does(self):
        self.flags(nodes='3', abort_spawn_nodes=['cmp1-node-0'],
                   fail_spawn_nodes=['cmp1-node-1'])
        drv = self.start()
        error = self.assertRaises(virt_exc.BuildAbort, self._spawn, drv, 'a')
        self.assertNotIsInstance(error, virt_exc.BuildFailed)
        error = self.assertRaises(virt_exc.BuildFailed, self._spawn, drv,
                                  'b', 'cmp1-node-1')
        self.assertNotIsInstance(error, virt_exc.BuildAbort)
        self.assertIn('fail_spawn_nodes', str(error))
        self._spawn(drv, 'c', 'cmp1-node-2')
        self.assertEqual(['c'], drv.list_instance_uuids())

    def test_every_nth_spawn(self):
        self.flags(fail_every_nth_spawn=3)
        self.assertEqual(['ok', 'ok', 'fail', 'ok', 'ok', 'fail'],
                         self._outcomes(self.start(), 6))

    def test_seeded_probability_repeats(self):
        self.flags(nodes='cmp1-node-0', fail_probability=0.5, seed=42)
        first = self._outcomes(self.start('h1'), 40)
        second = self._outcomes(self.start('h2'), 40)
        self.assertEqual(first, second)
        self.assertIn('fail', first)
        self.assertIn('ok', first)

    def test_spawn_delay(self):
        # Only this thread's sleeps are counted (and skipped): patching
        # the time module reaches every thread, and a background thread
        # another test of this worker left (a retry loop) sleeps as well.
        me, real_sleep, slept = threading.get_ident(), time.sleep, []

        def sleep(seconds):
            if threading.get_ident() != me:
                return real_sleep(seconds)
            slept.append(seconds)
        self.useFixture(fixtures.MonkeyPatch('nova_lite.virt.fake.time.sleep',
                                             sleep))
        self.flags(spawn_delay=0.25)
        self._spawn(self.start(), 'a')
        self.assertEqual([0.25], slept)

    def test_node_not_served_reschedules(self):
        self.assertRaises(virt_exc.BuildFailed, self._spawn, self.start(),
                          'a', 'elsewhere')


class TestGuests(FakeDriverTestCase):

    FLAVOR = {'vcpus': 2, 'memory_mb': 1024, 'root_gb': 10,
              'ephemeral_gb': 5}

    def _instance(self, uuid='inst-1', node='cmp1-node-0', flavor=FLAVOR):
        return {'uuid': uuid, 'node': node, 'flavor': flavor}

    def test_spawn_counts_in_usage(self):
        self.flags(nodes='2')
        drv = self.start()
        drv.spawn(None, self._instance(), {}, {})
        drv.spawn(None, self._instance('inst-2', flavor=None), {}, {
            'allocations': {'rp': {'resources': {
                'VCPU': 1, 'MEMORY_MB': 256, 'DISK_GB': 1}}},
            'consumer_generation': 1})
        used = drv.get_available_resource('cmp1-node-0')
        self.assertEqual((3, 1280, 16, 2),
                         (used['vcpus_used'], used['memory_mb_used'],
                          used['local_gb_used'], used['running_vms']))
        self.assertEqual(0, drv.get_available_resource('cmp1-node-1')[
            'vcpus_used'])
        self.assertEqual('fake', used['hypervisor_type'])
        self.assertEqual('cmp1-node-0', used['hypervisor_hostname'])
        json.loads(used['cpu_info'])

    def test_power_states(self):
        drv = self.start()
        instance = self._instance()
        drv.spawn(None, instance, {}, {})
        steps = [
            (lambda: drv.power_off(instance), power_state.SHUTDOWN),
            (lambda: drv.power_on(None, instance), power_state.RUNNING),
            (lambda: drv.pause(instance), power_state.PAUSED),
            (lambda: drv.unpause(instance), power_state.RUNNING),
            (lambda: drv.suspend(None, instance), power_state.SUSPENDED),
            (lambda: drv.resume(None, instance), power_state.RUNNING),
            (lambda: drv.power_off(instance), power_state.SHUTDOWN),
            (lambda: drv.reboot(None, instance, reboot_type='HARD'),
             power_state.RUNNING),
        ]
        for action, state in steps:
            action()
            self.assertEqual(state, drv.get_info(instance).state)

    def test_unknown_guest(self):
        drv = self.start()
        instance = self._instance()
        self.assertRaises(virt_exc.GuestNotFound, drv.get_info, instance)
        self.assertRaises(exception.InstanceNotFound, drv.power_off,
                          instance)
        drv.destroy(None, instance)   # idempotent
        self.assertFalse(drv.instance_exists(instance))

    def test_double_spawn_aborts(self):
        drv = self.start()
        drv.spawn(None, self._instance(), {}, {})
        self.assertRaises(virt_exc.GuestExists, drv.spawn, None,
                          self._instance(), {}, {})

    def test_destroy(self):
        drv = self.start()
        drv.spawn(None, self._instance(), {}, {})
        drv.destroy(None, self._instance())
        self.assertEqual([], drv.list_instance_uuids())
        self.assertEqual(0, drv.get_available_resource('cmp1-node-0')[
            'running_vms'])

    def test_guests_outlive_a_restart(self):
        drv = self.start()
        drv.spawn(None, self._instance(), {}, {})
        drv.power_off(self._instance())
        again = self.start()
        self.assertEqual(['inst-1'], again.list_instance_uuids())
        self.assertEqual(power_state.SHUTDOWN,
                         again.get_info(self._instance()).state)
        self.assertEqual(2, again.get_available_resource('cmp1-node-0')[
            'vcpus_used'])
        path = fake_state.state_file(self.state_path, 'cmp1')
        self.assertEqual(['cmp1.json'], os.listdir(os.path.dirname(path)))
        # Another host keeps its own file.
        self.assertEqual([], self.start('cmp2').list_instance_uuids())

    def test_concurrent_changes_are_all_saved(self):
        drv = self.start()

        def spawn_many(prefix):
            for i in range(20):
                drv.spawn(None, self._instance('%s-%d' % (prefix, i)), {}, {})

        threads = [threading.Thread(target=spawn_many, args=(p,))
                   for p in 'abcdef']
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(120, len(self.start().list_instance_uuids()))

    def test_unwritable_state_path(self):
        blocker = os.path.join(self.state_path, 'file')
        open(blocker, 'w').close()
        self.conf.set_override('state_path', blocker)
        error = self.assertRaises(exception.ConfigInvalid, self.start)
        self.assertIn('[DEFAULT] state_path', str(error))
        self.assertNotIn('\n', str(error))

    def test_unreadable_state_file(self):
        path = fake_state.state_file(self.state_path, 'cmp1')
        os.makedirs(os.path.dirname(path))
        with open(path, 'w') as handle:
            handle.write('{not json')
        error = self.assertRaises(virt_exc.VirtDriverError, self.start)
        self.assertIn(path, str(error))


class TestMoves(FakeDriverTestCase):

    OLD = {'vcpus': 1, 'memory_mb': 512, 'root_gb': 1}
    NEW = {'vcpus': 2, 'memory_mb': 1024, 'root_gb': 2}

    def setUp(self):
        super().setUp()
        self.flags(nodes='1')
        self.src = self.start('src')
        self.instance = {'uuid': 'i1', 'node': 'src-node-0',
                         'flavor': self.OLD}
        self.src.spawn(None, self.instance, {}, {})

    def _vcpus(self, drv, node):
        return drv.get_available_resource(node)['vcpus_used']

    def _migrate(self, dest_driver, dest_node):
        migration = {'source_node': 'src-node-0', 'dest_node': dest_node}
        disk_info = self.src.migrate_disk_and_power_off(
            None, self.instance, dest_driver.host, self.NEW)
        self.assertEqual(power_state.SHUTDOWN,
                         self.src.get_info(self.instance).state)
        resized = dict(self.instance, node=dest_node, flavor=self.NEW)
        dest_driver.finish_migration(None, migration, resized, disk_info,
                                     None, {}, True, {})
        return migration, resized

    def test_cold_migration_confirm(self):
        dest = self.start('dst')
        migration, resized = self._migrate(dest, 'dst-node-0')
        self.assertEqual(1, self._vcpus(self.src, 'src-node-0'))
        self.assertEqual(2, self._vcpus(dest, 'dst-node-0'))
        self.src.confirm_migration(None, migration, self.instance)
        self.assertEqual([], self.src.list_instance_uuids())
        self.assertEqual(power_state.RUNNING, dest.get_info(resized).state)

    def test_cold_migration_revert(self):
        dest = self.start('dst')
        migration, resized = self._migrate(dest, 'dst-node-0')
        dest.destroy(None, resized)
        self.src.finish_revert_migration(None, self.instance, None,
                                         migration)
        self.assertEqual([], dest.list_instance_uuids())
        self.assertEqual(power_state.RUNNING,
                         self.src.get_info(self.instance).state)
        self.assertEqual(1, self._vcpus(self.src, 'src-node-0'))

    def test_same_host_resize_confirm(self):
        migration, resized = self._migrate(self.src, 'src-node-0')
        self.assertEqual(3, self._vcpus(self.src, 'src-node-0'))
        self.src.confirm_migration(None, migration, resized)
        self.assertEqual(2, self._vcpus(self.src, 'src-node-0'))
        self.assertEqual(['i1'], self.src.list_instance_uuids())

    def test_same_host_resize_revert(self):
        migration, resized = self._migrate(self.src, 'src-node-0')
        self.src.destroy(None, resized)
        self.src.finish_revert_migration(None, self.instance, None,
                                         migration)
        self.assertEqual(1, self._vcpus(self.src, 'src-node-0'))
        self.assertEqual(power_state.RUNNING,
                         self.src.get_info(self.instance).state)


class _RecordingImageClient:
    """What the fake driver asks of the image API, kept."""

    def __init__(self, image):
        self.image = image
        self.calls = []

    def get(self, image_id):
        self.calls.append(('get', image_id))
        return self.image

    def update(self, image_id, values):
        self.calls.append(('update', image_id, values))

    def upload(self, image_id, data):
        self.calls.append(('upload', image_id, json.loads(data)))


class TestSnapshot(FakeDriverTestCase):

    def test_snapshot_reports_progress_and_uploads_a_small_file(self):
        drv = self.start()
        drv.spawn(None, {'uuid': 'inst-1', 'node': 'cmp1-node-0'}, {}, {})
        drv.image_client = _RecordingImageClient({'disk_format': None})
        states = []
        drv.snapshot(None, {'uuid': 'inst-1'}, 'img-1',
                     lambda state, expected_state=None: states.append(
                         (state, expected_state)))
        self.assertEqual([('image_pending_upload', None),
                          ('image_uploading', 'image_pending_upload')],
                         states)
        get, update, upload = drv.image_client.calls
        self.assertEqual(('get', 'img-1'), get)
        self.assertEqual(('update', 'img-1', {'disk_format': 'raw',
                                              'container_format': 'bare'}),
                         update)
        self.assertEqual('inst-1', upload[2]['fake_disk_of'])

    def test_snapshot_of_a_missing_guest(self):
        drv = self.start()
        drv.image_client = _RecordingImageClient({})
        self.assertRaises(virt_exc.GuestNotFound, drv.snapshot, None,
                          {'uuid': 'nope'}, 'img-1', lambda *a, **k: None)
        self.assertEqual([], drv.image_client.calls)


class TestOwnedChildNames(testtools.TestCase):
    """The children the fake driver creates for a node, and only those
    (a child another node or an operator made is never removed)."""

    def test_names(self):
        owned = ('node1_numa0', 'node1_pf12', 'node1_pgpu3')
        foreign = ('node1_numa', 'node1_numa0x', 'node10_numa0',
                   'node1numa0', 'node1_disk1', 'node1_', 'node1',
                   'other_numa0')
        for name in owned:
            self.assertTrue(fake_layout.is_owned_child_name('node1', name),
                            name)
        for name in foreign:
            self.assertFalse(fake_layout.is_owned_child_name('node1', name),
                             name)
        # Regex metacharacters in a node name are plain characters.
        self.assertTrue(fake_layout.is_owned_child_name('n.1', 'n.1_pf0'))
        self.assertFalse(fake_layout.is_owned_child_name('n.1', 'nx1_pf0'))
