"""Each service serves its OpenAPI document without credentials, and
nova-lite-manage prints the same one."""

import contextlib
import io

from oslo_serialization import jsonutils
import testtools
import webob

from nova_lite.api import deploy
from nova_lite.cmd import manage
from nova_lite.placement import handler
from nova_lite.placement import openapi as placement_openapi
from nova_lite.testing import placement_fixture
from tests.functional.api import fixtures as api_fixtures


def _manage(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = manage.main(list(argv))
    return rc, out.getvalue()


class TestServed(testtools.TestCase):

    def test_api_process_serves_each_document_without_a_token(self):
        api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))
        for name, path in (('compute', '/v2.1/openapi.json'),
                           ('image', '/image/openapi.json'),
                           ('network', '/network/openapi.json')):
            response = api.get(path, token=None)
            self.assertEqual(200, response.status, response)
            self.assertEqual('application/json',
                             response.headers['Content-Type'].split(';')[0])
            self.assertEqual(jsonutils.loads(jsonutils.dumps(
                deploy.OPENAPI_DOCUMENTS[name]())), response.body)
        # Only GET: the path is no way round authentication.
        self.assertEqual(401, api.post('/image/openapi.json', body={},
                                       token=None).status)

    def test_placement_serves_its_document_without_a_token(self):
        placement = self.useFixture(placement_fixture.PlacementFixture())
        response = webob.Request.blank('/openapi.json').get_response(
            placement.app)
        self.assertEqual(200, response.status_int, response.text)
        self.assertEqual(jsonutils.loads(jsonutils.dumps(
            placement_openapi.document(handler.ROUTE_DECLARATIONS))),
            response.json_body)

    def test_manage_prints_the_served_document(self):
        rc, out = _manage('api', 'openapi', '--service', 'placement')
        self.assertEqual(0, rc)
        self.assertEqual(jsonutils.loads(jsonutils.dumps(
            placement_openapi.document(handler.ROUTE_DECLARATIONS))),
            jsonutils.loads(out))
        # Every operation of the four documents is described.
        for service in ('compute', 'image', 'network', 'placement'):
            rc, out = _manage('api', 'openapi', '--service', service,
                              '--missing')
            self.assertEqual((0, ''), (rc, out), service)
