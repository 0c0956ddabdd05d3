"""A fake virt driver: many nodes per process, no hypervisor at all.

One compute process serves every node listed by ``[fake_driver] nodes``
(a count, named ``<host>-node-<i>``, or a list of names), so a lab can run
thousands of hypervisors on one machine, as Ironic serves many bare-metal
nodes from one compute. What each node reports is described in
:mod:`nova_lite.virt.fake_layout`; configuration checking in
:mod:`nova_lite.virt.fake_config`; guest persistence in
:mod:`nova_lite.virt.fake_state`.

Fault injection, checked in this order on every spawn (after
``spawn_delay`` seconds):

1. the node is in ``abort_spawn_nodes``: ``BuildAbort`` (no reschedule);
2. the node is in ``fail_spawn_nodes``: ``BuildFailed`` (reschedule);
3. this is the Nth spawn of the process and N is a multiple of
   ``fail_every_nth_spawn``: ``BuildFailed``;
4. a draw from ``random.Random(seed)`` is below ``fail_probability``:
   ``BuildFailed``. One number is drawn per spawn whenever the probability
   is set, so a given seed fails the same spawns in every run.

A failed spawn leaves nothing behind, as the interface requires.
"""

import calendar
import json
import random
import threading
import time

from oslo_log import log as logging

from nova_lite.clients import image as image_client
from nova_lite.compute import task_states
from nova_lite import exception
from nova_lite.virt import driver
from nova_lite.virt import exception as virt_exc
from nova_lite.virt import fake_config
from nova_lite.virt import fake_layout
from nova_lite.virt import fake_state
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

CPU_INFO = json.dumps({'arch': 'x86_64', 'model': 'fake', 'vendor': 'fake',
                       'topology': {'sockets': 1, 'cores': 1, 'threads': 1},
                       'features': ['sse4.2', 'avx', 'avx2']})
HYPERVISOR_VERSION = 1000


