"""Big fuzz run: ``python -m tests.fuzz [--requests N] [--races N]``.

Stacks a lab (1 cell, 1 compute) on a private RabbitMQ node and MariaDB
(tests/faults/services.py; ports from ``--port-base`` + 60), sends N
generated requests split over both APIs (tests/fuzz/strategies.py),
runs schemathesis from the four OpenAPI documents the lab serves
(tests/fuzz/openapi_run.py), then runs create-then-delete races
against an unschedulable flavor. Counts: 500s, tracebacks in answers,
tracebacks in the lab's service logs, ghost servers (listed, or counted
in quota, after their delete), and what schemathesis found. Writes
``fuzz-results/summary.json``; exit status 1 unless all are 0.
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

from tests.faults import faultlab
from tests.faults import services
from tests.fuzz import openapi_run
from tests.fuzz import run
from tests.fuzz import strategies
from tests.integration import lab as lab_mod
from tests import suite_results

RESULTS_DIR = 'fuzz-results'
UNSCHEDULABLE = {'flavor': {'name': 'fuzz-huge', 'id': 'fuzz-huge',
                            'ram': 10 ** 6, 'vcpus': 1, 'disk': 1}}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.fuzz',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('--requests', type=int, default=20000)
    parser.add_argument('--races', type=int, default=40)
    parser.add_argument('--workers', type=int, default=4,
                        help='client threads sending the requests')
    parser.add_argument('--seed', type=int, default=None,
                        help='hypothesis seed (default: derandomized)')
    parser.add_argument('--openapi-examples', type=int, default=6,
                        help='schemathesis examples per operation (0: '
                             'no OpenAPI phase)')
    parser.add_argument('--port-base', type=int, default=int(
        os.environ.get('NOVA_LITE_FAULTS_PORT_BASE', 18800)))
    return parser.parse_args(argv)


TRACEBACK = 'Traceback (most recent call last)'


def log_tracebacks(lab, keep=3):
    """({log file: traceback count}, the first ``keep`` of each with the
    line before them) of the lab's services."""
    found, excerpts = {}, {}
    for name, path in lab_mod.log_files(os.path.join(lab.state, 'logs')):
        with open(path, errors='replace') as f:
            lines = f.read().splitlines()
        starts = [i for i, line in enumerate(lines) if TRACEBACK in line]
        if starts:
            found[name] = len(starts)
            excerpts[name] = ['\n'.join(lines[max(i - 1, 0):i + 12])
                              for i in starts[:keep]]
    return found, excerpts


def ghost_races(lab, races):
    """Create then delete (10-50 ms later) servers of an unschedulable
    flavor; the deleted servers still listed or counted in quota."""
    faultlab.compute_call(lab, 'POST', '/flavors', UNSCHEDULABLE)
    # No quota in the way: a ghost's usage shows in in_use all the same.
    faultlab.compute_call(
        lab, 'PUT', '/os-quota-sets/' + faultlab.lab_mod.MEMBER_PROJECT,
        {'quota_set': {'instances': -1, 'cores': -1, 'ram': -1}})
    rng = random.Random(16)
    ids, statuses, refusals = [], {}, []
    for i in range(races):
        body = faultlab.create_body('race-%02d' % i)
        body['server']['flavorRef'] = 'fuzz-huge'
        status, _, reply = faultlab.compute_call(lab, 'POST', '/servers',
                                                 body, admin=False)
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if status != 202:
            if len(refusals) < 3:
                refusals.append(reply)
            continue
        sid = reply['server']['id']
        ids.append(sid)
        time.sleep(rng.uniform(0.01, 0.05))
        faultlab.compute_call(lab, 'DELETE', '/servers/' + sid, admin=False)
    time.sleep(15)
    listed = faultlab.list_servers(lab) or {}
    ghosts = sorted(set(ids) & set(listed))
    _, _, quota = faultlab.compute_call(
        lab, 'GET', '/os-quota-sets/%s/detail' % faultlab.lab_mod.
        MEMBER_PROJECT)
    in_use = quota['quota_set']['instances']['in_use'] if quota else None
    return {'created': len(ids), 'post_statuses': statuses,
            'refusals': refusals, 'ghosts': len(ghosts), 'ghost_ids': ghosts,
            'ghost_details': {sid: ghost_details(lab, sid, listed[sid])
                              for sid in ghosts[:3]},
            'instances_in_use_after': in_use}


def ghost_details(lab, sid, listed):
    """What a ghost looks like: as listed, its GET, and every line of
    the lab's logs that names it (to tell which race left it)."""
    status, _, reply = faultlab.compute_call(lab, 'GET', '/servers/' + sid)
    lines = []
    for name, path in lab_mod.log_files(os.path.join(lab.state, 'logs')):
        with open(path, errors='replace') as f:
            lines.extend('%s: %s' % (name, line.rstrip()[:300])
                         for line in f if sid in line)
    return {'listed': listed, 'get_status': status, 'get': reply,
            'log_lines': lines[:60]}


