"""Load the gabbi YAML stories under ``gabbits/`` as placement API tests.

Each file runs in order against a fresh in-process placement (reached
through wsgi-intercept, no sockets) set up by the fixture the file names.
``.stestr.conf``'s ``group_regex`` keeps a file in one worker: it groups
test ids on the file name up to the first ``_``, so name YAML files with
hyphens, never underscores (``allocations-1-28.yaml``).
"""

import os

from gabbi import driver

from tests.functional.placement import fixtures

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def load_tests(loader, tests, pattern):
    return driver.build_tests(TESTS_DIR, loader, host=None,
                              test_loader_name=__name__,
                              intercept=fixtures.current_app,
                              fixture_module=fixtures)
