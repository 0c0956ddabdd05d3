"""The fake driver's guests, kept on disk so they outlive a restart.

Real guests keep running when nova-compute restarts; fake ones do too: the
driver keeps them in ``<state_path>/fake_driver/<host>.json`` and
reads them back at ``init_host``. A change is one line appended to the
host's journal (``<host>.journal``), so a boot's write does not grow with
the guests on the host; once the journal holds more lines than there are
guests (and at start-up), the whole state is written to the JSON
file (to a temporary file, then renamed over the old one) and the journal
is removed. A kill while a line is written leaves that last line torn,
and it is skipped; no fsync: the files survive a killed process, not a
power cut, which is what a lab needs.

File format (version 1)::

    {"version": 1, "host": "cmp1",
     "guests": {"<uuid>": {"node": "cmp1-node-0", "power_state": 1,
                           "resources": {"VCPU": 1, "MEMORY_MB": 512,
                                         "DISK_GB": 1},
                           "migrating": false,
                           "resize_source": null}}}

Journal: one JSON object a line, ``{"uuid": ..., "guest": {...}}`` (the
guest's whole record after the change) or ``{"uuid": ..., "guest": null}``
(removed); replaying it over the file gives the state, however often.

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
# A journal shorter than this is never folded into the file.
COMPACT_AFTER = 1000
USAGE_KEYS = (('VCPU', 'vcpus_used'), ('MEMORY_MB', 'memory_mb_used'),
              ('DISK_GB', 'local_gb_used'))


def state_file(state_path, host):
    """Path of a host's guest file under ``state_path``."""
    safe_host = host.replace(os.sep, '_')
    return os.path.join(state_path, 'fake_driver', '%s.json' % safe_host)


def journal_file(path):
    """Path of the journal beside the guest file ``path``."""
    return os.path.splitext(path)[0] + '.journal'


def read_guests(path):
    """{uuid: guest} of the guest file ``path`` with its journal replayed;
    empty when neither exists.

    :raises OSError, ValueError, KeyError, TypeError: a file is unreadable
        or malformed (a torn last journal line is not).
    """
    guests = {}
    if os.path.exists(path):
        with open(path) as handle:
            guests = json.load(handle)['guests']
    try:
        with open(journal_file(path)) as handle:
            lines = handle.read().split('\n')
    except FileNotFoundError:
        return guests
    for number, line in enumerate(lines):
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            if number == len(lines) - 1:
                break       # the write a kill interrupted
            raise
        if entry['guest'] is None:
            guests.pop(entry['uuid'], None)
        else:
            guests[entry['uuid']] = entry['guest']
    return guests


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
        self._pending = []          # journal lines not written yet
        self._journal_lines = 0     # lines in the journal on disk
        self._fold_next = False     # a failed append lost lines

    def prepare(self):
        """Create the directory and check it is writable.

        :raises OSError: it cannot be created or written.
        """
        directory = os.path.dirname(self.path)
        os.makedirs(directory, exist_ok=True)
        if not os.access(directory, os.W_OK | os.X_OK):
            raise PermissionError(13, 'Permission denied', directory)

    def load(self):
        """Read the file and its journal if they exist, then fold the
        journal into the file (so this process appends to a whole one);
        an unreadable file is an error.

        :raises VirtDriverError: a file exists but cannot be parsed.
        """
        journaled = os.path.exists(journal_file(self.path))
        if not journaled and not os.path.exists(self.path):
            return
        try:
            guests = read_guests(self.path)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise virt_exc.VirtDriverError(
                reason='fake driver state file %s is unreadable: %s' % (
                    self.path, error))
        with self._lock:
            self._guests = guests
            self._usage = None
            if not journaled:
                return
            self._version += 1
            version = self._version
        self._persist(version, compact=True)

    def _persist(self, version, compact=False):
        """Return once change ``version`` is on disk.

        Group commit: whichever caller gets the write lock writes every
        line noted so far, so concurrent changes share one write and every
        caller still returns only after its own change is saved.
        """
        with self._write_lock:
            if self._written >= version:
                return
            with self._lock:
                latest = self._version
                lines, self._pending = self._pending, []
                compact = compact or self._fold_next or (
                    self._journal_lines + len(lines) >
                    max(COMPACT_AFTER, len(self._guests)))
                if compact:
                    # NOTE(nova_lite): dumps() encodes in C in one go;
                    # dump() to a file writes chunk by chunk and is
                    # several times slower.
                    text = json.dumps({'version': FORMAT_VERSION,
                                       'host': self.host,
                                       'guests': self._guests},
                                      separators=(',', ':'))
            if compact:
                self._write_atomically(text)
                self._drop_journal()
            else:
                self._append(lines)
            self._written = latest

    def _append(self, lines):
        try:
            with open(journal_file(self.path), 'a') as handle:
                handle.write(''.join(lines))
        except OSError:
            # These lines are no longer pending: the next write saves the
            # whole state instead, theirs included.
            self._fold_next = True
            raise
        self._journal_lines += len(lines)

    def _drop_journal(self):
        """Remove the journal once the file holds everything in it (a
        kill before this replays it again, to the same state)."""
        try:
            os.unlink(journal_file(self.path))
        except FileNotFoundError:
            pass
        self._journal_lines = 0
        self._fold_next = False

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
            self._account(guest, 1)
            version = self._changed(instance_uuid)
        self._persist(version)

    def put(self, instance_uuid, guest):
        """Store a guest, replacing any record with that uuid."""
        with self._lock:
            self._account(self._guests.get(instance_uuid), -1)
            self._guests[instance_uuid] = guest
            self._account(guest, 1)
            version = self._changed(instance_uuid)
        self._persist(version)

    def update(self, instance_uuid, **fields):
        """Change fields of an existing guest.

        :raises GuestNotFound: no such guest.
        """
        with self._lock:
            guest = self._get(instance_uuid)
            self._account(guest, -1)
            guest.update(fields)
            self._account(guest, 1)
            version = self._changed(instance_uuid)
        self._persist(version)

    def remove(self, instance_uuid):
        """Drop a guest; return its record (None if there was none)."""
        with self._lock:
            guest = self._guests.pop(instance_uuid, None)
            if guest is None:
                return None
            self._account(guest, -1)
            version = self._changed(instance_uuid)
        self._persist(version)
        return guest

    def _changed(self, instance_uuid):
        """Note a change of one guest (under ``_lock``): its journal line,
        encoded now, before a later change; return its version number."""
        self._pending.append(json.dumps(
            {'uuid': instance_uuid,
             'guest': self._guests.get(instance_uuid)},
            separators=(',', ':')) + '\n')
        self._version += 1
        return self._version

    def _account(self, guest, sign):
        """Add (``sign`` 1) or take away (-1) a guest's share of the
        cached usage (under ``_lock``), instead of summing every guest
        again after each change."""
        if self._usage is None or guest is None:
            return
        _count(self._usage[guest['node']], guest, vm=sign, sign=sign)
        source = guest.get('resize_source')
        if source:
            _count(self._usage[source['node']], source, vm=0, sign=sign)

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


def _count(usage, guest, vm, sign=1):
    resources = guest.get('resources', {})
    for rc, key in USAGE_KEYS:
        usage[key] += sign * resources.get(rc, 0)
    usage['running_vms'] += vm
