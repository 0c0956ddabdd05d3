"""Run osc-placement's functional tests, unchanged, against a live Placement.

    python -m tests.compat.osc_placement URL [-k PATTERN] [--verbose]

osc-placement's ``BaseTestCase.setUp`` takes
``placement.tests.functional.fixtures.placement.PlacementFixture()`` (from
the installed ``openstack-placement``, as osc-placement's own functional
env does) and drives the ``openstack`` shell with ``--os-endpoint
fixture.endpoint --os-token fixture.token``. That module attribute is the
one hook: :func:`run` points it at :class:`LivePlacementFixture`, which
hands out ``URL`` and the noauth2 ``admin`` token and wipes the service
before each test (upstream's fixture gives each test a fresh database).
The service must use ``auth_strategy = noauth2`` and the legacy policy
rules, and hold no data (``--allow-wipe`` to delete what it holds).

Prints ``N passed, M failed, K skipped`` and one line per failure; exits 1
when a test failed.
"""

import argparse
import importlib.metadata
import os
import re
import shutil
import sys
import unittest

import fixtures

from tests.compat import client as client_mod
from tests.compat import placement_gabbits
from tests.compat import upstream


class LivePlacementFixture(fixtures.Fixture):
    """Upstream's PlacementFixture interface (``endpoint``, ``token``) for
    a running service; ``endpoint`` is set by :func:`bind`."""

    endpoint = None

    def __init__(self, token='admin', **_ignored):
        super().__init__()
        self.token = token

    def _setUp(self):
        client_mod.PlacementClient(self.endpoint, self.token).wipe()


def bind(url):
    return type('LivePlacementFixture', (LivePlacementFixture,),
                {'endpoint': url.rstrip('/')})


_EXC_LINE = re.compile(r'^[\w.]*(Error|Exception|Failure|Mismatch)\b')
# The command line osc-placement's CommandException carries: long, and the
# same for every test but its arguments.
_COMMAND = re.compile(r'Command: "--os-endpoint [^"]*?--os-auth-type '
                      r'admin_token ([^"]*)"(\\n|\s)*')


def _reason(text):
    """The exception line of a traceback, with the line after it when
    that says more (osc-placement's CommandException puts the command on
    the first line and the client's output on the second)."""
    lines = [line.strip() for line in text.strip().splitlines()
             if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if _EXC_LINE.match(lines[i]):
            reason = lines[i]
            if i + 1 < len(lines):
                reason += ' | ' + lines[i + 1]
            return _COMMAND.sub(r'`\1` ', reason)[:400]
    return lines[-1][:400] if lines else ''


def load_tests(pattern=None):
    import osc_placement.tests.functional as functional
    start = os.path.dirname(functional.__file__)
    top = os.path.dirname(os.path.dirname(os.path.dirname(start)))
    suite = unittest.defaultTestLoader.discover(start, 'test_*.py', top)
    tests = list(_flatten(suite))
    if pattern:
        tests = [t for t in tests if re.search(pattern, t.id())]
    return tests


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


class _Result(unittest.TestResult):
    def __init__(self, verbose):
        super().__init__()
        self.verbose = verbose

    def stopTest(self, test):
        super().stopTest(test)
        if self.verbose:
            print('.', end='', flush=True)


def run(url, pattern=None, verbose=False):
    """Run the tests against ``url``; a placement_gabbits.Outcome."""
    from placement.tests.functional.fixtures import placement as fixture_mod
    version = importlib.metadata.version('osc-placement')
    if version != upstream.OSC_PLACEMENT_VERSION:
        print('warning: osc-placement %s installed, the results in '
              'doc/placement-compat.md are for %s'
              % (version, upstream.OSC_PLACEMENT_VERSION), file=sys.stderr)
    # The openstack shell logs every request; keep it in the tests' log
    # capture (oslotest's), not on the terminal.
    os.environ.setdefault('OS_LOG_CAPTURE', '1')
    # test_plugin runs `openstack --help` from the PATH: the one next to
    # this interpreter when the virtualenv is not activated.
    bin_dir = os.path.dirname(sys.executable)
    if not shutil.which('openstack') and os.path.exists(
            os.path.join(bin_dir, 'openstack')):
        os.environ['PATH'] = bin_dir + os.pathsep + os.environ['PATH']
    original = fixture_mod.PlacementFixture
    fixture_mod.PlacementFixture = bind(url)
    try:
        tests = load_tests(pattern)
        result = _Result(verbose)
        unittest.TestSuite(tests).run(result)
    finally:
        fixture_mod.PlacementFixture = original
        placement_gabbits.wipe_after(client_mod.PlacementClient(url))
    if verbose:
        print()
    outcome = placement_gabbits.Outcome()
    failed = dict(result.errors + result.failures)
    skipped = dict(result.skipped)
    for test in tests:
        name = test.id().replace('osc_placement.tests.functional.', '')
        module, _sep, short = name.partition('.')
        if test in failed:
            outcome.failures.append((module, short, _reason(failed[test])))
        elif test in skipped:
            outcome.skipped += 1
        else:
            outcome.passed += 1
    return outcome


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('url', help='the Placement endpoint')
    parser.add_argument('-k', dest='pattern',
                        help='only tests whose id matches this regex')
    parser.add_argument('--verbose', '-v', action='store_true')
    parser.add_argument('--allow-wipe', action='store_true',
                        help='run even if the service holds data (it is '
                        'all deleted)')
    args = parser.parse_args(argv)
    placement_gabbits.refuse_unless_empty(args.url, args.allow_wipe)
    outcome = run(args.url, args.pattern, args.verbose)
    total = placement_gabbits.print_report({'osc': outcome},
                                           'osc-placement functional')
    print(total.summary())
    return 1 if total.failed else 0


if __name__ == '__main__':
    sys.exit(main())
