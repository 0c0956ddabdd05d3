"""What a DELETE of a server on a live compute builds besides its reads
and writes: one compute API facade (the handler's read of the server and
the delete share it), no placement client (only a delete done in the API
drops a claim), and no second Instance for the task state write (the
row written is loaded into the instance read), and one read of the
instance's row: the task state write reads nothing back (the compute
reads the instance again when its terminate starts)."""

import threading

import fixtures
import sqlalchemy as sa
from sqlalchemy import event
import testtools

from nova_lite.api.compute import api as compute_api
from nova_lite.clients import placement as placement_client
from nova_lite.objects import instance as instance_obj
from nova_lite.testing import integrated


class DeleteObjectsTest(testtools.TestCase):

    def counted(self, path, owner, name, wrap=None):
        """The calls of ``owner.name`` (at ``path``; a class: its objects
        made) in this thread, the API's (the compute's and the
        conductor's work runs in their own); ``wrap``: classmethod for
        one."""
        calls = []
        real = getattr(owner, name)
        thread = threading.get_ident()

        def counting(*args, **kwargs):
            if threading.get_ident() == thread:
                calls.append(name)
            return real(*args, **kwargs)

        def counting_classmethod(cls, *args, **kwargs):
            return counting(*args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            path, classmethod(counting_classmethod) if wrap else counting))
        return calls

    def active_server(self):
        """A cloud with one compute and an ACTIVE server on it."""
        cloud = self.useFixture(integrated.IntegratedFixture())
        cloud.start_compute('host1')
        server = cloud.create_server()
        cloud.wait_for_server(server['id'], 'ACTIVE')
        cloud.wait_for_builds()
        return cloud, server

    def test_a_delete_cast_to_its_compute(self):
        cloud, server = self.active_server()
        facades = self.counted('nova_lite.api.compute.api.API',
                               compute_api, 'API')
        clients = self.counted('nova_lite.clients.placement.PlacementClient',
                               placement_client, 'PlacementClient')
        instances = self.counted(
            'nova_lite.objects.instance.Instance._from_db',
            instance_obj.Instance, '_from_db', wrap=classmethod)
        response = cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        # The handler's read of the instance makes the only one.
        self.assertEqual(['API'], facades)
        self.assertEqual([], clients)
        self.assertEqual(['_from_db'], instances)
        cloud.wait_until_deleted(server['id'])
        self.assertFalse(cloud.allocations(server['id']))

    def test_a_delete_reads_the_instance_row_once(self):
        cloud, server = self.active_server()
        thread = threading.get_ident()
        statements = []

        def record(conn, cursor, statement, params, context, many):
            words = statement.split()
            if threading.get_ident() == thread and words[0] in (
                    'SELECT', 'UPDATE') and ' instances' in statement:
                statements.append(words[0] + (
                    ' ' + words[words.index('FROM') + 1]
                    if 'FROM' in words else ' ' + words[1]))
        event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        self.addCleanup(event.remove, sa.engine.Engine,
                        'before_cursor_execute', record)
        # The compute's terminate runs in its own thread: its reads are
        # not counted (casts are calls, but served by the compute).
        response = cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        self.assertEqual(['SELECT instances', 'UPDATE instances'],
                         statements)
        cloud.wait_until_deleted(server['id'])
        self.assertFalse(cloud.allocations(server['id']))
