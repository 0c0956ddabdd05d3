"""Run upstream Placement's gabbi files against a live Placement.

    python -m tests.compat.placement_gabbits URL [--group GROUP ...]
        [--file NAME ...] [--verbose]

The files come from the ``openstack-placement`` sdist (pinned, see
:mod:`tests.compat.upstream`). Each file runs with the fixture its
``fixtures:`` list names, from :mod:`tests.compat.gabbi_fixtures`, which
wipes the service and recreates upstream's data over HTTP. The service must
use ``auth_strategy = noauth2`` (the files authenticate with tokens such as
``admin`` and ``user``) and the configuration its group needs:

- ``core``, ``candidates``, ``rbac-legacy``: the legacy policy rules
  (``[oslo_policy] enforce_new_defaults = False``);
- ``rbac-secure``: ``enforce_new_defaults = True``;
- ``open-policy``: a policy file setting every Placement rule except
  ``admin_api`` to ``"@"``;
- ``cors``: ``[cors] allowed_origin = http://valid.example.com`` and
  ``allow_headers = openstack-api-version``.

Every file starts by deleting all allocations, providers, custom resource
classes and custom traits of the service: the runner refuses a service
that holds providers unless given ``--allow-wipe``.

Prints ``N passed, M failed, K skipped`` and one line per failure; exits 1
when a test failed.
"""

import argparse
import os
import re
import sys
import unittest

from gabbi import handlers
from gabbi import suitemaker
from gabbi import utils

from tests.compat import client as client_mod
from tests.compat import gabbi_fixtures
from tests.compat import upstream

# The allocation-candidate and nested/sharing files (with the reshaper);
# ``core`` is every other file whose server needs no special setting.
CANDIDATE_FILES = frozenset((
    'allocation-candidates', 'allocation-candidates-any-traits',
    'allocation-candidates-any-traits-groups',
    'allocation-candidates-bug-1792503', 'allocation-candidates-mappings-numa',
    'allocation-candidates-mappings-sharing',
    'allocation-candidates-member-of', 'allocation-candidates-root-required',
    'granular', 'granular-same-subtree', 'reshaper', 'same-subtree-deep',
    'shared-resources'))
# Tests that cannot be sent to a server over a socket: the HTTP client
# refuses the malformed request before it leaves (upstream runs the files
# in-process through wsgi-intercept). They are counted as skipped.
UNSENDABLE = {
    ('basic-http', 'bad content length not int'):
        'httpx will not send a non-integer Content-Length',
}
GROUPS = ('core', 'candidates', 'rbac-legacy', 'rbac-secure', 'open-policy',
          'cors')


def group_of(name):
    """The group of the gabbi file ``name`` (without ``.yaml``)."""
    if name.endswith('-legacy-rbac'):
        return 'rbac-legacy'
    if name.endswith('-secure-rbac'):
        return 'rbac-secure'
    if name.endswith('-policy'):
        return 'open-policy'
    if name == 'cors':
        return 'cors'
    if name in CANDIDATE_FILES:
        return 'candidates'
    return 'core'


def select_files(gabbits_dir, groups, names=()):
    """The sorted file names (no ``.yaml``) in ``groups``, or ``names``."""
    found = sorted(f[:-len('.yaml')] for f in os.listdir(gabbits_dir)
                   if f.endswith('.yaml'))
    if names:
        missing = set(names) - set(found)
        if missing:
            raise SystemExit('no such gabbi file: %s'
                             % ', '.join(sorted(missing)))
        return [f for f in found if f in names]
    return [f for f in found if group_of(f) in groups]


class Outcome:
    """Counts and failures over the files run."""

    def __init__(self):
        self.passed = self.skipped = 0
        self.failures = []          # (file, test, first line of reason)

    @property
    def failed(self):
        return len(self.failures)

    def add(self, other):
        self.passed += other.passed
        self.skipped += other.skipped
        self.failures.extend(other.failures)

    def summary(self):
        return '%d passed, %d failed, %d skipped' % (
            self.passed, self.failed, self.skipped)


# gabbi's own wording of the two commonest failures, and ours.
_READABLE = (
    (re.compile(r"AssertionError: '(\d+)' not found in \[([^]]*)\], "
                r"response:.*"), r"status \1, expected \2"),
    (re.compile(r"AssertionError: (.*) not found in [{\[].*"),
     r"response lacks \1"),
)


def _reason(text):
    """The line of a unittest traceback that says what went wrong."""
    lines = [line.strip() for line in text.strip().splitlines()
             if line.strip()]
    for line in reversed(lines):
        if line.startswith(('AssertionError', 'gabbi.', 'Exception',
                            'testtools.', 'requests.', 'httpx.')):
            break
    else:
        line = lines[-1] if lines else ''
    for pattern, replacement in _READABLE:
        line = pattern.sub(replacement, line)
    return line[:300]


def _test_name(test):
    """The test's ``name:`` in its YAML file."""
    return test.test_data['name']


