"""Client side of the compute RPC API (cell bus, topic ``compute``).

Every compute listens on ``Target(topic='compute', server=<host>)``; a
message for an instance goes to its host. API-level callers reach a
compute over the bus of the compute's cell: when the request context is
targeted at a cell (``context.mq_connection``), the client uses that
cell's transport, otherwise the process's default one.
"""

import threading

import oslo_messaging as messaging

from nova_lite import conf as nl_conf
from nova_lite import rpc

CONF = nl_conf.CONF

RPC_TOPIC = 'compute'


class ComputeAPI:
    """Client of the computes.

    Version history:

    * 1.0 - Initial version (base API only).
    * 1.1 - build_and_run_instance, terminate_instance, stop/start/reboot,
      pause/unpause, suspend/resume, set_host_enabled.
    * 1.2 - Move operations: resize/migrate (prep_resize, resize_instance,
      finish_resize, confirm_resize, revert_resize, finish_revert_resize),
      live migration, rebuild/evacuate, shelve/shelve_offload/unshelve.
    """

    VERSION = '1.2'

    def __init__(self, transport=None):
        self._default_transport = transport
        self._clients = {}
        self._lock = threading.Lock()

    def router(self, context):
        """The RPC client for the cell ``context`` is targeted at."""
        transport = context.mq_connection or self._default_transport
        key = id(transport)
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                target = messaging.Target(topic=RPC_TOPIC,
                                          version=self.VERSION)
                client = rpc.get_client(
                    target, version_cap=CONF.upgrade_levels.compute,
                    transport=transport)
                self._clients[key] = client
            return client

    def prepare(self, context, host, version='1.0', **kwargs):
        """A client context addressed to the compute on ``host``."""
        return self.router(context).prepare(server=host, version=version,
                                            **kwargs)

    # -- 1.1 ---------------------------------------------------------------

    def build_and_run_instance(self, context, instance, host, node,
                               request_spec=None, host_list=None,
                               image=None):
        """Cast: build ``instance`` on ``node`` of ``host``.

        The allocation is already claimed in placement; ``host_list`` holds
        the alternate Selections left for a reschedule. The compute
        answers nothing: the outcome is the instance's state.
        """
        self.prepare(context, host, version='1.1').cast(
            context, 'build_and_run_instance', instance=instance, node=node,
            request_spec=request_spec, host_list=host_list or [],
            image=image)

    def _instance_cast(self, context, method, instance, **kwargs):
        self.prepare(context, instance.host, version='1.1').cast(
            context, method, instance=instance, **kwargs)

    def terminate_instance(self, context, instance):
        """Cast: delete the guest, its allocation and its row."""
        self._instance_cast(context, 'terminate_instance', instance)

    def stop_instance(self, context, instance, clean_shutdown=True):
        """Cast: power off (the API set task_state powering-off)."""
        self._instance_cast(context, 'stop_instance', instance,
                            clean_shutdown=clean_shutdown)

    def start_instance(self, context, instance):
        """Cast: power on (the API set task_state powering-on)."""
        self._instance_cast(context, 'start_instance', instance)

    def reboot_instance(self, context, instance, reboot_type='SOFT'):
        """Cast: reboot, ``SOFT`` or ``HARD``."""
        self._instance_cast(context, 'reboot_instance', instance,
                            reboot_type=reboot_type)

    def pause_instance(self, context, instance):
        """Cast: pause."""
        self._instance_cast(context, 'pause_instance', instance)

    def unpause_instance(self, context, instance):
        """Cast: unpause."""
        self._instance_cast(context, 'unpause_instance', instance)

    def suspend_instance(self, context, instance):
        """Cast: suspend."""
        self._instance_cast(context, 'suspend_instance', instance)

    def resume_instance(self, context, instance):
        """Cast: resume."""
        self._instance_cast(context, 'resume_instance', instance)

    def set_host_enabled(self, context, host, enabled):
        """Call: add or remove COMPUTE_STATUS_DISABLED on the host's nodes
        now; returns 'enabled' or 'disabled'."""
        return self.prepare(context, host, version='1.1').call(
            context, 'set_host_enabled', enabled=enabled)

    # -- 1.2: move operations ------------------------------------------------

    def _cast_1_2(self, context, host, method, **kwargs):
        self.prepare(context, host, version='1.2').cast(context, method,
                                                        **kwargs)

    def _call_1_2(self, context, host, method, timeout=None, **kwargs):
        return self.prepare(context, host, version='1.2',
                            timeout=timeout).call(context, method, **kwargs)

    # ---- resize / cold migrate (nova_lite.compute.resize) ----

    # ---- live migration (nova_lite.compute.live_migration) ----

    # ---- rebuild / evacuate (nova_lite.compute.rebuild) ----

    # ---- shelve / unshelve (nova_lite.compute.shelve) ----
