"""The virt driver interface: what a compute asks of its hypervisor.

A compute process (``nova-lite-compute``) owns one driver instance, loaded
by :func:`load_driver` from ``[DEFAULT] compute_driver``. The driver serves
one or many *nodes* (hypervisors; the fake driver serves many, as Ironic
does). Each node is one ``compute_nodes`` row in the cell database and one
root resource provider in placement, with the same uuid.

Who owns what
-------------
* The **compute manager** owns instances: their database records, vm and
  task states, allocations in placement (the scheduler claimed them; the
  compute deletes them). It calls the driver with an ``instance`` it has
  already validated and never asks the driver to decide a state change.
* The **resource tracker** owns ``compute_nodes`` rows and the provider
  trees it flushes to placement. It asks the driver for node resources
  (:meth:`ComputeDriver.get_available_resource`) and lets the driver edit a
  copy of each node's tree (:meth:`ComputeDriver.update_provider_tree`).
* The **driver** owns guests (the hypervisor's side of instances) and the
  part of each provider tree describing its hardware: the inventories,
  child providers and traits it reports. It holds no database credentials
  and never talks to placement or to other services.

Calling conventions
-------------------
* ``instance`` is an instance object or a dict with at least ``uuid`` and
  ``node`` (the node it lives on); ``flavor`` (``vcpus``, ``memory_mb``,
  ``root_gb``, ``ephemeral_gb``) when present. Drivers read it, never save
  it.
* ``allocations`` given to ``spawn`` / ``finish_migration`` are the
  instance's allocations as placement holds them: ``{rp_uuid:
  {"resources": {resource_class: amount}}}``.
* Methods may be called from several threads at once, for different
  instances; a driver protects its own state.
* Failures are the exceptions of :mod:`nova_lite.virt.exception`; a method
  raising anything else is a driver bug that the compute logs and treats as
  :class:`~nova_lite.virt.exception.BuildFailed` (builds) or as a failed
  action (everything else).
"""

import collections
import importlib
import math

import os_traits

from nova_lite import conf as nl_conf
from nova_lite.conf import allocation as allocation_conf
from nova_lite import exception

InstanceInfo = collections.namedtuple('InstanceInfo', ['state', 'internal_id'])
InstanceInfo.__doc__ = """What the hypervisor says about one guest.

``state`` is a :mod:`nova_lite.virt.power_state` value; ``internal_id`` the
hypervisor's own name for the guest.
"""

# Capability name -> the trait the resource tracker puts on (or removes from)
# every root provider of a driver that has (or lacks) that capability.
CAPABILITY_TRAITS = {
    'supports_attach_interface': os_traits.COMPUTE_NET_ATTACH_INTERFACE,
    'supports_device_tagging': os_traits.COMPUTE_DEVICE_TAGGING,
    'supports_multiattach': os_traits.COMPUTE_VOLUME_MULTI_ATTACH,
    'supports_image_type_raw': os_traits.COMPUTE_IMAGE_TYPE_RAW,
    'supports_image_type_qcow2': os_traits.COMPUTE_IMAGE_TYPE_QCOW2,
}

_RATIO_OPTIONS = {
    'VCPU': 'cpu_allocation_ratio',
    'MEMORY_MB': 'ram_allocation_ratio',
    'DISK_GB': 'disk_allocation_ratio',
}

DRIVER_PACKAGE = 'nova_lite.virt'


def instance_field(instance, name, default=None):
    """Read ``name`` from an instance object or dict (``default`` if absent).
    """
    if isinstance(instance, dict):
        return instance.get(name, default)
    return getattr(instance, name, default)


