"""Compare a Placement with Placement 16 on generated request sequences.

    python -m tests.compat.differential --reference URL --target URL
        [--seed S] [--requests N] [--candidate-queries M]
    python -m tests.compat.differential --start [--reference-port P]
        [--target-port P] [--placement-venv DIR] ...

With ``--reference`` and ``--target`` both services must run noauth2 with
Placement's legacy policy rules; **both are wiped** before every sequence.
With ``--start`` it starts real Placement (from this environment or
``--placement-venv``) and ``nova-lite-placement``, each on SQLite in a
temporary directory, and stops them afterwards.

Prints each difference (the request, what differs, both responses,
trimmed), the differences grouped by class, and a last line
``N requests, D differences``; exits 1 when there is a difference.
"""

import argparse
import os
import sys
import tempfile
import time

from tests.compat import reference as placement16
from tests.compat.differential import runner
from tests.compat.differential import servers


def parser():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--reference', help='URL of the reference Placement')
    p.add_argument('--target', help='URL of the Placement under test')
    p.add_argument('--start', action='store_true',
                   help='start real Placement and nova-lite-placement')
    p.add_argument('--reference-port', type=int, default=0,
                   help='with --start (default: a free port)')
    p.add_argument('--target-port', type=int, default=0,
                   help='with --start (default: a free port)')
    p.add_argument('--placement-venv',
                   help='with --start: a virtualenv holding '
                   'openstack-placement (default: this Python if it has '
                   'it, else /tmp/placement-venv)')
    p.add_argument('--db-url',
                   help='with --start: the target\'s database, which must '
                   'exist (default: SQLite in a temporary directory; the '
                   'reference always runs on SQLite)')
    p.add_argument('--seed', default='1', help='makes the run reproducible')
    p.add_argument('--requests', type=int, default=2000,
                   help='requests in API sequences (default 2000)')
    p.add_argument('--candidate-queries', type=int, default=200,
                   help='allocation-candidates queries (default 200)')
    p.add_argument('--sequence', type=int,
                   help='replay only this sequence (with --kind)')
    p.add_argument('--kind', choices=('api', 'candidates'), default='api',
                   help="the replayed sequence's kind")
    p.add_argument('--keep-going', action='store_true',
                   help='go on with a sequence after a write got a '
                   'different status (later differences may be '
                   'consequences)')
    p.add_argument('--no-probe', action='store_true',
                   help='do not compare the providers (names, parents, '
                   'generations) after every write both answered alike')
    return p


def run(args, reference, target):
    started = time.monotonic()
    check = runner.Run(runner.Endpoint(reference), runner.Endpoint(target),
                       args.seed, keep_going=args.keep_going,
                       probe=not args.no_probe)
    if args.sequence is not None:
        check.replay(args.sequence, args.kind)
    else:
        check.run(args.requests, args.candidate_queries)
    print()
    print('Differences by class (requests affected, first occurrence):')
    for line in check.summary():
        print(line)
    print('%d sequences, %d candidate queries, %.0f s' % (
        check.sequences, check.queries, time.monotonic() - started))
    if check.set_aside:
        print('%d candidate queries set aside: the reference allocated more '
              'than they ask for (Placement 16 merge bug; see SET ASIDE '
              'lines)' % len(check.set_aside))
    print('%d requests, %d differences' % (check.requests,
                                           len(check.differences)))
    return 1 if check.differences else 0


def run_started(args):
    with tempfile.TemporaryDirectory(prefix='nova-lite-differential-') as tmp:
        reference = placement16.ReferencePlacement(
            args.reference_port or servers.free_port(),
            os.path.join(tmp, 'reference'),
            placement16.placement_python(args.placement_venv))
        target = servers.TargetPlacement(
            args.db_url or 'sqlite:///%s' % os.path.join(tmp, 'target.db'),
            args.target_port or None)
        reference.start()
        try:
            target.setUp()
            try:
                return run(args, reference.endpoint, target.endpoint)
            finally:
                target.cleanUp()
        finally:
            reference.stop()


def main(argv=None):
    args = parser().parse_args(argv)
    if args.start:
        return run_started(args)
    if not (args.reference and args.target):
        parser().error('give --reference and --target, or --start')
    return run(args, args.reference, args.target)


if __name__ == '__main__':
    sys.exit(main())
