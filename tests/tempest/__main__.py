"""``tox -e tempest``: Tempest 47's compute API tests against a new lab.

    python -m tests.tempest [--regex R] [--no-smoke] [--no-neutron]
        [--workers N] [--workspace DIR] [--keep-lab]
        [--database mysql|sqlite] [--results FILE]

Stacks a Keystone lab (1 cell x 2 computes x 2 fake nodes) in a private
state directory, writes ``tempest.conf`` from it (tests/tempest/conf.py),
then runs, in one ``tempest run`` (``--concurrency`` 3 by default, Tempest
partitions by test class; ``--workers 1`` is ``--serial``), the tests of
``^tempest\\.api\\.compute`` and Tempest's smoke tests (``--smoke``'s
selection, ``[...smoke...]`` in the id): a smoke test in the compute regex
runs once. Prints the counts of the compute selection and of the smoke
selection, each honestly over its own tests, the failures, then one
``N passed, M failed, K skipped`` line over every test that ran; exits 1
when a test failed. A failure of a test on doc/tempest.md's exception list
(tests/tempest/exceptions.py: tests that need a real network service) is
reported by name and counted as skipped. ``--results`` writes those
counts as JSON (``.ci-results/tempest.json`` for tests/run_tests.sh's
summary). The lab is unstacked at the end (``--purge``) unless
``--keep-lab``.
"""

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import subunit
import testtools

from tests.integration import lab as lab_mod
from tests.integration import test_services
from tests.tempest import conf as tempest_conf
from tests.tempest import exceptions

