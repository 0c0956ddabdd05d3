"""Lab processes a scenario kills, restarts, freezes and thaws.

devstack/stack.sh records each process's pid in ``$STATE/pids/NAME.pid``
(``compute-HOST``, ``conductor-CELL``) and starts each in its own process
group. A compute is restarted with the command line it had (read from
``/proc`` before it is killed), so a restart takes the compute's start-up
time, not a stack.sh run.

A frozen cell is its conductor and computes stopped with SIGSTOP: they
stop consuming and heartbeating at once, and their messages wait on the
cell's bus. What is frozen is recorded in ``$STATE/chaos-frozen.json`` so
that ``nova-lite-manage chaos clear`` and ``devstack/unstack.sh`` can
thaw it whoever froze it.
"""

import json
import os
import re
import signal
import subprocess
import time

FROZEN_FILE = 'chaos-frozen.json'


class Processes:
    """The processes of the lab whose state directory is ``state``."""

    def __init__(self, state):
        self.state = state
        self.piddir = os.path.join(state, 'pids')
        self.logdir = os.path.join(state, 'logs')
        # {name: argv} of the processes killed, to start them again.
        self.killed = {}

    def pid(self, name):
        try:
            with open(os.path.join(self.piddir, name + '.pid')) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    def names(self):
        if not os.path.isdir(self.piddir):
            return []
        return sorted(n[:-len('.pid')] for n in os.listdir(self.piddir)
                      if n.endswith('.pid'))

    def computes(self, hosts='all'):
        """The ``compute-HOST`` names meant by ``hosts`` (a host, a list,
        or 'all')."""
        every = [n for n in self.names() if n.startswith('compute-')]
        if hosts == 'all':
            return every
        wanted = [hosts] if isinstance(hosts, str) else hosts
        names = ['compute-' + h for h in wanted]
        unknown = [n for n in names if n not in every]
        if unknown:
            raise LookupError('no such compute in the lab: %s'
                              % ', '.join(n[len('compute-'):]
                                          for n in unknown))
        return names

    def kill(self, name, timeout=10.0):
        """SIGKILL ``name``'s process group; remember how to start it."""
        pid = self.pid(name)
        if pid is None or not _alive(pid):
            return False
        try:
            with open('/proc/%d/cmdline' % pid, 'rb') as f:
                self.killed[name] = command_line(f.read())
        except OSError:
            pass
        _signal_group(pid, signal.SIGCONT)
        _signal_group(pid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return True

    def start(self, name):
        """Start a process :meth:`kill` killed, as stack.sh would."""
        argv = self.killed.pop(name, None)
        if argv is None:
            return False
        with open(os.path.join(self.logdir, name + '.log'), 'ab') as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=log,
                                    stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        with open(os.path.join(self.piddir, name + '.pid'), 'w') as f:
            f.write('%d\n' % proc.pid)
        return True

    def restart_killed(self):
        """Start every process killed and not started again."""
        return [name for name in list(self.killed) if self.start(name)]

    def freeze_cell(self, cell):
        names = ['conductor-' + cell] + [
            n for n in self.names()
            if n.startswith('compute-%s-' % cell)]
        frozen = self._frozen()
        for name in names:
            pid = self.pid(name)
            if pid is not None and _alive(pid):
                _signal_group(pid, signal.SIGSTOP)
                frozen[name] = pid
        self._write_frozen(frozen)
        return names

    def thaw(self, cell=None):
        """SIGCONT the frozen processes (of ``cell``, or all); their
        names."""
        frozen = self._frozen()
        thawed = []
        for name, pid in list(frozen.items()):
            if cell is None or name == 'conductor-' + cell or \
                    name.startswith('compute-%s-' % cell):
                _signal_group(pid, signal.SIGCONT)
                del frozen[name]
                thawed.append(name)
        self._write_frozen(frozen)
        return thawed

    def frozen(self):
        return sorted(self._frozen())

    def _frozen(self):
        try:
            with open(os.path.join(self.state, FROZEN_FILE)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def _write_frozen(self, frozen):
        path = os.path.join(self.state, FROZEN_FILE)
        if not frozen:
            if os.path.exists(path):
                os.unlink(path)
            return
        with open(path, 'w') as f:
            json.dump(frozen, f)


def command_line(raw):
    """The argv in ``/proc/PID/cmdline``'s bytes. A service's master
    process renames itself (``nova-lite-compute: master process [ARGV]``,
    one string); its argv is then the part in brackets (lab paths have no
    spaces)."""
    argv = [a.decode() for a in raw.split(b'\0') if a]
    if len(argv) == 1:
        renamed = re.search(r'\[(.+)\]$', argv[0])
        argv = (renamed.group(1) if renamed else argv[0]).split()
    return argv


def _alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().split(')')[-1].split()[0] != 'Z'
    except OSError:
        return False


def _signal_group(pid, sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
