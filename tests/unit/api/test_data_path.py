"""The API's handlers reach their data through objects, never the DB.

Upstream Nova's API imports no DB module; nova_lite's handlers and the
modules beside them (``host_info``, ``quota``, ``default_flavors``, ...)
go through ``nova_lite.objects`` (issue 13). This reads the imports of
``nova_lite/api/handlers/`` and of ``nova_lite/api/*.py`` and fails when
one names ``nova_lite.db``.
"""

import ast
import pathlib

import fixtures
import testtools

import nova_lite

API_DIR = pathlib.Path(nova_lite.__file__).parent / 'api'


def db_imports(path):
    """The ``nova_lite.db`` modules ``path`` imports (any nesting level)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + ['%s.%s' % (node.module, alias.name)
                                     for alias in node.names]
        else:
            continue
        found.extend(n for n in names
                     if n == 'nova_lite.db' or n.startswith('nova_lite.db.'))
    return found


class TestNoDatabaseInTheAPI(testtools.TestCase):

    def test_no_handler_imports_the_db_layer(self):
        paths = sorted(API_DIR.glob('*.py')) + sorted(
            (API_DIR / 'handlers').rglob('*.py'))
        offenders = {str(path.relative_to(API_DIR)): db_imports(path)
                     for path in paths}
        self.assertEqual({}, {k: v for k, v in offenders.items() if v})

    def _module(self, text):
        path = pathlib.Path(self.useFixture(fixtures.TempDir()).path,
                            'module.py')
        path.write_text(text)
        return path

    def test_the_check_sees_a_db_import(self):
        path = self._module('from nova_lite.db.api import group_api\n')
        self.assertEqual(['nova_lite.db.api', 'nova_lite.db.api.group_api'],
                         db_imports(path))

    def test_the_check_sees_an_import_inside_a_function(self):
        path = self._module('def f():\n    import nova_lite.db.cell.api\n')
        self.assertEqual(['nova_lite.db.cell.api'], db_imports(path))

    def test_the_check_ignores_objects(self):
        path = self._module('from nova_lite.objects import keypair\n')
        self.assertEqual([], db_imports(path))
