"""CPU per ``GET /allocation_candidates`` and SQL statements per request,
in process, optionally against a baseline source tree in the same run.

The latency benchmark (``placement_candidates``) times a server over HTTP,
which a loaded machine makes noisy. This one serves the perfload queries
from the placement WSGI app in this process (SQLite file, the workload
bulk-inserted as in ``placement_candidates``) and reports, per query, the
CPU time of the request (``time.process_time``, so the SQLite engine's
work is included), the number of SQL statements, the candidate and
summary counts and a hash of the body.

``NOVA_LITE_BENCH_BASELINE`` names another checkout (for instance
``git worktree add /tmp/base main``): each round then measures the
baseline and this tree one after the other, each in a fresh interpreter
with its own sources, and the rows compare the best of the rounds, with
``same_body`` telling whether both answered byte-identical JSON.
``NOVA_LITE_BENCH_PROVIDERS`` (default 1,000; ``--quick``: 200) and
``NOVA_LITE_BENCH_ROUNDS`` (default 3) size the run.
"""

import hashlib
import json
import os
import subprocess
import sys
import time

PROVIDERS = int(os.environ.get('NOVA_LITE_BENCH_PROVIDERS', '1000'))
ROUNDS = int(os.environ.get('NOVA_LITE_BENCH_ROUNDS', '3'))
BASELINE = os.environ.get('NOVA_LITE_BENCH_BASELINE')
HEADERS = {'X-Auth-Token': 'admin', 'Accept': 'application/json'}


def measure(n, reps):
    """{query: {...}} for ``n`` flat perfload computes, this process."""
    import sqlalchemy as sa
    import webob

    from nova_lite.testing import placement_fixture
    from tests.bench import placement_candidates as pc

    statements = [0]

    def count(*args, **kwargs):
        statements[0] += 1

    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', count)
    fixture = placement_fixture.PlacementFixture()
    fixture.setUp()
    try:
        def call(path, version='1.36', method='GET'):
            headers = dict(HEADERS)
            headers['OpenStack-API-Version'] = 'placement ' + version
            return webob.Request.blank(path, method=method,
                                       headers=headers).get_response(
                fixture.app)

        call('/resource_providers')
        for trait in pc.PHYSNETS:
            call('/traits/' + trait, method='PUT')
        pc.bulk_load(fixture.url, n)
        result = {}
        for name, version, query in pc._queries('flat', 0):
            path = '/allocation_candidates?' + query
            body = call(path, version).json
            cpu = []
            for _ in range(reps):
                statements[0] = 0
                started = time.process_time()
                call(path, version)
                cpu.append((time.process_time() - started) * 1000)
            result[name] = {
                'cpu_ms': round(min(cpu), 2),
                'sql_statements': statements[0],
                'candidates': len(body['allocation_requests']),
                'summaries': len(body['provider_summaries']),
                'body_sha1': hashlib.sha1(json.dumps(
                    body, sort_keys=True).encode()).hexdigest()}
        return result
    finally:
        fixture.cleanUp()
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', count)


def _child(tree, n, reps):
    env = dict(os.environ, PYTHONPATH=tree, PYTHONDONTWRITEBYTECODE='1')
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), '--child', str(n),
         str(reps)],
        cwd=tree, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _best(runs, name, key):
    return min(run[name][key] for run in runs)


def run(args):
    n = 200 if args.quick else PROVIDERS
    reps = 3 if args.quick else 7
    here = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    trees = [('baseline', BASELINE)] if BASELINE else []
    trees.append(('this', here))
    runs = {label: [] for label, _ in trees}
    load = []
    for _ in range(1 if args.quick else ROUNDS):
        for label, tree in trees:
            runs[label].append(_child(tree, n, reps))
        load.append(os.getloadavg()[0])
    rows = []
    for name in runs['this'][0]:
        this = runs['this'][0][name]
        row = {'query': name, 'providers': n,
               'candidates': this['candidates'],
               'cpu_ms': _best(runs['this'], name, 'cpu_ms'),
               'sql_statements': this['sql_statements']}
        if BASELINE:
            base = runs['baseline'][0][name]
            row.update(
                baseline_cpu_ms=_best(runs['baseline'], name, 'cpu_ms'),
                baseline_sql_statements=base['sql_statements'],
                same_body=base['body_sha1'] == this['body_sha1'])
        rows.append(row)
    return {'rows': rows, 'load_average': load, 'rounds': len(load),
            'reps': reps, 'baseline': BASELINE}


if __name__ == '__main__':
    if sys.argv[1:2] == ['--child']:
        print(json.dumps(measure(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        import argparse
        parser = argparse.ArgumentParser(description=__doc__)
        parser.add_argument('--quick', action='store_true')
        print(json.dumps(run(parser.parse_args())['rows'], indent=1))
