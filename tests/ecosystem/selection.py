"""Which upstream functional tests run, and the stestr workspace for them.

Both projects ship their functional tests in their wheels; they run from
the installed packages, unmodified. One stestr run takes every selection:
stestr discovers from one directory, so the workspace holds a small
package whose ``load_tests`` hands unittest exactly the selected modules
(openstacksdk's functional tree also holds ``examples`` tests that import
a top-level package its wheel does not ship, so discovering the whole
tree would fail). Test ids stay upstream's.
"""

import os
import re

# (name of a selection, the packages and modules it runs)
SELECTIONS = (
    ('openstacksdk image', ('openstack.tests.functional.image',)),
    ('openstacksdk network', ('openstack.tests.functional.network',)),
    ('openstacksdk cloud', (
        'openstack.tests.functional.cloud.test_network',
        'openstack.tests.functional.cloud.test_inventory',
        'openstack.tests.functional.cloud.test_compute')),
    ('openstackclient image', (
        'openstackclient.tests.functional.image.v2',)),
    ('openstackclient network', (
        'openstackclient.tests.functional.network.v2',)),
    ('openstackclient common', (
        'openstackclient.tests.functional.common',)),
)

SHIM = 'ecosystem_selection'

# stestr hands whole test classes to one worker (as python-openstackclient
# configures it): class fixtures stay on one worker.
STESTR_CONF = """[DEFAULT]
test_path=./%s
top_dir=./
group_regex=([^\\.]+\\.)+
""" % SHIM

SHIM_TEXT = '''"""Written by tests/ecosystem: hands unittest the selected
upstream functional test modules (their ids unchanged)."""

import importlib
import pkgutil
import unittest

NAMES = %r


def _modules(name):
    module = importlib.import_module(name)
    if not hasattr(module, '__path__'):
        return [module]
    found = []
    for info in pkgutil.walk_packages(module.__path__, name + '.'):
        if info.name.rsplit('.', 1)[-1].startswith('test_'):
            found.append(importlib.import_module(info.name))
    return found


def load_tests(loader, standard_tests, pattern):
    suite = unittest.TestSuite()
    for name in NAMES:
        for module in _modules(name):
            suite.addTests(loader.loadTestsFromModule(module))
    return suite
'''


UPLOADED_FILE = """Written by tests/ecosystem: openstacksdk's functional image
tests read CONTRIBUTING.rst from their working directory (their source
tree upstream) and upload it as image data; any bytes will do.
"""


def names(chosen=None):
    """The module and package names of the selections named ``chosen``
    (all when None)."""
    return [name for selection, modules in SELECTIONS
            if chosen is None or selection in chosen for name in modules]


def regex_of(modules):
    """The regex matching the test ids (and class fixture ids) of
    ``modules``."""
    return r'(^|\()(%s)\.' % '|'.join(re.escape(m) for m in modules)


def write_workspace(workspace, chosen=None):
    """The stestr configuration and the selecting package in
    ``workspace``."""
    with open(os.path.join(workspace, '.stestr.conf'), 'w') as f:
        f.write(STESTR_CONF)
    package = os.path.join(workspace, SHIM)
    os.makedirs(package, exist_ok=True)
    with open(os.path.join(package, '__init__.py'), 'w') as f:
        f.write(SHIM_TEXT % (names(chosen),))
    # openstacksdk's image tests upload this file of its source tree (the
    # working directory of its own functional env) as image data.
    with open(os.path.join(workspace, 'CONTRIBUTING.rst'), 'w') as f:
        f.write(UPLOADED_FILE)
