"""Fault suite: ``python -m tests.faults [FAULT ...] [options]``.

Starts a private RabbitMQ node and a private MariaDB (ports from
``--port-base``, data in a temporary directory; for the Galera fault also
a private 3-node Galera cluster behind a proxy, tests/faults/galera.py),
then for each fault a
lab on them (devstack/stack.sh: 1 cell, 1 compute, 5 fake nodes, slow
spawns, short timeouts; a fresh one after a failed fault), a burst of
creates, the fault, its repair and the invariants (faultlab). Prints
a table, writes ``fault-results/<fault>.json`` and
``fault-results/summary.json`` (lab logs of failed faults under
``fault-results/logs/``), and one test result per fault in
``.ci-results/faults.subunit`` (``tests.faults.<fault>``: CI's summary
line counts them). Exit status 1 when a fault failed.

The RabbitMQ and MariaDB binaries (and Galera's provider and rsync when
the Galera fault runs) are installed when missing and this process may
(root with apt-get, ``INSTALL_SERVICES`` not False); without them every
fault is skipped, or fails with NOVA_LITE_REQUIRE_SERVICES=1
(CI).
"""

import argparse
import json
import os
import platform
import shutil
import signal
import sys
import tempfile
import time

from tests.faults import faultlab
from tests.faults import galera
from tests.faults import runner
from tests.faults import scenarios
from tests.faults import services
from tests import suite_results

RESULTS_DIR = 'fault-results'
WALL_LIMIT_S = 15 * 60


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m tests.faults',
        description=__doc__.split('\n\n')[0])
    parser.add_argument('faults', nargs='*',
                        help='faults to run (default: all): %s'
                        % ', '.join(scenarios.BY_NAME))
    parser.add_argument('--burst', type=int, default=30,
                        help='creates in the burst the fault hits')
    parser.add_argument('--new-burst', type=int, default=10,
                        help='creates after the repair (all must go ACTIVE)')
    parser.add_argument('--cells', type=int, default=1)
    parser.add_argument('--nodes', type=int, default=5,
                        help='fake nodes of the compute')
    parser.add_argument('--port-base', type=int, default=int(
        os.environ.get('NOVA_LITE_FAULTS_PORT_BASE', 18800)),
        help='first of the 100 ports the suite may use')
    parser.add_argument('--set', action='append', default=[],
                        metavar='GROUP.OPTION=VALUE',
                        help='an option for every lab process (repeatable)')
    parser.add_argument('--keep', action='store_true',
                        help='keep the labs and the private servers\' data')
    parser.add_argument('--list', action='store_true',
                        help='list the faults and exit')
    args = parser.parse_args(argv)
    for name in args.faults:
        if name not in scenarios.BY_NAME:
            parser.error('unknown fault %r' % name)
    args.options = dict(faultlab.DEFAULT_OPTIONS)
    for item in args.set:
        key, sep, value = item.partition('=')
        if not sep or '.' not in key:
            parser.error('--set wants GROUP.OPTION=VALUE, not %r' % item)
        args.options[key] = value
    return args


def print_table(results, wall):
    cols = ('fault', 'result', 'stuck', 'lost', 'orphans', 'error', 'usage',
            'down_s', 'recovery_s', 'new_burst', 'wall_s')
    rows = []
    for r in results:
        nb = r.get('new_burst') or {}
        rows.append((
            r['fault'], 'PASS' if r['passed'] else 'FAIL',
            r.get('stuck', '-'), r.get('lost', '-'), r.get('orphans', '-'),
            (r.get('servers') or {}).get('ERROR', '-' if 'servers' not in r
                                         else 0),
            ('-' if 'usage_mismatch' not in r else
             'ok' if not r['usage_mismatch'] and not r['wrong_claims']
             else 'WRONG'),
            r.get('down_s', '-'),
            '-' if r.get('recovery_s') is None else r['recovery_s'],
            '%s/%s' % (nb.get('active', '-'), nb.get('sent', '-')),
            r['wall_s']))
    columns = zip(cols, *rows, strict=True)
    widths = [max(len(str(x)) for x in col) for col in columns]
    line = '  '.join('%%-%ds' % w for w in widths)
    print()
    print(line % cols)
    for row in rows:
        print(line % tuple(str(x) for x in row))
    for r in results:
        if r['failures']:
            print('  %s: %s' % (r['fault'], '; '.join(r['failures'])))
    print('wall time %.0fs; %d of %d faults passed'
          % (wall, sum(r['passed'] for r in results), len(results)))


def _reason(result):
    """One fault's numbers (and failures) for its test result."""
    text = ', '.join('%s %s' % (key, result.get(key)) for key in (
        'stuck', 'lost', 'orphans', 'recovery_s', 'wall_s'))
    if result['failures']:
        text += '\nfailures: ' + '; '.join(result['failures'])
    return text


def _ensure_running(rabbit, mysql):
    """A previous fault's repair may have failed: start what is down."""
    if not services.port_open(rabbit.port):
        rabbit.start()
    if isinstance(mysql, galera.GaleraCluster):
        mysql.start()
    elif not services.port_open(mysql.port):
        mysql.stop()
        mysql.start()


