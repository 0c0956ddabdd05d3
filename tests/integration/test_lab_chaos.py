"""Chaos scenarios against a stacked lab, as a lab user runs them.

Each shipped scenario runs with ``nova-lite-manage chaos run`` against one
two-cell lab (one compute per cell, so a cell frozen or a compute killed
is felt) and must end with every invariant passing; the deliberately
broken one must report its failure and exit 1 within its own bounds.
Then the faults are put back in place and taken away again, by ``chaos
clear`` and by ``unstack.sh``: neither leaves a rule or a fault behind.

With ``NOVA_LITE_CHAOS_REPORT_DIR`` set, each run's output and JSON report
are kept there.
"""

import json
import os
import subprocess
import sys
import time

from nova_lite.scenario import cell_databases
from nova_lite.scenario import processes
from tests.integration import lab as lab_mod

MANAGE = os.path.join(sys.prefix, 'bin', 'nova-lite-manage')
# The broken scenario's own bounds (timeout 20 s, settle 8 s, cleanup
# 8 s) and the start-up of the command: it must end well within this.
BROKEN_BOUND = 90


class TestChaosScenarios(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=2, computes_per_cell=1, nodes_per_compute=2,
                      database='mysql', name_prefix='nl_labc')

    @classmethod
    def prepare_lab(cls, lab):
        # No build timeout: a dropped build stays in BUILD (the broken
        # scenario shows how that is reported).
        lab.env['NOVA_LITE_BUILD_TIMEOUT'] = '0'

    def manage(self, *args, timeout=300):
        conf = os.path.join(self.lab.state, 'etc', 'api-level.conf')
        return subprocess.run([MANAGE, '--config-file', conf, *args],
                              env=self.lab.env, capture_output=True,
                              text=True, timeout=timeout)

    def run_scenario(self, name, timeout=300):
        path = os.path.join(self.lab.state, name + '.report.json')
        started = time.monotonic()
        result = self.manage('chaos', 'run', name, '--report', path,
                             timeout=timeout)
        seconds = time.monotonic() - started
        with open(path) as f:
            report = json.load(f)
        keep = os.environ.get('NOVA_LITE_CHAOS_REPORT_DIR')
        if keep:
            # Where a run's reports are kept for a look afterwards.
            with open(os.path.join(keep, name + '.txt'), 'w') as f:
                f.write(result.stdout)
            with open(os.path.join(keep, name + '.json'), 'w') as f:
                json.dump(report, f, indent=2)
        return result, report, seconds

    def _shipped(self):
        result = self.manage('chaos', 'run', '--list')
        self.assertEqual(0, result.returncode, result.stderr)
        return [line.split()[0] for line in result.stdout.splitlines()]

    def test_each_shipped_scenario_passes(self):
        self.lab.set_member_quota()
        ran = []
        for name in self._shipped():
            if name.startswith('broken-'):
                continue
            result, report, _ = self.run_scenario(name)
            failed = [r for r in report['invariants'] if not r['passed']]
            self.assertEqual([], failed, '%s:\n%s\n%s' % (
                name, result.stdout[-3000:], result.stderr[-2000:]))
            self.assertEqual(0, result.returncode, result.stderr)
            self.assertIn('PASS no_orphans', result.stdout)
            ran.append(name)
        self.assertEqual(4, len(ran), ran)
        # What every run undid: no rule and no fault is left.
        self.assert_no_chaos_left()

    def test_broken_scenario_reports_failure_without_hanging(self):
        result, report, seconds = self.run_scenario(
            'broken-dropped-build', timeout=BROKEN_BOUND)
        self.assertEqual(1, result.returncode, result.stdout)
        self.assertLess(seconds, BROKEN_BOUND)
        verdicts = {r['check']: r['passed'] for r in report['invariants']}
        self.assertFalse(verdicts['no_stuck_builds'], report)
        self.assertFalse(verdicts['run_completed'], report)
        self.assertEqual(2, len(report['stuck_builds']), report)
        self.assertIn('FAIL no_stuck_builds', result.stdout)
        self.assertTrue(verdicts['cleanup_leaves_nothing'], report)
        self.assert_no_chaos_left()

    def test_clear_and_unstack_leave_nothing_behind(self):
        self.assertEqual(0, self.manage(
            'chaos', 'add', 'hold', '--method', 'build_and_run_instance',
            '--at', 'dispatch').returncode)
        for fault in (('heartbeats', '--host', 'cell1-compute1'),
                      ('partition', '--host', 'cell2-compute1',
                       '--seconds', '600')):
            self.assertEqual(0, self.manage('chaos', 'fault',
                                            *fault).returncode)
        result = self.manage('chaos', 'cell-down', 'cell2')
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertIn('conductor-cell2', result.stdout)
        # The API sees cell2 down (Nova's down-cell listing).
        status, body = self.lab.compute('GET', '/servers/detail')
        self.assertEqual(200, status, body)
        listed = self.list_chaos()
        self.assertTrue(any(e.get('rules') for e in listed), listed)
        faults = {f['fault']: e['host'] for e in listed
                  for f in e.get('faults', [])}
        self.assertEqual({'heartbeats': 'cell1-compute1'}, faults, listed)
        self.assertIn({'fault': 'frozen', 'process': 'conductor-cell2'},
                      listed)
        self.assertIn({'fault': 'cell_database_cut', 'cell': 'cell2'},
                      listed)

        result = self.manage('chaos', 'clear')
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertIn('conductor-cell2', result.stdout)
        self.assert_no_chaos_left()

        # unstack.sh with a rule in place and a cell frozen: every process
        # stops (LabTestCase's teardown checks none is left) and the
        # record of the frozen ones goes.
        self.manage('chaos', 'add', 'drop', '--method', 'build_and_run_'
                    'instance')
        self.assertEqual(0, self.manage('chaos', 'cell-down',
                                        'cell1').returncode)
        for record in (processes.FROZEN_FILE, cell_databases.RECORD_FILE):
            self.assertTrue(os.path.exists(os.path.join(
                self.lab.state, record)), record)
        pids = self.lab.pids()
        result = self.lab.script('unstack.sh')
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertEqual({}, self.lab.leftover_processes(pids))
        for record in (processes.FROZEN_FILE, cell_databases.RECORD_FILE):
            self.assertFalse(os.path.exists(os.path.join(
                self.lab.state, record)), record)
        # A lab stacked again starts with no rule and nothing frozen, and
        # cell1's database is its own again: a server boots and lists.
        self.lab.stack()
        self.assert_no_chaos_left()
        self.assertNotIn('nonexistent-chaos', self.manage(
            'cell_v2', 'list_cells', '--verbose').stdout)

    def list_chaos(self):
        result = self.manage('chaos', 'list', '--json')
        self.assertEqual(0, result.returncode, result.stderr)
        return json.loads(result.stdout)

    def assert_no_chaos_left(self):
        # A fanout cast reaches each service soon after; list asks each.
        deadline = time.monotonic() + 10
        while True:
            listed = self.list_chaos()
            left = [e for e in listed if e.get('fault') or e.get('rules')
                    or e.get('held') or e.get('faults')]
            answered = [e for e in listed if e.get('answered')]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertEqual([], left)
        self.assertTrue(answered, listed)
