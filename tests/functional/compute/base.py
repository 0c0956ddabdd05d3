"""A cell conductor, an in-process placement and computes, in one process.

Tests start computes with :meth:`ComputeTestBase.start_compute`; every
placement request of the computes goes through :class:`RequestLog`, so a
test can count what a periodic run or a restart sent.
"""

import threading

import requests
import testtools

from nova_lite import context as nl_context
from nova_lite.testing import placement_fixture
from nova_lite import testing


class RequestLog:
    """Records (method, path) of every request of a PlacementClient, and
    the bodies of the writes in ``bodies`` (same order as ``writes``)."""

    def __init__(self, client):
        self.requests = []
        self.bodies = []
        self._lock = threading.Lock()
        self._request = client.request
        client.request = self._record

    def _record(self, method, path, *args, **kwargs):
        with self._lock:
            self.requests.append((method, path))
            if method != 'GET':
                self.bodies.append(args[0] if args else kwargs.get('body'))
        return self._request(method, path, *args, **kwargs)

    def clear(self):
        self.requests = []
        self.bodies = []

    @property
    def writes(self):
        return [r for r in self.requests if r[0] != 'GET']

    @property
    def reads(self):
        return [r for r in self.requests if r[0] == 'GET']


class DeadAdapter(requests.adapters.BaseAdapter):
    """A transport for which placement is down."""

    def send(self, request, **kwargs):
        raise requests.ConnectionError('connection refused (test outage)')

    def close(self):
        pass


class ComputeTestBase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(testing.ConfFixture())
        self.dbs = self.useFixture(testing.DatabaseFixture(cells=('cell1',)))
        self.cell = self.dbs.cells['cell1']
        self.placement = self.useFixture(placement_fixture.PlacementFixture())
        self.client = self.placement.client
        self.log = RequestLog(self.client)
        self.flags(compute_driver='fake.FakeDriver')
        self.flags(connect_retries=0, group='placement')
        self.flags(nodes='3', nested_nodes='1', pgpus=2, vgpus_per_pgpu=4,
                   vgpu_on_children=True, group='fake_driver')
        self.conductor = testing.start_service(self, 'conductor',
                                               host='cond1', cell=self.cell)
        self.ctxt = nl_context.get_admin_context()

    def flags(self, group=None, **kw):
        self.conf.flags(group=group, **kw)

    def start_compute(self, host='host1'):
        service = testing.make_service('compute', host=host, cell=self.cell)
        service.manager.placement_client = self.client
        service.start()
        self.addCleanup(service.stop)
        return service

    def restart_compute(self, service):
        service.stop()
        return self.start_compute(service.host)

    def providers(self):
        return {p['name']: p for p in self.client.list_providers()}

    def traits(self, rp_uuid):
        return set(self.client.get_traits(rp_uuid)['traits'])

    def inventory(self, rp_uuid):
        return self.client.get_inventories(rp_uuid)['inventories']