class ComputeDriver:
    """Base class of virt drivers; every operation is documented here.

    Subclasses override what they support; the others raise
    ``NotImplementedError``, which the compute turns into a clear error.
    """

    #: What the hypervisor can do. The compute checks these before offering
    #: an operation; ``CAPABILITY_TRAITS`` turns some into root traits.
    capabilities = {
        'supports_evacuate': False,
        'supports_migrate_to_same_host': False,
        'supports_pause': False,
        'supports_suspend': False,
        'supports_attach_interface': False,
        'supports_device_tagging': False,
        'supports_multiattach': False,
        'supports_image_type_raw': False,
        'supports_image_type_qcow2': False,
    }

    def __init__(self, virtapi=None, conf=None):
        """Create the driver; do no I/O until :meth:`init_host`.

        :param virtapi: callbacks into the compute manager (events, provider
            status); None where the driver needs none.
        :param conf: the ConfigOpts to read; the global CONF by default.
        """
        if conf is None:
            conf = nl_conf.CONF
        allocation_conf.register_opts(conf)
        self.virtapi = virtapi
        self.conf = conf

    # -- lifecycle of the driver -------------------------------------------

    def init_host(self, host):
        """Prepare the hypervisor connection for this compute host.

        Called once at service start, before any other method except
        :meth:`__init__`. Validates configuration and recovers guests that
        outlived the previous compute process.

        :param host: this compute's ``[DEFAULT] host``.
        :raises nova_lite.exception.ConfigInvalid: bad configuration; the
            message is one line naming the option. The service exits.
        """
        raise NotImplementedError()

    def cleanup_host(self, host):
        """Release what :meth:`init_host` took, at service stop.

        Guests keep running. The default does nothing.

        :param host: this compute's ``[DEFAULT] host``.
        """

    def capabilities_as_traits(self):
        """Traits to add (True) or remove (False) on each root provider.

        :returns: ``{trait_name: bool}`` for every capability listed in
            ``CAPABILITY_TRAITS``.
        """
        return {trait: bool(self.capabilities.get(name))
                for name, trait in CAPABILITY_TRAITS.items()}

    # -- nodes and resources ------------------------------------------------

    def get_available_nodes(self, refresh=False):
        """Names of the nodes this compute serves now.

        Names are unique in the whole cloud (they become
        ``compute_nodes.hypervisor_hostname`` and root provider names). A
        node missing from the list is treated by the resource tracker as
        gone: its row and provider are removed once no allocation remains.

        :param refresh: re-read the hypervisor instead of a cached list.
        :returns: list of node names, in a stable order.
        """
        raise NotImplementedError()

    def get_nodenames_by_uuid(self, refresh=False):
        """Map each node's provider uuid to its name.

        :param refresh: re-read the hypervisor instead of a cached list.
        :returns: ``{uuid: nodename}`` for the nodes of
            :meth:`get_available_nodes`.
        """
        raise NotImplementedError()

    def get_available_resource(self, nodename):
        """Resources and usage of one node, for its ``compute_nodes`` row.

        Precondition: ``nodename`` is in :meth:`get_available_nodes`.

        :param nodename: the node.
        :returns: dict with ``vcpus``, ``memory_mb``, ``local_gb`` (totals),
            ``vcpus_used``, ``memory_mb_used``, ``local_gb_used``,
            ``running_vms`` (usage from the guests the driver holds),
            ``hypervisor_type``, ``hypervisor_version`` (int),
            ``hypervisor_hostname`` (= nodename), ``cpu_info`` (a JSON
            string), ``uuid`` (the node's provider uuid, stable across
            restarts), ``disk_available_least``, ``numa_topology`` (None).
        :raises nova_lite.virt.exception.NodeNotFound: not served here.
        """
        raise NotImplementedError()

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        """Describe the node's providers by editing ``provider_tree``.

        The resource tracker passes a copy of the node's tree as placement
        last confirmed it; it contains at least the root provider (named
        ``nodename``, uuid from :meth:`get_available_resource`). The call
        owns the tree until it returns and needs no locking.

        Postcondition: the tree describes the node's hierarchy: inventory
        records (``total``, ``reserved``, ``min_unit``, ``max_unit``,
        ``step_size``, ``allocation_ratio``, with ratios and reserved
        amounts from configuration, see :meth:`get_allocation_ratios`),
        child providers (named after the node, with stable uuids) and the
        traits and aggregates the driver owns. The driver touches only what
        it owns: traits or aggregates set by others (an operator, the
        resource tracker's ``COMPUTE_STATUS_DISABLED``) and providers it did
        not create are left alone. The root is never renamed or removed.

        Reshapes: when inventory must move between providers (for example
        VGPU from the root to per-GPU children), existing allocations must
        move with it in the same placement call. Called with
        ``allocations=None``, the driver then raises ``ReshapeNeeded`` and
        leaves the tree as it found it; the resource tracker calls again
        with the allocations of every consumer of the tree, and the driver
        both edits the tree and moves the affected allocations in place.
        The tracker then sends both in one ``POST /reshaper``.

        :param provider_tree: the node's tree, a ``ProviderTree`` of
            :mod:`nova_lite.provider_tree.tree`.
        :param nodename: the node, also the root provider's name.
        :param allocations: None, or ``{consumer_uuid: {"allocations":
            {rp_uuid: {"resources": {rc: amount}}}, "project_id",
            "user_id", "consumer_generation"}}`` to edit in place.
        :raises nova_lite.virt.exception.ReshapeNeeded: inventory must move
            and ``allocations`` is None.
        :raises nova_lite.virt.exception.ReshapeFailed: the allocations
            given cannot be placed on the new layout.
        """
        raise NotImplementedError()

    def get_allocation_ratios(self, inventory):
        """Allocation ratios of VCPU, MEMORY_MB and DISK_GB for a provider.

        Precedence per resource class: ``[DEFAULT] <res>_allocation_ratio``
        when set; else the ratio already in ``inventory`` (set through the
        placement API, say); else ``[DEFAULT] initial_<res>_allocation_ratio``.

        :param inventory: the provider's current inventory (may be empty).
        :returns: ``{resource_class: ratio}``.
        """
        ratios = {}
        for rc, option in _RATIO_OPTIONS.items():
            configured = getattr(self.conf, option)
            existing = inventory.get(rc, {}).get('allocation_ratio')
            if configured is not None:
                ratios[rc] = configured
            elif existing is not None:
                ratios[rc] = existing
            else:
                ratios[rc] = getattr(self.conf, 'initial_' + option)
        return ratios

    def get_reserved(self):
        """Host-reserved amounts of VCPU, MEMORY_MB and DISK_GB.

        :returns: ``{resource_class: amount}``; disk is rounded up to GB.
        """
        return {
            'VCPU': self.conf.reserved_host_cpus,
            'MEMORY_MB': self.conf.reserved_host_memory_mb,
            'DISK_GB': int(math.ceil(self.conf.reserved_host_disk_mb /
                                     1024.0)),
        }

    # -- guests ---------------------------------------------------------------

    def spawn(self, context, instance, image_meta, allocations,
              network_info=None, block_device_info=None):
        """Create and start a guest for ``instance`` on ``instance.node``.

        Preconditions: the scheduler (or a cell conductor, on reschedule)
        has claimed ``allocations`` in placement; no guest with this uuid
        exists on this host.

        Postcondition on success: the guest exists, is RUNNING, and counts
        in :meth:`get_available_resource` of its node.

        Postcondition on failure: nothing is left behind (no guest, no
        usage), so the compute only has to delete the allocation. A
        ``BuildFailed`` means another host may succeed (the compute
        reschedules to an alternate); ``BuildAbort`` means it would not
        (the instance goes to ERROR with a fault).

        :param context: the request context.
        :param instance: the instance (uuid, node, flavor).
        :param image_meta: the image's metadata (dict).
        :param allocations: the instance's allocations, ``{rp_uuid:
            {"resources": {...}}}``.
        :param network_info: network information (unused by the fake).
        :param block_device_info: block devices (unused by the fake).
        :raises nova_lite.virt.exception.BuildFailed: reschedulable failure.
        :raises nova_lite.virt.exception.BuildAbort: final failure.
        """
        raise NotImplementedError()

    def destroy(self, context, instance, network_info=None,
                block_device_info=None, destroy_disks=True):
        """Stop and remove the instance's guest; idempotent.

        Postcondition: the guest no longer exists on this host and no longer
        counts in usage. Destroying an unknown guest is not an error (the
        compute calls this after failed builds and when cleaning up).

        :param context: the request context.
        :param instance: the instance.
        :param network_info: network information.
        :param block_device_info: block devices.
        :param destroy_disks: False keeps disks (shared storage moves).
        """
        raise NotImplementedError()

    def power_off(self, instance, timeout=0, retry_interval=0):
        """Stop the guest; postcondition: SHUTDOWN.

        :param instance: the instance.
        :param timeout: seconds to wait for a clean shutdown; 0 forces.
        :param retry_interval: seconds between shutdown requests.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def power_on(self, context, instance, network_info=None,
                 block_device_info=None):
        """Start a stopped guest; postcondition: RUNNING.

        :param context: the request context.
        :param instance: the instance.
        :param network_info: network information.
        :param block_device_info: block devices.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def reboot(self, context, instance, network_info=None,
               reboot_type='SOFT', block_device_info=None):
        """Reboot the guest; postcondition: RUNNING.

        :param context: the request context.
        :param instance: the instance.
        :param network_info: network information.
        :param reboot_type: ``SOFT`` or ``HARD``.
        :param block_device_info: block devices.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def pause(self, instance):
        """Pause the guest in memory; postcondition: PAUSED.

        :param instance: the instance.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def unpause(self, instance):
        """Resume a paused guest; postcondition: RUNNING.

        :param instance: the instance.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def rescue(self, context, instance, image_ref, rescue_password):
        """Boot the (powered off) guest from the rescue image, its own
        disks still attached where they were (stable device rescue);
        postcondition: the guest is rescued until :meth:`unrescue`.

        :param context: the request context.
        :param instance: the instance.
        :param image_ref: the rescue image's id.
        :param rescue_password: the rescue guest's admin password.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def unrescue(self, context, instance):
        """Boot the guest from its own disk again; postcondition:
        RUNNING, not rescued.

        :param context: the request context.
        :param instance: the instance.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def attach_interface(self, context, instance, port_id):
        """Hot-plug the port ``port_id`` (already bound to the instance
        in the network service) into the guest.

        :param context: the request context.
        :param instance: the instance.
        :param port_id: the port's id.
        :raises nova_lite.virt.exception.VirtDriverError: already plugged.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def detach_interface(self, context, instance, port_id):
        """Unplug the port ``port_id`` from the guest.

        :param context: the request context.
        :param instance: the instance.
        :param port_id: the port's id.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def suspend(self, context, instance):
        """Save the guest's memory to disk; postcondition: SUSPENDED.

        :param context: the request context.
        :param instance: the instance.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def resume(self, context, instance, network_info=None,
               block_device_info=None):
        """Restore a suspended guest; postcondition: RUNNING.

        :param context: the request context.
        :param instance: the instance.
        :param network_info: network information.
        :param block_device_info: block devices.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def snapshot(self, context, instance, image_id, update_task_state):
        """Store the guest's disk as the data of image ``image_id``.

        The image exists already (``queued``, created by the API); the
        driver uploads the data through the image API, which makes it
        ``active``, and reports its progress as Nova's drivers do.

        :param context: the request context.
        :param instance: the instance whose guest is stored.
        :param image_id: the id of the image to fill.
        :param update_task_state: ``(task_state, expected_state=...)``,
            called with the ``*_pending_upload`` state before the guest is
            read and the ``*_uploading`` one before the upload.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def get_info(self, instance):
        """The hypervisor's view of the guest.

        :param instance: the instance.
        :returns: :class:`InstanceInfo`.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def list_instance_uuids(self):
        """Uuids of every guest on this host, whatever its node or state.

        The compute compares them with its instances at start (guests
        outlive a restart of the compute process).

        :returns: list of instance uuids.
        """
        raise NotImplementedError()

    def instance_exists(self, instance):
        """True if a guest for the instance exists on this host.

        :param instance: the instance.
        """
        return instance_field(instance, 'uuid') in self.list_instance_uuids()

    # -- moves --------------------------------------------------------------

    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info=None, block_device_info=None,
                                   timeout=0, retry_interval=0):
        """Source side of a cold migration or resize: stop and ship disks.

        Postcondition: the guest is SHUTDOWN and kept on the source (its
        usage still counts) until :meth:`confirm_migration` drops it or
        :meth:`finish_revert_migration` restarts it.

        :param context: the request context.
        :param instance: the instance, still with its old flavor.
        :param dest: host name of the destination.
        :param flavor: the new flavor.
        :param network_info: network information.
        :param block_device_info: block devices.
        :param timeout: seconds to wait for a clean shutdown.
        :param retry_interval: seconds between shutdown requests.
        :returns: an opaque ``disk_info`` string for
            :meth:`finish_migration`.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        """Destination side: create the guest on ``migration.dest_node``.

        Precondition: ``instance.flavor`` is the new flavor; ``allocations``
        are the instance's allocations on this host. Postcondition: the
        guest exists here (RUNNING if ``power_on`` else SHUTDOWN) and
        counts in this node's usage. On the same host (resize to same
        host) the source guest is kept until confirm or revert.

        :param context: the request context.
        :param migration: the migration (``source_node``, ``dest_node``).
        :param instance: the instance.
        :param disk_info: what :meth:`migrate_disk_and_power_off` returned.
        :param network_info: network information.
        :param image_meta: the image's metadata.
        :param resize_instance: True when the flavor changes.
        :param allocations: the instance's allocations on this host.
        :param block_device_info: block devices.
        :param power_on: start the guest.
        """
        raise NotImplementedError()

    def confirm_migration(self, context, migration, instance,
                          network_info=None):
        """Source side of confirm: drop the guest left on the source.

        Postcondition: the source guest no longer exists or counts; the
        destination guest is untouched. Idempotent.

        :param context: the request context.
        :param migration: the migration.
        :param instance: the instance.
        :param network_info: network information.
        """
        raise NotImplementedError()

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        """Source side of revert: restart the guest kept on the source.

        Precondition: the compute destroyed the destination guest.
        Postcondition: the source guest is RUNNING (if ``power_on``) with
        the old flavor.

        :param context: the request context.
        :param instance: the instance, with its old flavor back.
        :param network_info: network information.
        :param migration: the migration.
        :param block_device_info: block devices.
        :param power_on: start the guest.
        :raises nova_lite.virt.exception.GuestNotFound: nothing kept.
        """
        raise NotImplementedError()


    # -- diagnostics and external events -----------------------------------

    def get_diagnostics(self, instance):
        """Free-form diagnostics of a running guest (API before 2.48).

        :param instance: the instance.
        :returns: a dict of counters named as the hypervisor names them.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def get_instance_diagnostics(self, instance):
        """Standard diagnostics of a running guest (API 2.48).

        :param instance: the instance.
        :returns: a dict with ``state``, ``driver``, ``hypervisor``,
            ``hypervisor_os``, ``uptime``, ``config_drive``, ``num_cpus``,
            ``num_nics``, ``num_disks``, ``cpu_details``, ``nic_details``,
            ``disk_details`` and ``memory_details``.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()

    def power_update_event(self, instance, target_power_state):
        """The guest's power changed outside Nova (a ``power-update``
        external event): record ``POWER_ON`` or ``POWER_OFF``.

        :param instance: the instance.
        :param target_power_state: ``POWER_ON`` or ``POWER_OFF``.
        :raises nova_lite.virt.exception.GuestNotFound: no such guest.
        """
        raise NotImplementedError()


def load_driver(name=None, virtapi=None, conf=None):
    """Create the driver named ``module.Class`` under ``nova_lite.virt``.

    :param name: e.g. ``fake.FakeDriver``; ``[DEFAULT] compute_driver`` when
        None.
    :param virtapi: passed to the driver.
    :param conf: passed to the driver (the global CONF by default).
    :raises nova_lite.exception.ConfigInvalid: unknown or invalid name.
    """
    if conf is None:
        conf = nl_conf.CONF
    name = name or conf.compute_driver
    module_name, _, class_name = (name or '').rpartition('.')
    try:
        module = importlib.import_module('%s.%s' % (DRIVER_PACKAGE,
                                                    module_name))
        driver_class = getattr(module, class_name)
    except (ImportError, AttributeError, ValueError):
        raise exception.ConfigInvalid(
            reason='[DEFAULT] compute_driver: no driver %r under %s' % (
                name, DRIVER_PACKAGE))
    if not (isinstance(driver_class, type) and
            issubclass(driver_class, ComputeDriver)):
        raise exception.ConfigInvalid(
            reason='[DEFAULT] compute_driver: %r is not a ComputeDriver' %
            name)
    return driver_class(virtapi=virtapi, conf=conf)
