"""The fake driver's guests, kept in a JSON file so they outlive a restart.

Real guests keep running when nova-compute restarts; fake ones do too: the
driver writes every change to ``<state_path>/fake_driver/<host>.json``
(written to a temporary file, then renamed over the old one, so a crash
leaves either the old or the new file, never half of one) and reads it back
at ``init_host``. No fsync: the file survives a killed process, not a power
cut, which is what a lab needs.

File format (version 1)::

    {"version": 1, "host": "cmp1",
     "guests": {"<uuid>": {"node": "cmp1-node-0", "power_state": 1,
                           "resources": {"VCPU": 1, "MEMORY_MB": 512,
                                         "DISK_GB": 1},
                           "migrating": false,
                           "resize_source": null}}}

``resize_source`` keeps the old guest (node, power state, resources) while a
resize to the same host awaits confirm or revert; ``migrating`` marks a
source guest whose instance is being moved away.
"""

import collections
import copy
import json
import os
import tempfile
import threading

from nova_lite.virt import exception as virt_exc

FORMAT_VERSION = 1
USAGE_KEYS = (('VCPU', 'vcpus_used'), ('MEMORY_MB', 'memory_mb_used'),
              ('DISK_GB', 'local_gb_used'))


def state_file(state_path, host):
    """Path of a host's guest file under ``state_path``."""
    safe_host = host.replace(os.sep, '_')
    return os.path.join(state_path, 'fake_driver', '%s.json' % safe_host)


class GuestStore:
    """Guests by instance uuid, persisted on every change; thread-safe."""

    def __init__(self, path, host):
        self.path = path
        self.host = host
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._guests = {}
        self._usage = None
        self._version = 0
        self._written = 0

    def prepare(self):
        """Create the directory and check it is writable.

        :raises OSError: it cannot be created or written.
        """
        directory = os.path.dirname(self.path)
        os.makedirs(directory, exist_ok=True)
        if not os.access(directory, os.W_OK | os.X_OK):
            raise PermissionError(13, 'Permission denied', directory)

    def load(self):
        """Read the file if it exists; an unreadable one is an error.

        :raises VirtDriverError: the file exists but cannot be parsed.
        """
        if not os.path.exists(self.path):
            return
        try:
            with open(self.path) as handle:
                data = json.load(handle)
            guests = data['guests']
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise virt_exc.VirtDriverError(
                reason='fake driver state file %s is unreadable: %s' % (
                    self.path, error))
        with self._lock:
            self._guests = guests
            self._usage = None

    def _persist(self, version):
        """Return once a file holding change ``version`` is on disk.

        Group commit: whichever caller gets the write lock encodes the
        latest state, so concurrent changes share one write and every
        caller still returns only after its own change is saved.
        """
        with self._write_lock:
            if self._written >= version:
                return
            with self._lock:
                latest = self._version
                # NOTE(nova_lite): dumps() encodes in C in one go; dump()
                # to a file writes chunk by chunk and is several times
                # slower.
                text = json.dumps({'version': FORMAT_VERSION,
                                   'host': self.host,
                                   'guests': self._guests},
                                  separators=(',', ':'))
            self._write_atomically(text)
            self._written = latest

    def _write_atomically(self, text):
        directory = os.path.dirname(self.path)
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix='.guests-')
        try:
            with os.fdopen(fd, 'w') as handle:
                handle.write(text)
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def get(self, instance_uuid):
        """A copy of one guest record.

        :raises GuestNotFound: no such guest.
        """
        with self._lock:
            return copy.deepcopy(self._get(instance_uuid))

    def find(self, instance_uuid):
        """A copy of one guest record, or None."""
        with self._lock:
            return copy.deepcopy(self._guests.get(instance_uuid))

    def _get(self, instance_uuid):
        try:
            return self._guests[instance_uuid]
        except KeyError:
            raise virt_exc.GuestNotFound(instance_id=instance_uuid)

    def uuids(self):
        with self._lock:
            return list(self._guests)

    def nodes(self):
        """The set of nodes the stored guests live on."""
        with self._lock:
            return {g['node'] for g in self._guests.values()}

    def add(self, instance_uuid, guest):
        """Store a new guest; GuestExists if the uuid is taken."""
        with self._lock:
            if instance_uuid in self._guests:
                raise virt_exc.GuestExists(instance_uuid=instance_uuid,
                                           node=guest['node'])
            self._guests[instance_uuid] = guest
            version = self._changed()
        self._persist(version)

    def put(self, instance_uuid, guest):
        """Store a guest, replacing any record with that uuid."""
        with self._lock:
            self._guests[instance_uuid] = guest
            version = self._changed()
        self._persist(version)

    def update(self, instance_uuid, **fields):
        """Change fields of an existing guest.

        :raises GuestNotFound: no such guest.
        """
        with self._lock:
            self._get(instance_uuid).update(fields)
            version = self._changed()
        self._persist(version)

    def remove(self, instance_uuid):
        """Drop a guest; return its record (None if there was none)."""
        with self._lock:
            guest = self._guests.pop(instance_uuid, None)
            if guest is None:
                return None
            version = self._changed()
        self._persist(version)
        return guest

    def _changed(self):
        """Note a change (under ``_lock``); return its version number."""
        self._usage = None
        self._version += 1
        return self._version

    def usage(self, nodename):
        """Usage of one node: ``vcpus_used``, ``memory_mb_used``,
        ``local_gb_used`` and ``running_vms`` (guests on the node).
        """
        with self._lock:
            if self._usage is None:
                self._usage = self._compute_usage()
            return dict(self._usage.get(nodename, _empty_usage()))

    def _compute_usage(self):
        usage = collections.defaultdict(_empty_usage)
        for guest in self._guests.values():
            _count(usage[guest['node']], guest, vm=1)
            source = guest.get('resize_source')
            if source:
                _count(usage[source['node']], source, vm=0)
        return usage


def _empty_usage():
    result = {key: 0 for _, key in USAGE_KEYS}
    result['running_vms'] = 0
    return result


def _count(usage, guest, vm):
    resources = guest.get('resources', {})
    for rc, key in USAGE_KEYS:
        usage[key] += resources.get(rc, 0)
    usage['running_vms'] += vm
