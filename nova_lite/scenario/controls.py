"""The chaos a timeline applies to a running lab, and its undoing.

RPC rules and service faults reach the services over the bus (the
``fanout`` of ``nova-lite-manage chaos``); computes and cells are acted on
as processes (:mod:`nova_lite.scenario.processes`), and a cell down has
its database cut for the API as well
(:mod:`nova_lite.scenario.cell_databases`); a REST service's fault is a
file of the lab's state directory (:mod:`nova_lite.wsgi.lab_faults`).
:meth:`LabControls.undo_all` takes
everything back, so a run leaves the lab as it found it, whatever
happened.
"""

import time

from nova_lite.scenario import cell_databases
from nova_lite.wsgi import lab_faults


class LabControls:
    """Chaos in a stacked lab. ``fanout(send)`` calls ``send(api, ctxt)``
    with the base RPC API of every topic on every bus; ``admin_context()``
    gives a context for the API database."""

    def __init__(self, processes, fanout, admin_context):
        self.processes = processes
        self.fanout = fanout
        self.admin_context = admin_context

    def rpc_rule(self, rule):
        self.fanout(lambda api, ctxt: api.chaos_add(ctxt, rule))
        return 'rule %s' % sorted(rule.items())

    def rpc_release(self, match, discard=False):
        self.fanout(lambda api, ctxt: api.chaos_release(
            ctxt, match, discard=discard))
        return '%s %s' % ('discarded' if discard else 'released', match)

    def rpc_clear(self, discard=False):
        self.fanout(lambda api, ctxt: api.chaos_clear(ctxt, discard=discard))
        return 'rules cleared'

    def fault(self, fault):
        self.fanout(lambda api, ctxt: api.chaos_fault(ctxt, fault))
        return 'fault %s' % sorted(fault.items())

    def api_fault(self, service, fault, seconds=None):
        """Delay and fail requests of a REST service
        (:mod:`nova_lite.wsgi.lab_faults`) until the lab's chaos clear,
        or for ``seconds``."""
        if seconds is not None:
            fault = dict(fault, until=time.time() + seconds)
        written = lab_faults.write(self.processes.state, service, fault)
        return 'api fault %s %s' % (service, sorted(written.items()))

    def clear_api_faults(self):
        return 'removed %s' % (', '.join(lab_faults.remove(
            self.processes.state)) or 'none')

    def kill_compute(self, hosts):
        names = self.processes.computes(hosts)
        killed = [n for n in names if self.processes.kill(n)]
        return 'killed %s' % (', '.join(killed) or 'nothing')

    def restart_compute(self, hosts):
        names = self.processes.computes(hosts)
        for name in names:
            if name not in self.processes.killed:
                self.processes.kill(name)
        started = [n for n in names if self.processes.start(n)]
        return 'started %s' % (', '.join(started) or 'nothing')

    def freeze_cell(self, cell):
        """The cell down: its database cut for the API, its conductor and
        computes frozen."""
        cell_databases.cut(self.admin_context(), self.processes.state, cell)
        return 'cut %s database; froze %s' % (
            cell, ', '.join(self.processes.freeze_cell(cell)))

    def thaw_cell(self, cell):
        restored = cell_databases.restore(self.admin_context(),
                                          self.processes.state, cell)
        return 'restored %s database; thawed %s' % (
            ', '.join(restored) or 'no', ', '.join(
                self.processes.thaw(cell)) or 'nothing')

    def restore_databases(self):
        return cell_databases.restore(self.admin_context(),
                                      self.processes.state)

    def undo_all(self):
        """Clear every rule, thaw every frozen process, start every killed
        compute; what was done, for the report."""
        done = []
        for name, undo in (('rpc_clear', self.rpc_clear),
                           ('cell databases', self.restore_databases),
                           ('api faults', self.clear_api_faults),
                           ('thaw', self.processes.thaw),
                           ('restart', self.processes.restart_killed)):
            try:
                result = undo()
            except Exception as exc:  # reported, and the rest still runs
                done.append('%s failed: %s' % (name, exc))
            else:
                done.append('%s: %s' % (name, result))
        return done