COMPUTE_REGEX = r'^tempest\.api\.compute'
# What ``tempest run --smoke`` selects: the ``smoke`` attribute in the id.
SMOKE_REGEX = r'\[.*\bsmoke\b'
# A server id in a traceback (the lab log lines about it say why).
UUID = re.compile(
    r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')


def tempest_bin():
    return os.path.join(sys.prefix, 'bin', 'tempest')


def run_tempest(workspace, args, workers):
    """One ``tempest run``; its subunit stream and its wall time."""
    started = time.monotonic()
    config = os.path.join(workspace, 'etc', 'tempest.conf')
    mode = ['--serial'] if workers <= 1 else [
        '--concurrency', str(workers)]
    subprocess.run([tempest_bin(), 'run', *mode, '--config-file', config,
                    *args], cwd=workspace, check=False)
    seconds = time.monotonic() - started
    stream = subprocess.run(
        [os.path.join(sys.prefix, 'bin', 'stestr'), 'last', '--subunit'],
        cwd=workspace, capture_output=True, check=False).stdout
    return stream, seconds


# subunit's final statuses and what the report counts them as.
_OUTCOMES = {'success': 'passed', 'xfail': 'passed', 'skip': 'skipped',
             'fail': 'failed', 'uxsuccess': 'failed'}


def outcomes(stream, tracebacks=None):
    """{test id: 'passed' | 'failed' | 'skipped'} of a subunit v2 byte
    stream; a class set-up failure (``setUpClass (<class>)``) is a failed
    test, as stestr reports it. ``tracebacks``, a dict, gains each test's
    ``traceback`` attachment (text)."""
    found = {}

    class Collect(testtools.StreamResult):
        def status(self, test_id=None, test_status=None, file_name=None,
                   file_bytes=None, **_kwargs):
            if test_id and test_status in _OUTCOMES:
                found[test_id] = _OUTCOMES[test_status]
            if (tracebacks is not None and test_id and file_bytes
                    and file_name == 'traceback'):
                # subunit hands a memoryview of the packet
                tracebacks[test_id] = tracebacks.get(test_id, '') + (
                    bytes(file_bytes).decode('utf-8', 'replace'))

    collector = Collect()
    collector.startTestRun()
    subunit.ByteStreamToStreamResult(
        io.BytesIO(stream), non_subunit_name='stdout').run(collector)
    collector.stopTestRun()
    return found


def listed_classes(workspace, regex):
    """The test classes with a test ``regex`` selects (``tempest run
    --list-tests``): a class fixture's outcome (``setUpClass (<class>)``,
    the skip of a whole class) belongs to a selection through them."""
    listing = subprocess.run(
        [tempest_bin(), 'run', '--list-tests', '--regex', regex,
         '--config-file', os.path.join(workspace, 'etc', 'tempest.conf')],
        cwd=workspace, capture_output=True, text=True, check=False).stdout
    return {line.split('[', 1)[0].rsplit('.', 1)[0]
            for line in listing.split() if line.startswith('tempest.')}


def summarize(found, regex=None, classes=()):
    """(passed, failed ids, skipped) of the tests whose id matches
    ``regex`` (all without one), with the class fixtures of
    ``classes``."""
    chosen = {t: o for t, o in found.items()
              if regex is None or re.search(regex, _matchable(t))
              or _fixture_class(t) in classes}
    failed = sorted(t for t, o in chosen.items() if o == 'failed')
    skipped = sum(1 for o in chosen.values() if o == 'skipped')
    return len(chosen) - len(failed) - skipped, failed, skipped


def _fixture_class(test_id):
    """The class of a class fixture's id (``setUpClass
    (tempest.api.compute....Test)``), None for a test's id."""
    fixture = re.match(r'^\w+ \((.+)\)$', test_id)
    return fixture.group(1) if fixture else None


def _matchable(test_id):
    """The id a selection regex sees: a class fixture's as its class."""
    return _fixture_class(test_id) or test_id


def selection(regex, smoke):
    """The ``--regex`` of the one run: the compute tests, and the smoke
    tests as well unless ``smoke`` is off."""
    return '(%s)|(%s)' % (regex, SMOKE_REGEX) if smoke else regex


def report(found, regex, smoke, seconds, smoke_classes=()):
    """The lines of the report and the totals over every test."""
    lines = []
    parts = [('regex %s' % regex, regex, ())]
    if smoke:
        parts.append(('smoke (tempest run --smoke\'s tests)', SMOKE_REGEX,
                      smoke_classes))
    for name, part, classes in parts:
        passed, failed, skipped = summarize(found, part, classes)
        lines.append('%s: %d passed, %d failed, %d skipped'
                     % (name, passed, len(failed), skipped))
        lines.extend('  FAILED ' + test_id for test_id in failed)
    passed, failed, skipped = summarize(found)
    known = [t for t in failed if exceptions.reason(t)]
    lines.extend('  known failure (doc/tempest.md exception list): %s: %s'
                 % (t, exceptions.reason(t)) for t in known)
    lines.extend('  on the exception list but passed (take it off): ' + t
                 for t, outcome in sorted(found.items())
                 if outcome == 'passed' and exceptions.reason(t))
    shown = {t for _name, part, classes in parts
             for t in summarize(found, part, classes)[1]}
    lines.extend('  FAILED (outside both selections: a class fixture) '
                 + test_id for test_id in failed if test_id not in shown)
    lines.append('one tempest run of %d tests in %.0f s (a smoke test of '
                 'the compute regex runs once)' % (len(found), seconds))
    if known:
        lines.append('the %d known failures count as skipped below'
                     % len(known))
    return lines, (passed, len(failed) - len(known), skipped + len(known))


def failure_details(failed, tracebacks, lab, tail=25, errors=40,
                    mentions=30):
    """Lines that say why: the end of each failed test's traceback, the
    lab logs' WARNING and ERROR lines about the servers those tracebacks
    name (a failed move or unshelve is a WARNING of the conductor), then
    the last ERROR lines of the lab's logs (the lab is purged after the
    run, and CI keeps only the end of its log)."""
    lines = []
    named = set()
    for test_id in failed:
        lines.append('--- why %s failed (end of its traceback):' % test_id)
        text = tracebacks.get(test_id, '(no traceback)')
        named.update(UUID.findall(text))
        lines.extend(text.rstrip().splitlines()[-tail:])
    found, about = [], []
    for name, path in lab_mod.log_files(os.path.join(lab.state, 'logs')):
        with open(path, errors='replace') as f:
            for line in f:
                if ' ERROR ' in line:
                    found.append('%s: %s' % (name, line.rstrip()[:300]))
                if (' WARNING ' in line or ' ERROR ' in line) and any(
                        uuid in line for uuid in named):
                    about.append('%s: %s' % (name, line.rstrip()[:300]))
    if failed:
        if named:
            lines.append('--- the lab logs\' WARNING and ERROR lines about '
                         'the servers named above (last %d of %d):'
                         % (min(mentions, len(about)), len(about)))
            lines.extend(about[-mentions:])
        lines.append('--- the lab logs\' last %d ERROR lines (of %d):'
                     % (min(errors, len(found)), len(found)))
        lines.extend(found[-errors:])
    return lines


def parse_args(argv):
    parser = argparse.ArgumentParser(prog='python -m tests.tempest')
    parser.add_argument('--regex', default=COMPUTE_REGEX)
    parser.add_argument('--no-smoke', action='store_true',
                        help='skip the --smoke run')
    parser.add_argument('--no-neutron', dest='neutron',
                        action='store_false',
                        help='leave the network service out of '
                        'tempest.conf (servers on no network)')
    parser.add_argument('--neutron', dest='neutron', action='store_true',
                        help='the default: networking available, as Nova '
                        'always has it')
    parser.set_defaults(neutron=True)
    parser.add_argument('--workspace', help='Tempest workspace (default: '
                        'a new temporary directory)')
    parser.add_argument('--workers', type=int, default=3,
                        help='tempest run --concurrency (1: --serial)')
    parser.add_argument('--results', help='write the counts here (JSON)')
    parser.add_argument('--keep-lab', action='store_true')
    parser.add_argument('--database', choices=('mysql', 'sqlite'),
                        default=None, help='default: mysql when MariaDB '
                        'answers on 127.0.0.1:3306')
    return parser.parse_args(argv)


def write_results(path, totals):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w') as f:
        json.dump({'passed': totals[0], 'failed': totals[1],
                   'skipped': totals[2]}, f)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    totals = (0, 1, 0)
    database = args.database or (
        'mysql' if test_services._port_open('127.0.0.1', 3306) else 'sqlite')
    # One cell with two compute hosts: Tempest's move tests pick "another
    # host" from the host list, and Nova moves servers within a cell only.
    # The test labs' heartbeat interval: stack.sh returns once every
    # compute has sent its first heartbeat.
    lab = lab_mod.Lab(cells=1, computes_per_cell=2, nodes_per_compute=2,
                      database=database, name_prefix='nl_tempest',
                      keystone=True,
                      report_interval=lab_mod.TEST_REPORT_INTERVAL)
    print('stacking a Keystone lab (%s) in %s' % (database, lab.state),
          flush=True)
    try:
        lab.stack()
        print('lab up in %.0f s' % lab.stack_seconds, flush=True)
        workspace = args.workspace or tempfile.mkdtemp(prefix='tempest-')
        if not os.path.exists(os.path.join(workspace, '.stestr.conf')):
            subprocess.run([tempest_bin(), 'init', workspace], check=True)
        facts = tempest_conf.discover(lab)
        networks = tempest_conf.make_networks(lab) if args.neutron else None
        path = os.path.join(workspace, 'etc', 'tempest.conf')
        with open(path, 'w') as f:
            f.write(tempest_conf.build(
                lab, facts, os.path.join(workspace, 'logs'),
                neutron=networks))
        print('wrote %s (%s)' % (path, facts), flush=True)
        stream, seconds = run_tempest(
            workspace, ['--regex', selection(args.regex, not args.no_smoke)],
            args.workers)
        tracebacks = {}
        found = outcomes(stream, tracebacks)
        smoke_classes = () if args.no_smoke else listed_classes(
            workspace, SMOKE_REGEX)
        lines, totals = report(found, args.regex, not args.no_smoke,
                               seconds, smoke_classes)
        if not found:
            totals = (0, 1, 0)
            lines.append('no test ran: see the tempest output above')
        unexpected = sorted(t for t, o in found.items()
                            if o == 'failed' and not exceptions.reason(t))
        lines[:0] = failure_details(unexpected, tracebacks, lab)
        print('\n'.join(lines))
        print('%d passed, %d failed, %d skipped' % totals)
        return 1 if totals[1] else 0
    finally:
        if args.results:
            write_results(args.results, totals)
        if not args.keep_lab:
            lab.destroy()


if __name__ == '__main__':
    sys.exit(main())