class FakeDriver(driver.ComputeDriver):
    """Serves the configured fake nodes; see the module docstring."""

    capabilities = dict(
        driver.ComputeDriver.capabilities,
        supports_evacuate=True,
        supports_migrate_to_same_host=True,
        supports_pause=True,
        supports_attach_interface=True,
        supports_suspend=True,
        supports_image_type_raw=True,
        supports_image_type_qcow2=True,
    )

    def __init__(self, virtapi=None, conf=None):
        super().__init__(virtapi=virtapi, conf=conf)
        self.host = None
        self.settings = None
        self._store = None
        self._nodes_by_uuid = {}
        self._fault_lock = threading.Lock()
        self._spawn_count = 0
        self._random = None
        # The image API client snapshots go through, built on first use
        # from [glance] (tests may set one).
        self.image_client = None

    # -- lifecycle -----------------------------------------------------------

    def init_host(self, host):
        self.settings = fake_config.FakeSettings(self.conf, host)
        self.host = host
        self._nodes_by_uuid = {fake_layout.node_uuid(n): n
                               for n in self.settings.nodes}
        self._random = random.Random(self.settings.seed)
        path = fake_state.state_file(self.conf.state_path, host)
        self._store = fake_state.GuestStore(path, host)
        try:
            self._store.prepare()
        except OSError as error:
            raise exception.ConfigInvalid(
                reason='[DEFAULT] state_path: cannot write %s: %s' % (
                    path, error.strerror or error))
        self._store.load()
        orphans = self._store.nodes() - set(self.settings.nodes)
        if orphans:
            LOG.warning('Fake guests live on nodes no longer served: %s',
                        ', '.join(sorted(orphans)))
        LOG.info('Fake driver serves %d nodes on host %s (%d guests)',
                 len(self.settings.nodes), host, len(self._store.uuids()))

    def _started(self):
        if self.settings is None:
            raise virt_exc.VirtDriverError(
                reason='init_host() must be called first')
        return self.settings

    # -- nodes ---------------------------------------------------------------

    def get_available_nodes(self, refresh=False):
        return list(self._started().nodes)

    def get_nodenames_by_uuid(self, refresh=False):
        self._started()
        return dict(self._nodes_by_uuid)

    def _check_node(self, nodename):
        if nodename not in self._started().node_set:
            raise virt_exc.NodeNotFound(node=nodename)

    def get_available_resource(self, nodename):
        self._check_node(nodename)
        s = self.settings
        usage = self._store.usage(nodename)
        result = {
            'vcpus': s.vcpus, 'memory_mb': s.memory_mb,
            'local_gb': s.disk_gb,
            'hypervisor_type': 'fake',
            'hypervisor_version': HYPERVISOR_VERSION,
            'hypervisor_hostname': nodename,
            'cpu_info': CPU_INFO,
            'uuid': fake_layout.node_uuid(nodename),
            'disk_available_least': s.disk_gb - usage['local_gb_used'],
            'numa_topology': None,
            # (architecture, hypervisor type, vm mode) guests it can run,
            # matched by ImagePropertiesFilter against image properties.
            'supported_instances': [['x86_64', 'fake', 'hvm']],
        }
        result.update(usage)
        return result

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        self._check_node(nodename)
        root_uuid = fake_layout.node_uuid(nodename)
        if not provider_tree.exists(nodename):
            provider_tree.new_root(nodename, root_uuid)
        root_uuid = provider_tree.data(nodename).uuid
        layout = self._layout(provider_tree, nodename)
        owned = self._owned_uuids(provider_tree, nodename, root_uuid)
        moving = fake_layout.moving_classes(
            fake_layout.current_carriers(provider_tree, owned),
            layout.providers)
        if moving:
            if allocations is None:
                raise virt_exc.ReshapeNeeded(node=nodename)
            fake_layout.move_allocations(nodename, allocations, moving)
            LOG.info('Reshaping node %s: moving %s', nodename,
                     ', '.join(sorted(moving)))
        self._apply(provider_tree, nodename, root_uuid, layout, owned)

    def _layout(self, provider_tree, nodename):
        def ratios_for(uuid):
            inventory = (provider_tree.data(uuid).inventory
                         if provider_tree.exists(uuid) else {})
            return self.get_allocation_ratios(inventory)

        root_traits = [trait for trait, supported in
                       self.capabilities_as_traits().items() if supported]
        return fake_layout.NodeLayout(self.settings, nodename,
                                      self.get_reserved(), ratios_for,
                                      root_traits)

    def _owned_uuids(self, provider_tree, nodename, root_uuid):
        """The root and the children this driver created, root first."""
        owned = [root_uuid]
        for uuid in provider_tree.get_provider_uuids(root_uuid)[1:]:
            data = provider_tree.data(uuid)
            if data.parent_uuid == root_uuid and \
                    fake_layout.is_owned_child_name(nodename, data.name):
                owned.append(uuid)
        return owned

    def _apply(self, provider_tree, nodename, root_uuid, layout, owned):
        wanted = {p.uuid for p in layout.providers}
        for uuid in owned[1:]:
            if uuid not in wanted:
                provider_tree.remove(uuid)
        for spec in layout.providers:
            if spec.uuid == fake_layout.node_uuid(nodename):
                uuid = root_uuid
                owned_traits = fake_layout.ROOT_OWNED_TRAITS
            else:
                uuid = spec.uuid
                owned_traits = self._child_owned_traits(provider_tree, uuid)
                if not provider_tree.exists(uuid):
                    provider_tree.new_child(spec.name, root_uuid, uuid=uuid)
            provider_tree.update_inventory(uuid, spec.inventory)
            current = provider_tree.data(uuid).traits
            provider_tree.update_traits(
                uuid, (current - owned_traits) | spec.traits)

    @staticmethod
    def _child_owned_traits(provider_tree, uuid):
        if not provider_tree.exists(uuid):
            return frozenset()
        return frozenset(
            t for t in provider_tree.data(uuid).traits
            if t == fake_layout.PF_TRAIT or
            t.startswith(fake_layout.PHYSNET_PREFIX))

    # -- guests --------------------------------------------------------------

    def spawn(self, context, instance, image_meta, allocations,
              network_info=None, block_device_info=None):
        settings = self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        node = self._instance_node(instance)
        if node not in settings.nodes:
            raise virt_exc.BuildFailed(
                instance_uuid=instance_uuid, node=node,
                reason='node not served by host %s' % self.host)
        if settings.spawn_delay:
            time.sleep(settings.spawn_delay)
        fault = self._injected_fault(instance_uuid, node)
        if fault is not None:
            LOG.info('Injected spawn failure: %s', fault)
            raise fault
        self._store.add(instance_uuid, {
            'node': node, 'power_state': power_state.RUNNING,
            'resources': guest_resources(instance, allocations),
            'migrating': False, 'resize_source': None})

    def _instance_node(self, instance):
        node = driver.instance_field(instance, 'node')
        if node is None and len(self.settings.nodes) == 1:
            node = self.settings.nodes[0]
        return node

    def _injected_fault(self, instance_uuid, node):
        s = self.settings
        with self._fault_lock:
            self._spawn_count += 1
            count = self._spawn_count
            draw = self._random.random() if s.fail_probability else None
        if node in s.abort_spawn_nodes:
            return virt_exc.BuildAbort(
                instance_uuid=instance_uuid, node=node,
                reason='abort_spawn_nodes')
        if node in s.fail_spawn_nodes:
            reason = 'fail_spawn_nodes'
        elif s.fail_every_nth_spawn and count % s.fail_every_nth_spawn == 0:
            reason = 'spawn %d of fail_every_nth_spawn=%d' % (
                count, s.fail_every_nth_spawn)
        elif draw is not None and draw < s.fail_probability:
            reason = 'fail_probability=%s' % s.fail_probability
        else:
            return None
        return virt_exc.BuildFailed(instance_uuid=instance_uuid, node=node,
                                    reason=reason)

    def destroy(self, context, instance, network_info=None,
                block_device_info=None, destroy_disks=True):
        self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        guest = self._store.remove(instance_uuid)
        source = (guest or {}).get('resize_source')
        if source:
            # NOTE(nova_lite): a same-host resize being reverted: the
            # destination copy goes, the kept source guest stays for
            # finish_revert_migration.
            self._store.put(instance_uuid, dict(
                source, migrating=True, resize_source=None))

    def _set_state(self, instance, state):
        self._started()
        self._store.update(driver.instance_field(instance, 'uuid'),
                           power_state=state)

    def power_off(self, instance, timeout=0, retry_interval=0):
        self._set_state(instance, power_state.SHUTDOWN)

    def power_on(self, context, instance, network_info=None,
                 block_device_info=None):
        self._set_state(instance, power_state.RUNNING)

    def reboot(self, context, instance, network_info=None,
               reboot_type='SOFT', block_device_info=None):
        self._set_state(instance, power_state.RUNNING)

    def pause(self, instance):
        self._set_state(instance, power_state.PAUSED)

    def unpause(self, instance):
        self._set_state(instance, power_state.RUNNING)

    def rescue(self, context, instance, image_ref, rescue_password):
        """As Nova's fake driver: the guest keeps the power state
        powering off gave it and its disks (stable device rescue); the
        rescue image is remembered until :meth:`unrescue`."""
        self._started()
        self._store.update(driver.instance_field(instance, 'uuid'),
                           rescue_image=image_ref)

    def unrescue(self, context, instance):
        self._started()
        self._store.update(driver.instance_field(instance, 'uuid'),
                           rescue_image=None,
                           power_state=power_state.RUNNING)

    def attach_interface(self, context, instance, port_id):
        """As Nova's fake driver: the port joins the guest's interfaces;
        plugging one twice fails."""
        self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        plugged = self._store.get(instance_uuid).get('interfaces') or []
        if port_id in plugged:
            raise virt_exc.VirtDriverError(
                reason='port %s is plugged already' % port_id)
        self._store.update(instance_uuid, interfaces=plugged + [port_id])

    def detach_interface(self, context, instance, port_id):
        """The port leaves the guest's interfaces. The ports a server
        was built with never reached this driver (the API makes them),
        so unplugging one the guest does not list is no error."""
        self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        plugged = self._store.get(instance_uuid).get('interfaces') or []
        self._store.update(instance_uuid, interfaces=[
            p for p in plugged if p != port_id])

    def suspend(self, context, instance):
        self._set_state(instance, power_state.SUSPENDED)

    def resume(self, context, instance, network_info=None,
               block_device_info=None):
        self._set_state(instance, power_state.RUNNING)

    def snapshot(self, context, instance, image_id, update_task_state):
        """Upload a small file describing the guest as the image's data
        (raw, bare: what a fake disk is)."""
        self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        guest = self._store.get(instance_uuid)
        if guest is None:
            raise virt_exc.GuestNotFound(instance_id=instance_uuid)
        update_task_state(task_states.IMAGE_PENDING_UPLOAD)
        data = json.dumps({'fake_disk_of': instance_uuid, 'host': self.host,
                           'node': guest.get('node'),
                           'resources': guest.get('resources')},
                          sort_keys=True).encode('utf-8')
        update_task_state(task_states.IMAGE_UPLOADING,
                          expected_state=task_states.IMAGE_PENDING_UPLOAD)
        client = self.image_client or image_client.ImageClient(
            conf=self.conf)
        self.image_client = client
        image = client.get(image_id)
        formats = {k: v for k, v in (('disk_format', 'raw'),
                                     ('container_format', 'bare'))
                   if not image.get(k)}
        if formats:
            client.update(image_id, formats)
        client.upload(image_id, data)
        LOG.info('Snapshot of %s stored as image %s (%d bytes)',
                 instance_uuid, image_id, len(data))

    def get_info(self, instance):
        self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        guest = self._store.get(instance_uuid)
        return driver.InstanceInfo(state=guest['power_state'],
                                   internal_id=instance_uuid)

    def list_instance_uuids(self):
        self._started()
        return self._store.uuids()

    # -- moves ---------------------------------------------------------------

    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info=None, block_device_info=None,
                                   timeout=0, retry_interval=0):
        self._started()
        self._store.update(driver.instance_field(instance, 'uuid'),
                           power_state=power_state.SHUTDOWN, migrating=True)
        return json.dumps({'source_host': self.host})

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        node = driver.instance_field(migration, 'dest_node') or \
            self._instance_node(instance)
        if node not in self.settings.nodes:
            raise virt_exc.NodeNotFound(node=node)
        source = None
        old = self._store.find(instance_uuid)
        if old is not None:
            source = {k: old[k] for k in ('node', 'power_state',
                                          'resources')}
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        self._store.put(instance_uuid, {
            'node': node, 'power_state': state,
            'resources': guest_resources(instance, allocations),
            'migrating': False, 'resize_source': source})

    def confirm_migration(self, context, migration, instance,
                          network_info=None):
        self._started()
        instance_uuid = driver.instance_field(instance, 'uuid')
        guest = self._store.find(instance_uuid)
        if guest is None:
            return
        if guest.get('resize_source'):
            self._store.update(instance_uuid, resize_source=None)
        elif guest.get('migrating'):
            self._store.remove(instance_uuid)

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        self._started()
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        self._store.update(driver.instance_field(instance, 'uuid'),
                           power_state=state, migrating=False)

    # -- diagnostics and external events -------------------------------------

    def _guest(self, instance):
        self._started()
        return self._store.get(driver.instance_field(instance, 'uuid'))

    def get_diagnostics(self, instance):
        """Counters of one vCPU, the memory, a disk ``vda`` and no NIC,
        from the guest's resources."""
        guest = self._guest(instance)
        resources = guest.get('resources') or {}
        result = {'memory': resources.get('MEMORY_MB', 0) * 1024,
                  'vda_read': 0, 'vda_read_req': 0, 'vda_write': 0,
                  'vda_write_req': 0, 'vda_errors': -1}
        for cpu in range(resources.get('VCPU', 0) or 0):
            result['cpu%d_time' % cpu] = 0
        return result

    def get_instance_diagnostics(self, instance):
        """The 2.48 diagnostics of the guest: its vCPUs, memory (MiB),
        one disk, no NIC (nova_lite plugs none)."""
        guest = self._guest(instance)
        resources = guest.get('resources') or {}
        vcpus = resources.get('VCPU', 0) or 0
        launched = driver.instance_field(instance, 'launched_at')
        uptime = 0
        if launched is not None:
            uptime = max(0, int(time.time() - calendar.timegm(
                launched.utctimetuple())))
        return {
            'state': power_state.STATE_MAP.get(guest['power_state'],
                                               'pending'),
            # NOTE(nova_lite): the API allows only the drivers Nova has
            # (ironic, libvirt, vmwareapi, xenapi); Nova's fake driver
            # says libvirt too.
            'driver': 'libvirt', 'hypervisor': 'fake',
            'hypervisor_os': 'fake', 'uptime': uptime,
            'config_drive': bool(driver.instance_field(
                instance, 'config_drive')),
            'num_cpus': vcpus, 'num_nics': 0, 'num_disks': 1,
            'cpu_details': [{'id': cpu, 'time': 0, 'utilisation': 0}
                            for cpu in range(vcpus)],
            'nic_details': [],
            'disk_details': [{'read_bytes': 0, 'read_requests': 0,
                              'write_bytes': 0, 'write_requests': 0,
                              'errors_count': 0}],
            'memory_details': {'maximum': resources.get('MEMORY_MB', 0),
                               'used': 0},
        }

    def power_update_event(self, instance, target_power_state):
        state = (power_state.RUNNING if target_power_state == 'POWER_ON'
                 else power_state.SHUTDOWN)
        self._set_state(instance, state)


def guest_resources(instance, allocations):
    """What a guest uses: its allocations, VCPU/MEMORY_MB/DISK_GB from the
    flavor when the instance has one (as Nova's resource tracker counts).
    """
    allocations = allocations or {}
    if isinstance(allocations.get('allocations'), dict):
        # The whole GET /allocations/{consumer} body was passed.
        allocations = allocations['allocations']
    resources = {}
    for entry in allocations.values():
        for rc, amount in entry.get('resources', {}).items():
            resources[rc] = resources.get(rc, 0) + amount
    flavor = driver.instance_field(instance, 'flavor')
    if flavor is not None:
        resources['VCPU'] = driver.instance_field(flavor, 'vcpus', 0)
        resources['MEMORY_MB'] = driver.instance_field(flavor, 'memory_mb', 0)
        resources['DISK_GB'] = (
            (driver.instance_field(flavor, 'root_gb', 0) or 0) +
            (driver.instance_field(flavor, 'ephemeral_gb', 0) or 0))
    return resources
