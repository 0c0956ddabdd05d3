"""``tox -e tempest``: Tempest 47's compute API tests against a new lab.

    python -m tests.tempest [--regex R] [--no-smoke] [--neutron]
        [--workspace DIR] [--keep-lab] [--database mysql|sqlite]

Stacks a Keystone lab (1 cell x 2 computes x 2 fake nodes) in a private
state directory, writes ``tempest.conf`` from it (tests/tempest/conf.py),
then runs ``tempest run --regex '^tempest\\.api\\.compute' --serial`` and
``tempest run --smoke --serial`` in a Tempest workspace. Prints the counts
of each run, the failures, and one ``N passed, M failed, K skipped`` line;
exits 1 when a test failed. The lab is unstacked at the end (``--purge``)
unless ``--keep-lab``.
"""

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time

import subunit
import testtools

from tests.integration import lab as lab_mod
from tests.integration import test_services
from tests.tempest import conf as tempest_conf

COMPUTE_REGEX = r'^tempest\.api\.compute'


def tempest_bin():
    return os.path.join(sys.prefix, 'bin', 'tempest')


def run_tempest(workspace, args):
    """One ``tempest run``; its subunit stream's counts and failures."""
    started = time.monotonic()
    config = os.path.join(workspace, 'etc', 'tempest.conf')
    subprocess.run([tempest_bin(), 'run', '--serial', '--config-file',
                    config, *args],
                   cwd=workspace, check=False)
    seconds = time.monotonic() - started
    stream = subprocess.run(
        [os.path.join(sys.prefix, 'bin', 'stestr'), 'last', '--subunit'],
        cwd=workspace, capture_output=True, check=False).stdout
    return summarize(stream) + (seconds,)


def summarize(stream):
    """(passed, failed ids, skipped) of a subunit v2 byte stream; class
    set-up failures count as failed tests, as stestr reports them."""
    result = testtools.StreamSummary()
    result.startTestRun()
    subunit.ByteStreamToStreamResult(
        io.BytesIO(stream), non_subunit_name='stdout').run(result)
    result.stopTestRun()
    failed = [test.id() for test, _ in result.errors + result.failures]
    skipped = len(result.skipped)
    return result.testsRun - len(failed) - skipped, failed, skipped


def parse_args(argv):
    parser = argparse.ArgumentParser(prog='python -m tests.tempest')
    parser.add_argument('--regex', default=COMPUTE_REGEX)
    parser.add_argument('--no-smoke', action='store_true',
                        help='skip the --smoke run')
    parser.add_argument('--neutron', action='store_true',
                        help='mark networking available (the tests Tempest '
                        'skips without it; issue 15)')
    parser.add_argument('--workspace', help='Tempest workspace (default: '
                        'a new temporary directory)')
    parser.add_argument('--keep-lab', action='store_true')
    parser.add_argument('--database', choices=('mysql', 'sqlite'),
                        default=None, help='default: mysql when MariaDB '
                        'answers on 127.0.0.1:3306')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    database = args.database or (
        'mysql' if test_services._port_open('127.0.0.1', 3306) else 'sqlite')
    # One cell with two compute hosts: Tempest's move tests pick "another
    # host" from the host list, and Nova moves servers within a cell only.
    lab = lab_mod.Lab(cells=1, computes_per_cell=2, nodes_per_compute=2,
                      database=database, name_prefix='nl_tempest',
                      keystone=True)
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
        runs = [('regex %s' % args.regex, ['--regex', args.regex])]
        if not args.no_smoke:
            runs.append(('smoke', ['--smoke']))
        totals = [0, 0, 0]
        report = []
        for name, run_args in runs:
            passed, failed, skipped, seconds = run_tempest(workspace,
                                                           run_args)
            report.append('%s: %d passed, %d failed, %d skipped in %.0f s'
                          % (name, passed, len(failed), skipped, seconds))
            report.extend('  FAILED ' + test_id for test_id in failed)
            totals[0] += passed
            totals[1] += len(failed)
            totals[2] += skipped
        print('\n'.join(report))
        print('%d passed, %d failed, %d skipped' % tuple(totals))
        return 1 if totals[1] else 0
    finally:
        if not args.keep_lab:
            lab.destroy()


if __name__ == '__main__':
    sys.exit(main())
