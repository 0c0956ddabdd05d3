"""The compute API in-process: API DB + cells, placement, a WSGI client.

``APIFixture`` gives tests ``self.api.get(path, token=..., version=...)``
style calls that go through the whole middleware pipeline without
sockets (webob requests against the WSGI app), plus helpers to put
services and compute nodes in a cell DB as running computes would. Every
response is checked against the services' OpenAPI documents
(:mod:`tests.functional.openapi_check`): one they do not allow fails the
test.
"""

import fixtures
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import webob

from nova_lite.api import deploy
from nova_lite.api import policy
from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.cell import api as cell_db
from nova_lite.testing import placement_fixture
from nova_lite import testing
from tests.functional import openapi_check

CONF = nl_conf.CONF

ADMIN = 'admin'
MEMBER = 'alice:proj-a'
OTHER = 'bob:proj-b'
READER = 'rita:proj-a:reader'


_DOCUMENTS = []


def documents():
    """nova-lite-api's documents by path prefix (made once)."""
    if not _DOCUMENTS:
        made = {name: make() for name, make in
                deploy.OPENAPI_DOCUMENTS.items()}
        _DOCUMENTS.append({'': made['compute'], '/image': made['image'],
                           '/network': made['network']})
    return _DOCUMENTS[0]


class Response:
    """What a test looks at: status, headers, parsed JSON body."""

    def __init__(self, webob_response):
        self.status = webob_response.status_int
        self.headers = webob_response.headers
        self.text = webob_response.text if webob_response.body else ''
        try:
            self.body = jsonutils.loads(self.text) if self.text else None
        except ValueError:
            self.body = None

    def __repr__(self):
        return '<Response %d %s>' % (self.status, self.text[:300])


class APIFixture(fixtures.Fixture):
    """Configuration, databases (cell1, cell2 + cell0), placement, app."""

    def __init__(self, cells=('cell1', 'cell2'), **flags):
        super().__init__()
        self.cell_names = cells
        self.flags = flags

    def _setUp(self):
        self.conf = self.useFixture(testing.ConfFixture())
        placement_fixture.ensure_parsed(CONF)
        self.conf.flags(create_default_flavors=False, group='api')
        for group_name, values in self.flags.items():
            self.conf.flags(group=group_name, **values)
        self.dbs = self.useFixture(testing.DatabaseFixture(
            cells=self.cell_names))
        self.placement = self.useFixture(
            placement_fixture.PlacementFixture())
        policy.reset()
        self.addCleanup(policy.reset)
        self.app = openapi_check.ResponseChecker(
            deploy.deploy(CONF, placement_client=self.placement.client),
            documents(), 'compute')
        self.admin_context = nl_context.get_admin_context()

    # -- requests --------------------------------------------------------

    def request(self, method, path, body=None, token=ADMIN, version=None,
                headers=None, raw_body=None):
        req = webob.Request.blank(path, method=method)
        req.host = 'nova.test:8774'
        if token is not None:
            req.headers['X-Auth-Token'] = token
        if version is not None:
            req.headers['OpenStack-API-Version'] = 'compute %s' % version
        if body is not None:
            raw_body = jsonutils.dumps(body)
        if raw_body is not None:
            req.body = raw_body.encode('utf-8') if isinstance(
                raw_body, str) else raw_body
            req.content_type = 'application/json'
        for key, value in (headers or {}).items():
            req.headers[key] = value
        return Response(req.get_response(self.app))

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, body=None, **kw):
        return self.request('POST', path, body=body, **kw)

    def put(self, path, body=None, **kw):
        return self.request('PUT', path, body=body, **kw)

    def delete(self, path, **kw):
        return self.request('DELETE', path, **kw)

    # -- cell contents ----------------------------------------------------

    def cell_context(self, cell_name):
        ctxt = nl_context.get_admin_context()
        cell = self.dbs.cells[cell_name]
        cells.set_target_cell(ctxt, cell)
        return ctxt

    def add_compute(self, host, cell_name='cell1', nodes=1, vcpus=8,
                    memory_mb=16384, local_gb=100, map_host=True,
                    provider=True):
        """A nova-lite-compute service with ``nodes`` compute nodes (and
        their placement providers), as a running compute would leave."""
        ctxt = self.cell_context(cell_name)
        service = cell_db.service_create(ctxt, {
            'host': host, 'binary': 'nova-lite-compute', 'topic': 'compute',
            'report_count': 1})
        cell_db.service_update(ctxt, service.id, {'report_count': 2})
        result = []
        for index in range(nodes):
            node_uuid = uuidutils.generate_uuid()
            name = '%s-node-%d' % (host, index)
            result.append(cell_db.compute_node_create(ctxt, {
                'uuid': node_uuid, 'service_id': service.id, 'host': host,
                'hypervisor_hostname': name, 'vcpus': vcpus,
                'memory_mb': memory_mb, 'local_gb': local_gb,
                'hypervisor_type': 'fake', 'hypervisor_version': 1000,
                'cpu_info': '{}', 'free_ram_mb': memory_mb,
                'free_disk_gb': local_gb, 'mapped': 1}))
            if provider:
                self.placement.client.create_provider(name, uuid=node_uuid)
        if map_host:
            self.dbs.map_host(host, cell_name)
        return service, result
