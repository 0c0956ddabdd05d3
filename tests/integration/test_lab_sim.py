"""What-if scheduling's round trip on a stacked lab.

``sim import`` reads the lab's inventory (its placement and compute
URLs, before any server exists); 200 boots, with deletes between them,
go through the lab's real API one after the other (each waited for, so
that every request meets the state the previous ones left); ``sim
record`` reads them back from the instance actions; ``sim run`` replays
the trace with the lab's own configuration file (the scheduler's
``api-level.conf``). Every create whose simulated decision had a single
best host (the best weight strictly above the second; or one host left
after the filters) must land on the host and node where the lab put it.
Ties are reported, not asserted: the lab breaks them by placement's
order, the simulation by the snapshot's (doc/simulation.md).
"""

import json
import os
import random
import subprocess
import sys
import tempfile

from tests.integration import lab as lab_mod

BOOTS = 200
SEED = 7
FLAVORS = ('1', '2', '3')   # m1.tiny, m1.small, m1.medium
DELETE_CHANCE = 0.45


def manage(lab, *args):
    """``nova-lite-manage`` of the lab's virtualenv; its stdout."""
    result = subprocess.run(
        [os.path.join(sys.prefix, 'bin', 'nova-lite-manage'), *args],
        env=lab.env, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise lab_mod.LabError('nova-lite-manage %s: %s%s' % (
            ' '.join(args[:2]), result.stdout[-2000:],
            result.stderr[-3000:]))
    return result.stdout


def single_best(decision):
    """Whether the decision's best host was strictly the best."""
    if decision is None:
        return False
    weights = decision.get('weights') or []
    if len(weights) == 1:
        return True
    return len(weights) > 1 and weights[0]['total'] > weights[1]['total']


class TestSimRoundTrip(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=1, computes_per_cell=3, nodes_per_compute=2,
                      database='sqlite', name_prefix='nl_sim')

    def _boot(self, index, flavor):
        status, reply = self.lab.compute('POST', '/servers', {'server': {
            'name': 'sim-%03d' % index, 'flavorRef': flavor,
            'imageRef': lab_mod.IMAGE, 'networks': 'none'}})
        self.assertEqual(202, status, reply)
        server_id = reply['server']['id']
        self.lab.wait_status([server_id])
        return server_id

    def _delete(self, server_id):
        status, reply = self.lab.compute('DELETE', '/servers/' + server_id)
        self.assertEqual(204, status, reply)
        self.lab.wait_gone([server_id])

    def _workload(self):
        """200 boots of a seeded flavor mix; after each, a seeded chance
        of deleting a random live server. {server id: its server}."""
        rng = random.Random(SEED)
        live, booted = [], []
        for index in range(BOOTS):
            server_id = self._boot(index, rng.choice(FLAVORS))
            booted.append(server_id)
            live.append(server_id)
            if rng.random() < DELETE_CHANCE:
                self._delete(live.pop(rng.randrange(len(live))))
        return booted

    def test_replay_matches_the_lab(self):
        lab = self.lab
        status, _body = lab.compute('PUT', '/os-quota-sets/admin', {
            'quota_set': {'instances': -1, 'cores': -1, 'ram': -1}})
        self.assertEqual(200, status)
        work = tempfile.mkdtemp(prefix='nova-lite-sim-')
        self.addCleanup(subprocess.run, ['rm', '-rf', work])
        snap = os.path.join(work, 'snapshot.json')
        manage(lab, 'sim', 'import', '--placement-url', lab.placement,
               '--compute-url', lab.api + '/v2.1', '--os-token', 'admin',
               '-o', snap)

        booted = self._workload()

        trace = os.path.join(work, 'trace.jsonl')
        manage(lab, 'sim', 'record', '--compute-url', lab.api + '/v2.1',
               '--os-token', 'admin', '-o', trace)
        with open(trace) as f:
            events = [json.loads(line) for line in f]
        creates = [e for e in events if e['action'] == 'create']
        self.assertEqual(booted, [e['id'] for e in creates])
        self.assertEqual(
            len(booted) - len(lab.servers()),
            len([e for e in events if e['action'] == 'delete']))

        out = os.path.join(work, 'report')
        conf = os.path.join(lab.state, 'etc', 'api-level.conf')
        manage(lab, 'sim', 'run', '--snapshot', snap, '--workload', trace,
               '--config', conf, '-o', out, '--seed', '0')
        with open(os.path.join(out, 'api-level.decisions.jsonl')) as f:
            simulated = {d['id']: d for d in map(json.loads, f)
                         if 'action' not in d}

        compared, ties, mismatches = 0, [], []
        for number, event in enumerate(creates, 1):
            real, sim = event['observed'], simulated[event['id']]
            real_at = ('NoValidHost' if real.get('result') == 'NoValidHost'
                       else '%s/%s' % (real.get('host'), real.get('node')))
            sim_at = ('NoValidHost' if sim['result'] == 'NoValidHost'
                      else '%s/%s' % (sim['host'], sim['node']))
            if sim['result'] == 'placed' and not single_best(
                    sim['decision']):
                ties.append((number, real_at, sim_at))
                continue
            compared += 1
            if real_at != sim_at:
                mismatches.append(
                    'boot %d (%s, flavor %s, t=%.3f): lab %s, simulation '
                    '%s; simulated decision: %s' % (
                        number, event['id'], event['flavor'],
                        event['time'], real_at, sim_at, sim['why']))
        tie_note = '%d ties (%d broken as the lab did)' % (
            len(ties), sum(1 for t in ties if t[1] == t[2]))
        self.addDetail('round-trip', _text(
            '%d creates with a single best host compared, %d differ; %s'
            % (compared, len(mismatches), tie_note)))
        self.assertEqual([], mismatches,
                         '%d of %d single-best-host creates differ from '
                         'the lab (%s):\n%s' % (
                             len(mismatches), compared, tie_note,
                             '\n'.join(mismatches)))
        self.assertGreater(compared, BOOTS // 2)
        self.assertTrue(os.path.exists(os.path.join(out, 'report.html')))


def _text(value):
    from testtools import content
    return content.text_content(value)
