"""``tox -e compat``: upstream suites and samples against nova_lite.

    python -m tests.compat [--group GROUP ...] [--no-osc] [--db-url URL]
        [--no-notifications | --notifications-only] [--verbose]
    python -m tests.compat --differential [--seed S] [--requests N]
        [--candidate-queries M] ...

For each server configuration the chosen groups need (legacy rules, new
defaults, open policy, CORS) it starts ``nova-lite-placement`` (one worker,
noauth2, SQLite in a temporary directory unless ``--db-url``), runs the
groups' gabbi files and, on the legacy server, osc-placement's functional
tests, then stops it. Prints the counts per group, the failures, and one
``N passed, M failed, K skipped`` line over everything; exits 1 when a
test failed.

Then (unless ``--no-notifications``) Nova's notification samples, from
the nova sdist, against the versioned notifications nova_lite sends
(:mod:`tests.compat.notifications`): the ``notifications`` group.

``--differential`` runs the differential check instead
(:mod:`tests.compat.differential`, with ``--start``: real Placement 16 from
this environment against ``nova-lite-placement``); the options after it
are the checker's.
"""

import argparse
import json
import os
import sys
import tempfile

from tests.compat import notifications
from tests.compat import osc_placement
from tests.compat import placement_gabbits
from tests.compat import upstream
from tests.functional.placement import server

# The server configuration each group needs (see placement_gabbits).
CONFIG_OF_GROUP = {
    'core': 'legacy', 'candidates': 'legacy', 'rbac-legacy': 'legacy',
    'rbac-secure': 'secure', 'open-policy': 'open-policy', 'cors': 'cors',
}
CONFIGS = ('legacy', 'secure', 'open-policy', 'cors')


def extra_config(name, tmp):
    """The configuration file lines ``name`` adds to the server's."""
    if name == 'secure':
        return '[oslo_policy]\nenforce_new_defaults = True\n'
    if name == 'open-policy':
        path = os.path.join(tmp, 'open-policy.yaml')
        with open(path, 'w') as f:
            for rule in open_policy_rules():
                f.write('"%s": "@"\n' % rule)
        return '[oslo_policy]\npolicy_file = %s\n' % path
    if name == 'cors':
        return ('[cors]\nallowed_origin = http://valid.example.com\n'
                'allow_headers = openstack-api-version\n')
    return ''


def open_policy_rules():
    """Upstream Placement's rule names but ``admin_api``: what its
    OpenPolicyFixture opens to everyone."""
    from placement import policies
    return [rule.name for rule in policies.list_rules()
            if rule.name != 'admin_api']


class ConfiguredServer(server.PlacementServer):
    def __init__(self, db_url, extra):
        super().__init__(db_url, workers=1)
        self.extra = extra

    def _write_config(self, tmp, port):
        path = super()._write_config(tmp, port)
        with open(path, 'a') as f:
            f.write(self.extra)
        return path


def run_config(name, groups, with_osc, db_url, tmp, gabbits_dir, verbose):
    """Start a server configured as ``name``; an Outcome per group run."""
    url = db_url or 'sqlite:///%s' % os.path.join(tmp, '%s.db' % name)
    placement = ConfiguredServer(url, extra_config(name, tmp))
    placement.setUp()
    outcomes = {}
    try:
        for group in groups:
            files = placement_gabbits.select_files(gabbits_dir, [group])
            per_file = placement_gabbits.run(placement.endpoint, files,
                                             gabbits_dir, verbose)
            outcomes[group] = placement_gabbits.Outcome()
            for outcome in per_file.values():
                outcomes[group].add(outcome)
            print('%s: %s' % (group, outcomes[group].summary()), flush=True)
        if with_osc:
            outcomes['osc-placement'] = osc_placement.run(placement.endpoint,
                                                          verbose=verbose)
            print('osc-placement: %s' % outcomes['osc-placement'].summary(),
                  flush=True)
    finally:
        placement.cleanUp()
    return outcomes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--group', action='append',
                        choices=placement_gabbits.GROUPS,
                        help='gabbi group (repeatable; default: all)')
    parser.add_argument('--no-osc', action='store_true',
                        help='skip osc-placement functional tests')
    parser.add_argument('--db-url', help='placement database (default: '
                        'SQLite in a temporary directory)')
    parser.add_argument('--no-notifications', action='store_true',
                        help="skip the comparison with Nova's notification "
                        'samples')
    parser.add_argument('--notifications-only', action='store_true',
                        help="only the comparison with Nova's notification "
                        'samples (no placement server)')
    parser.add_argument('--verbose', '-v', action='store_true')
    parser.add_argument('--results', help='also write the counts and the '
                        'failures as JSON here (what tests/summary.py adds '
                        'to the CI line)')
    parser.add_argument('--differential', action='store_true',
                        help='run the differential check against real '
                        'Placement instead (the options that follow are '
                        'its own: see python -m tests.compat.differential '
                        '--help)')
    args, rest = parser.parse_known_args(argv)
    if args.differential:
        from tests.compat.differential import __main__ as differential
        db_url = ['--db-url', args.db_url] if args.db_url else []
        return differential.main(['--start'] + db_url + rest)
    if rest:
        parser.error('unrecognized arguments: %s' % ' '.join(rest))
    outcomes = {}
    if not args.no_notifications:
        outcomes['notifications'] = notifications.run(verbose=args.verbose)
        print('notifications: %s' % outcomes['notifications'].summary(),
              flush=True)
    groups = args.group or list(placement_gabbits.GROUPS)
    if args.notifications_only:
        groups, args.no_osc = [], True
    gabbits_dir = upstream.placement_gabbits_dir() if groups else None
    with tempfile.TemporaryDirectory(prefix='nova-lite-compat-') as tmp:
        for name in CONFIGS:
            mine = [g for g in groups if CONFIG_OF_GROUP[g] == name]
            with_osc = name == 'legacy' and not args.no_osc
            if mine or with_osc:
                outcomes.update(run_config(name, mine, with_osc, args.db_url,
                                           tmp, gabbits_dir, args.verbose))
    total = placement_gabbits.print_report(outcomes, 'all')
    print()
    for group, outcome in outcomes.items():
        print('%-14s %s' % (group, outcome.summary()))
    print(total.summary())
    if args.results:
        write_results(args.results, total)
    return 1 if total.failed else 0


def write_results(path, total):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w') as f:
        json.dump({'passed': total.passed, 'failed': total.failed,
                   'skipped': total.skipped,
                   'failures': [' '.join(item) for item in total.failures]},
                  f, indent=1)


if __name__ == '__main__':
    sys.exit(main())