def _busy_ports(base, with_galera):
    ports = [base + 10, base + 11, base + 12, base + 20]
    if with_galera:
        ports += galera.GaleraCluster.ports(base)
    return [p for p in ports if services.port_open(p)]


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        for fault in scenarios.FAULTS:
            print('%-22s %s' % (fault.name, fault.description))
        return 0
    faults = ([scenarios.BY_NAME[n] for n in args.faults] or
              scenarios.FAULTS)
    report = suite_results.Results('faults')
    with_galera = any(f.database == 'galera' for f in faults)
    missing = services.ensure_binaries(galera=with_galera)
    if missing:
        required = os.environ.get('NOVA_LITE_REQUIRE_SERVICES') == '1'
        reason = ('this machine has no %s (install rabbitmq-server and '
                  'mariadb-server%s)' % (missing, ', galera-4 and rsync'
                                         if with_galera else ''))
        print('%s fault suite: %s' % ('FAIL' if required else 'SKIP',
                                       reason))
        for fault in faults:
            report.add(fault.name, 'fail' if required else 'skip', reason)
        report.write()
        return 1 if required else 0
    busy = _busy_ports(args.port_base, with_galera)
    if busy:
        reason = ('ports %s of the suite\'s range are in use (set '
                  'NOVA_LITE_FAULTS_PORT_BASE)' % busy)
        print('FAIL fault suite: %s' % reason)
        for fault in faults:
            report.add(fault.name, 'fail', reason)
        report.write()
        return 1
    os.makedirs(RESULTS_DIR, exist_ok=True)
    root = tempfile.mkdtemp(prefix='nova-lite-faults-')
    rabbit = services.PrivateRabbit(root, args.port_base + 10)
    mysql = services.PrivateMariaDB(root, args.port_base + 20)
    databases = {'mariadb': mysql}
    if with_galera:
        databases['galera'] = galera.GaleraCluster(root, args.port_base)
    shim = rabbit.write_ctl_shim(os.path.join(root, 'bin'))
    # SIGTERM (CI's timeout) tears down like ^C.
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    started = time.monotonic()
    results = []
    lab = None
    try:
        runner._say('private RabbitMQ on %d, MariaDB on %d (%s)'
                    % (rabbit.port, mysql.port, root))
        rabbit.start()
        mysql.start()
        for index, fault in enumerate(faults):
            database = databases[fault.database]
            if lab is not None and lab.database_server is not database:
                # A fault on the other database server: a lab of its own.
                runner.destroy(lab)
                lab = None
            if fault.database == 'galera' and not database.nodes[0].proc:
                runner._say('3-node Galera cluster on %s, proxy on %d'
                            % ([n.port for n in database.nodes],
                               database.port))
            try:
                _ensure_running(rabbit, database)
            except services.ServiceError as e:
                if fault.database != 'galera':
                    raise
                # The Galera cluster did not form: this fault fails, the
                # others still run.
                runner._say('%s: FAIL: %s' % (fault.name, e))
                results.append({'fault': fault.name, 'passed': False,
                                'failures': [str(e)], 'wall_s': 0})
                report.check(fault.name, False, str(e))
                continue
            if lab is None:
                lab = faultlab.FaultLab(
                    rabbit, database, shim, args.port_base + 40 + 2 * index,
                    args.options, cells=args.cells, nodes=args.nodes)
            result, lab = runner.run_fault(fault, rabbit, database, lab,
                                           args, RESULTS_DIR)
            results.append(result)
            report.check(fault.name, result['passed'], _reason(result))
            with open(os.path.join(RESULTS_DIR, fault.name + '.json'),
                      'w') as f:
                json.dump(result, f, indent=2, default=str)
    finally:
        for fault in faults[len(results):]:
            report.add(fault.name, 'fail', 'not run: the suite stopped '
                       'before it (see its output)')
        report.write()
        if lab is not None and not args.keep:
            runner.destroy(lab)
        wall = time.monotonic() - started
        rabbit.destroy()
        for database in databases.values():
            database.destroy()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    summary = {
        'wall_s': round(wall, 1), 'options': args.options,
        'burst': args.burst, 'new_burst': args.new_burst,
        'cells': args.cells, 'nodes': args.nodes,
        'machine': {'cpus': os.cpu_count(),
                    'python': platform.python_version()},
        'faults': {r['fault']: {k: r.get(k) for k in (
            'passed', 'stuck', 'lost', 'orphans', 'servers',
            'error_with_guest', 'down_s', 'recovery_s', 'retries',
            'failures', 'wall_s')} for r in results},
    }
    with open(os.path.join(RESULTS_DIR, 'summary.json'), 'w') as f:
        json.dump(summary, f, indent=2, default=str)
    print_table(results, wall)
    if not args.faults:
        # The whole suite in under 15 minutes: CI runs it every time.
        report.check('wall_time', wall < WALL_LIMIT_S,
                     'every fault in %.0fs (limit %ds)' % (wall,
                                                           WALL_LIMIT_S))
        report.write()
    return 0 if all(status == 'success' for _, status, _ in report.items) \
        else 1


if __name__ == '__main__':
    sys.exit(main())
