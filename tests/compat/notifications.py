"""Nova's notification samples against what nova_lite sends.

Runs the functional notification scenarios
(``tests.functional.notifications``: every service in this process on a
``fake://`` bus, a real oslo.messaging listener) and compares every
versioned notification they received with Nova's sample of its event
type (:mod:`tests.compat.nova_samples`, samples from the nova sdist of
:data:`tests.compat.upstream.NOVA_VERSION`): payload keys, value types,
object names and versions, priority, the publisher's binary. One result
per scenario and one per event type received.

    python -m tests.compat.notifications [-v]
"""

import argparse
import os
import sys
import unittest

from nova_lite.testing import fixtures as nl_fixtures
from tests.compat import nova_samples
from tests.compat import placement_gabbits
from tests.compat import upstream

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SCENARIOS_DIR = os.path.join(ROOT, 'tests', 'functional', 'notifications')


def run(samples_dir=None, verbose=False):
    """A placement_gabbits.Outcome: the scenarios, then the event types."""
    samples_dir = samples_dir or upstream.nova_notification_samples_dir()
    received = []
    nl_fixtures.NotificationFixture.observer = received.append
    try:
        suite = unittest.defaultTestLoader.discover(
            SCENARIOS_DIR, top_level_dir=ROOT)
        result = unittest.TestResult()
        suite.run(result)
    finally:
        nl_fixtures.NotificationFixture.observer = None
    outcome = placement_gabbits.Outcome()
    for test, trace in result.errors + result.failures:
        outcome.failures.append(('scenario', test.id(),
                                 trace.strip().splitlines()[-1]))
    outcome.passed += result.testsRun - len(result.errors) - len(
        result.failures) - len(result.skipped)
    outcome.skipped += len(result.skipped)
    _compare(samples_dir, received, outcome, verbose)
    return outcome


def _compare(samples_dir, received, outcome, verbose):
    """One result per event type: its first difference found, if any."""
    by_type = {}
    for notification in received:
        by_type.setdefault(notification['event_type'], []).append(
            notification)
    for event_type in sorted(by_type):
        problems = []
        for notification in by_type[event_type]:
            problems.extend(nova_samples.compare_notification(
                samples_dir, notification))
        if problems:
            outcome.failures.append(('sample', event_type,
                                     '; '.join(sorted(set(problems)))))
        else:
            outcome.passed += 1
        if verbose:
            print('%-45s %s' % (event_type,
                                'differs' if problems else 'matches'))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--verbose', '-v', action='store_true')
    args = parser.parse_args(argv)
    outcome = run(verbose=args.verbose)
    for where, name, reason in outcome.failures:
        print('FAIL %s %s: %s' % (where, name, reason))
    print(outcome.summary())
    return 1 if outcome.failed else 0


if __name__ == '__main__':
    sys.exit(main())