def main(argv=None):
    args = parse_args(argv)
    report = suite_results.Results('fuzz')
    missing = services.ensure_binaries()
    if missing:
        required = os.environ.get('NOVA_LITE_REQUIRE_SERVICES') == '1'
        print('%s fuzz run: this machine has no %s'
              % ('FAIL' if required else 'SKIP', missing))
        report.add('run', 'fail' if required else 'skip',
                   'no %s' % missing)
        report.write()
        return 1 if required else 0
    base = args.port_base + 60
    root = tempfile.mkdtemp(prefix='nova-lite-fuzz-')
    rabbit = services.PrivateRabbit(root, base)
    mysql = services.PrivateMariaDB(root, base + 10)
    shim = rabbit.write_ctl_shim(os.path.join(root, 'bin'))
    lab = None
    started = time.monotonic()
    try:
        rabbit.start()
        mysql.start()
        lab = faultlab.FaultLab(rabbit, mysql, shim, base + 20,
                                {'fake_driver.spawn_delay': '0'},
                                name_prefix='nl_fuzz')
        lab.stack()
        send = run.OverHTTP({'compute': lab.api,
                             'placement': lab.placement})
        tally = run.Tally()
        half = args.requests // 2
        for api, count in (('compute', half),
                           ('placement', args.requests - half)):
            run.fuzz(send, strategies.catalog(api), count, seed=args.seed,
                     tally=tally, workers=args.workers)
        openapi = {}
        if args.openapi_examples:
            openapi = openapi_run.run(
                lab, os.path.join(RESULTS_DIR, 'openapi'),
                args.openapi_examples, seed=args.seed)
        # The fuzz may have reset quotas: the races need room.
        lab.set_member_quota()
        races = ghost_races(lab, args.races)
        counts, excerpts = log_tracebacks(lab)
        result = dict(tally.as_dict(), races=races, log_tracebacks=counts,
                      log_traceback_excerpts=excerpts, openapi=openapi)
    except BaseException as exc:
        report.add('run', 'fail', 'the run stopped: %r' % exc)
        report.write()
        raise
    finally:
        if lab is not None:
            lab.destroy()
        rabbit.destroy()
        mysql.destroy()
        shutil.rmtree(root, ignore_errors=True)
    result['wall_s'] = round(time.monotonic() - started, 1)
    os.makedirs(RESULTS_DIR, exist_ok=True)
    with open(os.path.join(RESULTS_DIR, 'summary.json'), 'w') as f:
        json.dump(result, f, indent=2, default=str)
    print('sent %d: %d x 500, %d tracebacks in answers, log tracebacks %s; '
          '%d races, %d ghosts, instances in use %s; %.0fs'
          % (result['sent'], result['server_errors'],
             result['tracebacks_in_answers'], result['log_tracebacks'],
             races['created'], races['ghosts'],
             races['instances_in_use_after'], result['wall_s']))
    for name, found in sorted(openapi.items()):
        print('schemathesis %s: %d operations, %d x 5xx, %d answers off '
              'the document, %d valid requests refused (%d expected), '
              '%d errors; %.0fs' % (
                  name, found['operations'], len(found['server_errors']),
                  len(found['response_mismatches']),
                  len(found['refused_valid']), found['expected_refusals'],
                  len(found['errors']), found['wall_s']))
    check_counts(report, args, result)
    openapi_run.check(report, openapi)
    report.write()
    return 0 if report.counts['fail'] == 0 else 1


def check_counts(report, args, result):
    """The counts the fuzz run must meet, one test result each."""
    races = result['races']
    report.check('requests_sent', result['sent'] >= args.requests,
                 '%d of %d sent' % (result['sent'], args.requests))
    report.check('no_server_errors', not result['server_errors'],
                 '%d x 5xx or no answer: %s' % (result['server_errors'],
                                                result['examples'][:5]))
    report.check('no_tracebacks_in_answers',
                 not result['tracebacks_in_answers'],
                 '%s' % result['traceback_examples'][:5])
    report.check('no_tracebacks_in_service_logs',
                 not result['log_tracebacks'],
                 '%s\n%s' % (result['log_tracebacks'],
                             json.dumps(result['log_traceback_excerpts'],
                                        indent=1)[:4000]))
    report.check('no_ghosts_after_delete_races',
                 races['created'] == args.races and not races['ghosts'] and
                 races['instances_in_use_after'] == 0,
                 '%d races, %d ghosts, instances in use %s: %s' % (
                     races['created'], races['ghosts'],
                     races['instances_in_use_after'],
                     json.dumps(races.get('ghost_details'))[:4000]))


if __name__ == '__main__':
    sys.exit(main())
