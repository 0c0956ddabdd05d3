"""``tox -e ecosystem``: openstacksdk's and python-openstackclient's own
functional tests against a new Keystone lab.

    python -m tests.ecosystem [--only SELECTION ...] [--filter REGEX ...]
        [--workers N] [--workspace DIR] [--keep-lab]
        [--database mysql|sqlite] [--results FILE] [--plain-cli]

Stacks a Keystone lab (1 cell x 1 compute x 2 fake nodes) in a private
state directory, gives it what a devstack cloud has and the suites expect
(tests/ecosystem/cloud.py: the alt_demo project, the public and private
networks, a clouds.yaml with devstack's cloud names), then runs the
selected upstream test modules (tests/ecosystem/selection.py) from the
installed packages, unmodified, in one ``stestr run`` (``--workers``
processes, whole test classes per worker; python-openstackclient's
``openstack`` commands forked from a process that has the client
imported, tests/ecosystem/cli_server.py). Prints the counts of each
selection, the failures, the known failures by missing feature
(tests/ecosystem/known_failures.py; counted as skipped), the known
failures that passed (to take off the list), then one ``N passed, M
failed, K skipped`` line; exits 1 when a test not on the list failed.
``--results`` writes the counts as JSON (``.ci-results/ecosystem.json``
for tests/run_tests.sh's summary). The lab is unstacked at the end
(``--purge``) unless ``--keep-lab``.
"""

import argparse
import collections
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from tests.ecosystem import cli_server
from tests.ecosystem import cloud
from tests.ecosystem import known_failures
from tests.ecosystem import selection
from tests.integration import lab as lab_mod
from tests.integration import test_services
from tests.tempest import __main__ as tempest_runner

# openstacksdk's functional tox env sets 600 s per test; its waits for a
# server or an image default to 300 s (OPENSTACKSDK_FUNC_TEST_TIMEOUT).
# A lab answers in seconds: a test still waiting after these is stuck.
TEST_ENV = {
    'OS_TEST_TIMEOUT': '300',
    'OPENSTACKSDK_FUNC_TEST_TIMEOUT': '120',
    'OS_STDOUT_CAPTURE': '1', 'OS_STDERR_CAPTURE': '1',
    'OS_LOG_CAPTURE': '1',
}


def stestr_bin():
    return os.path.join(sys.prefix, 'bin', 'stestr')