def run_file(path, fixture_module, url, verbose=False):
    """Run one gabbi file; its :class:`Outcome`."""
    file_name = os.path.basename(path)[:-len('.yaml')]
    suite_dict = utils.load_yaml(yaml_file=path, safe=True)
    host, port, prefix, force_ssl = utils.host_info_from_target(url)
    for test in suite_dict.get('tests', []):
        reason = UNSENDABLE.get((file_name, test.get('name')))
        if reason:
            test['skip'] = reason
    defaults = suite_dict.setdefault('defaults', {})
    if force_ssl:
        defaults['ssl'] = True
    else:
        # NOTE(nova_lite): gabbi builds an HTTP client per test; with
        # certificate validation on, each loads the CA bundle (about a
        # second on a busy machine) for a plain-HTTP target.
        defaults['cert_validate'] = False
    handler_objects = [handler() for handler in handlers.RESPONSE_HANDLERS]
    test_suite = suitemaker.test_suite_from_dict(
        unittest.defaultTestLoader, file_name.replace('-', '_'), suite_dict,
        os.path.dirname(path), host, port, fixture_module, None,
        prefix=prefix, handlers=handler_objects,
        test_loader_name='compat')
    # NOTE(nova_lite): one result per file: gabbi stops the whole result
    # when a fixture fails, and a file whose fixture the server refused
    # should fail alone.
    ran_tests = list(test_suite)
    result = unittest.TestResult()
    test_suite.run(result)
    outcome = Outcome()
    fixture_error = None
    errors = dict((test, text) for test, text in result.errors)
    errors.update((test, text) for test, text in result.failures)
    skips = dict(result.skipped)
    for test in ran_tests:
        name = _test_name(test)
        if skips.get(test) == 'fixture failure':
            if fixture_error is None:
                fixture_error = _reason(errors.get(ran_tests[0], ''))
            outcome.failures.append(
                (file_name, name, 'fixture failed: %s' % fixture_error))
        elif test in errors:
            outcome.failures.append((file_name, name, _reason(errors[test])))
        elif test in skips:
            outcome.skipped += 1
        else:
            outcome.passed += 1
    for test, _text in result.unexpectedSuccesses:
        outcome.failures.append((file_name, _test_name(test),
                                 'unexpected success of an xfail test'))
        outcome.passed -= 1
    if verbose:
        print('%-45s %s' % (file_name, outcome.summary()), flush=True)
    return outcome


def run(url, files, gabbits_dir, verbose=False):
    """Run ``files`` against ``url``; an :class:`Outcome` per file."""
    client = client_mod.PlacementClient(url)
    fixture_module = gabbi_fixtures.bind(client)
    outcomes = {name: run_file(os.path.join(gabbits_dir, name + '.yaml'),
                               fixture_module, url, verbose)
                for name in files}
    wipe_after(client)
    return outcomes


def wipe_after(client):
    """Leave the service empty, as the runners want to find it."""
    try:
        client.wipe()
    except client_mod.PlacementError as exc:
        print('warning: could not empty the service: %s' % exc,
              file=sys.stderr)


def print_report(outcomes, title='placement gabbits', out=sys.stdout):
    total = Outcome()
    for outcome in outcomes.values():
        total.add(outcome)
    for file_name, test, reason in total.failures:
        print('FAIL %s: %s: %s' % (file_name, test, reason), file=out)
    print('%s: %s' % (title, total.summary()), file=out)
    return total


def refuse_unless_empty(url, allow_wipe):
    """Exit when ``url`` holds providers and wiping was not allowed:
    every file starts by deleting everything on the service."""
    providers = client_mod.PlacementClient(url).providers()
    if providers and not allow_wipe:
        raise SystemExit(
            '%s holds %d resource providers; the runner deletes every '
            'allocation, provider, custom resource class and custom trait. '
            'Use an empty service, or --allow-wipe.' % (url, len(providers)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('url', help='the Placement endpoint, e.g. '
                        'http://127.0.0.1:8778 or http://host/placement')
    parser.add_argument('--group', action='append', choices=GROUPS,
                        help='file group to run (repeatable; default: core '
                        'and candidates)')
    parser.add_argument('--file', action='append', default=[],
                        help='run this gabbi file (name without .yaml) '
                        'instead of groups; repeatable')
    parser.add_argument('--verbose', '-v', action='store_true',
                        help='print counts per file as they run')
    parser.add_argument('--allow-wipe', action='store_true',
                        help='run even if the service holds data (it is '
                        'all deleted)')
    args = parser.parse_args(argv)
    refuse_unless_empty(args.url, args.allow_wipe)
    gabbits_dir = upstream.placement_gabbits_dir()
    files = select_files(gabbits_dir, args.group or ('core', 'candidates'),
                         args.file)
    total = print_report(run(args.url, files, gabbits_dir, args.verbose))
    # The plain closing line test-result readers look for.
    print(total.summary())
    return 1 if total.failed else 0


if __name__ == '__main__':
    sys.exit(main())
