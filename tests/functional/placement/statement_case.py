"""A test case calling the placement WSGI app in process and counting the
SQL statements it sends: the set-up the statement-count tests share.

On SQLite, or on a fresh MariaDB database with
``NOVA_LITE_PLACEMENT_TEST_DB=mysql``.
"""

import json
import os
import uuid

import sqlalchemy as sa
import testtools
import webob

from nova_lite.testing import placement_fixture
from tests import db_fixtures

_DATA = ('select', 'insert', 'update', 'delete')


def counted(statement, parameters, executemany):
    """How many statements PyMySQL sends for one cursor execution: an
    executemany of N rows is N of them, but for INSERT ... VALUES, which
    it sends as one."""
    if executemany and not statement.lstrip().upper().startswith('INSERT'):
        return len(parameters)
    return 1


class PlacementStatementTestCase(testtools.TestCase):
    """``self.app`` on an empty database, ``self._call`` for JSON requests
    and ``self.statements``, the data statements (SELECT, INSERT, UPDATE,
    DELETE) sent since :meth:`count_statements` or the last clear."""

    microversion = '1.30'
    # 'mysql': always on MariaDB (a test of its query plans).
    database = None

    def setUp(self):
        super().setUp()
        url = None
        if 'mysql' in (self.database,
                       os.environ.get('NOVA_LITE_PLACEMENT_TEST_DB')):
            url = self.useFixture(db_fixtures.MySQLDatabase(self)).url
        self.app = self.useFixture(
            placement_fixture.PlacementFixture(db_url=url)).app
        self.headers = {'X-Auth-Token': 'admin',
                        'Accept': 'application/json',
                        'Content-Type': 'application/json',
                        'OpenStack-API-Version':
                            'placement %s' % self.microversion}
        self.statements = []

    def count_statements(self):
        """Record the statements of every request from now on."""
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._record)
        self.addCleanup(sa.event.remove, sa.engine.Engine,
                        'before_cursor_execute', self._record)

    def _record(self, conn, cursor, statement, parameters, context,
                executemany):
        if statement.lstrip().lower().startswith(_DATA):
            self.statements.extend(
                [statement] * counted(statement, parameters, executemany))

    def _call_watched(self, listener, method, path, body=None):
        """:meth:`_call` with ``listener`` (SQLAlchemy's
        ``before_cursor_execute`` signature) told of every statement the
        request sends."""
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute', listener)
        try:
            return self._call(method, path, body)
        finally:
            sa.event.remove(sa.engine.Engine, 'before_cursor_execute',
                            listener)

    def _call(self, method, path, body=None, status=None):
        """The JSON answer (None if empty) of a request, after checking its
        status (any success when ``status`` is None)."""
        request = webob.Request.blank(path, method=method,
                                      headers=self.headers)
        if body is not None:
            request.body = json.dumps(body).encode()
        response = request.get_response(self.app)
        if status is None:
            self.assertLess(response.status_int, 300, response.text)
        else:
            self.assertEqual(status, response.status_int, response.text)
        return response.json if response.body else None

    def _new_provider(self, name='cn1'):
        """The uuid of a new provider named ``name``."""
        rp = str(uuid.uuid4())
        self._call('POST', '/resource_providers', {'name': name, 'uuid': rp})
        return rp

    def _provider(self, name, inventory):
        """A new provider's uuid, with ``inventory`` ({class: total})."""
        rp = self._new_provider(name)
        self._call('PUT', '/resource_providers/%s/inventories' % rp,
                   {'resource_provider_generation': 0,
                    'inventories': {rc: {'total': total}
                                    for rc, total in inventory.items()}})
        return rp

    def _nested(self, name, root_inventory, child_inventory):
        """(root uuid, child uuid) of a new tree of two providers with
        these inventories ({class: total})."""
        root = self._provider(name, root_inventory)
        child = str(uuid.uuid4())
        self._call('POST', '/resource_providers',
                   {'name': name + '-child', 'uuid': child,
                    'parent_provider_uuid': root})
        self._call('PUT', '/resource_providers/%s/inventories' % child,
                   {'resource_provider_generation': 0,
                    'inventories': {rc: {'total': total}
                                    for rc, total in child_inventory.items()}})
        return root, child