def test_env(workspace, cli_bin=None):
    """The environment of the test processes: no OS_* variable of the
    caller's (python-openstackclient's tests drop them for their commands
    anyway), clouds.yaml in ``workspace`` (their working directory) and
    this virtualenv's ``openstack`` first on the PATH, after ``cli_bin``
    (tests/ecosystem/cli_server.py's) when given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(TEST_ENV)
    env['OS_CLIENT_CONFIG_FILE'] = os.path.join(workspace, 'clouds.yaml')
    path = [os.path.join(sys.prefix, 'bin'), env.get('PATH', '')]
    env['PATH'] = os.pathsep.join(([cli_bin] if cli_bin else []) + path)
    return env


def run_stestr(workspace, workers, filters, plain_cli=False):
    """One ``stestr run``; its subunit stream and its wall time."""
    started = time.monotonic()
    mode = ['--serial'] if workers <= 1 else ['--concurrency', str(workers)]
    with contextlib.ExitStack() as stack:
        cli_bin = None if plain_cli else stack.enter_context(
            cli_server.forked_cli(workspace))
        subprocess.run([stestr_bin(), 'run', *mode, *filters],
                       cwd=workspace, env=test_env(workspace, cli_bin),
                       check=False)
    seconds = time.monotonic() - started
    stream = subprocess.run([stestr_bin(), 'last', '--subunit'],
                            cwd=workspace, capture_output=True,
                            check=False).stdout
    return stream, seconds


def classify(found):
    """{test id: 'passed' | 'failed' | 'known' | 'skipped'}: a failure on
    the known list is 'known'."""
    return {t: ('known' if o == 'failed' and known_failures.match(t)
                else o) for t, o in found.items()}


def count(outcome_of, regex=None):
    """Counter of the outcomes of the ids ``regex`` finds (all without
    one)."""
    return collections.Counter(
        o for t, o in outcome_of.items()
        if regex is None or re.search(regex, t))


def _line(name, counts):
    return ('%s: %d passed, %d failed, %d known failures, %d skipped'
            % (name, counts['passed'], counts['failed'], counts['known'],
               counts['skipped']))


def report(found, chosen, seconds):
    """The lines of the report and the totals (known failures counted as
    skipped)."""
    outcome_of = classify(found)
    lines = []
    for name, modules in selection.SELECTIONS:
        if chosen is None or name in chosen:
            lines.append(_line(name, count(outcome_of,
                                           selection.regex_of(modules))))
    by_feature = collections.Counter(
        known_failures.match(t)[0] for t, o in outcome_of.items()
        if o == 'known')
    if by_feature:
        lines.append('known failures by missing feature '
                     '(tests/ecosystem/known_failures.py):')
        lines.extend('  %4d  %s' % (n, feature)
                     for feature, n in by_feature.most_common())
    lines.extend('  on the known-failure list but passed (take it off): '
                 + t for t, o in sorted(outcome_of.items())
                 if o == 'passed' and known_failures.match(t))
    lines.extend('  FAILED ' + t for t, o in sorted(outcome_of.items())
                 if o == 'failed')
    lines.append('one stestr run of %d tests in %.0f s' % (len(found),
                                                           seconds))
    totals = count(outcome_of)
    return lines, (totals['passed'], totals['failed'],
                   totals['skipped'] + totals['known'])


def parse_args(argv):
    parser = argparse.ArgumentParser(prog='python -m tests.ecosystem')
    parser.add_argument('--only', action='append', metavar='SELECTION',
                        choices=[name for name, _ in selection.SELECTIONS],
                        help='run this selection only (repeatable)')
    parser.add_argument('--filter', action='append', default=[],
                        help="stestr run's filter regexes (repeatable)")
    parser.add_argument('--workers', type=int, default=2,
                        help='stestr run --concurrency (1: --serial)')
    parser.add_argument('--workspace', help='stestr workspace (default: a '
                        'new temporary directory)')
    parser.add_argument('--results', help='write the counts here (JSON)')
    parser.add_argument('--keep-lab', action='store_true')
    parser.add_argument('--plain-cli', action='store_true',
                        help="run the installed 'openstack' script for "
                        'each command, not a child of the CLI server '
                        '(tests/ecosystem/cli_server.py)')
    parser.add_argument('--database', choices=('mysql', 'sqlite'),
                        default=None, help='default: mysql when MariaDB '
                        'answers on 127.0.0.1:3306')
    return parser.parse_args(argv)


def write_results(path, totals, failures):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w') as f:
        json.dump({'passed': totals[0], 'failed': totals[1],
                   'skipped': totals[2], 'failures': failures}, f)


def prepare(lab, workspace, chosen):
    """The devstack-like lab and the stestr workspace."""
    alt = cloud.ensure_alt_user(lab)
    networks = cloud.make_networks(lab)
    functional = cloud.discover(lab)
    with open(os.path.join(workspace, 'clouds.yaml'), 'w') as f:
        f.write(cloud.clouds_yaml(lab, functional))
    selection.write_workspace(workspace, chosen)
    print('alt_demo project %s, networks %s, %s' % (alt, networks,
                                                    functional), flush=True)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    totals, failures = (0, 1, 0), ['the run did not finish']
    database = args.database or (
        'mysql' if test_services._port_open('127.0.0.1', 3306) else 'sqlite')
    # The test labs' heartbeat interval: stack.sh returns once every
    # compute has sent its first heartbeat.
    lab = lab_mod.Lab(cells=1, computes_per_cell=1, nodes_per_compute=2,
                      database=database, name_prefix='nl_eco',
                      keystone=True,
                      report_interval=lab_mod.TEST_REPORT_INTERVAL)
    print('stacking a Keystone lab (%s) in %s' % (database, lab.state),
          flush=True)
    try:
        lab.stack()
        print('lab up in %.0f s' % lab.stack_seconds, flush=True)
        workspace = args.workspace or tempfile.mkdtemp(prefix='ecosystem-')
        prepare(lab, workspace, args.only)
        stream, seconds = run_stestr(workspace, args.workers, args.filter,
                                     args.plain_cli)
        tracebacks = {}
        found = tempest_runner.outcomes(stream, tracebacks)
        lines, totals = report(found, args.only, seconds)
        failures = sorted(t for t, o in classify(found).items()
                          if o == 'failed')
        if not found:
            totals, failures = (0, 1, 0), ['no test ran']
            lines.append('no test ran: see the stestr output above')
        lines[:0] = tempest_runner.failure_details(failures, tracebacks,
                                                   lab)
        print('\n'.join(lines))
        print('%d passed, %d failed, %d skipped' % totals)
        return 1 if totals[1] else 0
    finally:
        if args.results:
            write_results(args.results, totals, failures)
        if not args.keep_lab:
            lab.destroy()


if __name__ == '__main__':
    sys.exit(main())
