"""A small HTTP client of the image API (``/image/v2`` of nova-lite-api).

The computes use it as Nova's computes use Glance: to read an image, set
the formats of a snapshot, upload its data and delete the snapshot of an
unshelved server. Authentication follows ``[glance] auth_type`` exactly
as the placement client follows ``[placement]``.

Errors: :class:`ImageClientError` (with ``status``; 404 is
:class:`ImageNotFound`), or :class:`ImageUnreachable` when the API does
not answer.
"""

import json
import urllib.parse

from oslo_log import log as logging
import requests

from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf

LOG = logging.getLogger(__name__)
CONF = nl_conf.CONF

PATCH_TYPE = 'application/openstack-images-v2.1-json-patch'


class ImageClientError(Exception):
    def __init__(self, method, url, status, detail):
        self.status = status
        super().__init__('%s %s answered %s: %s' % (method, url, status,
                                                    detail))


class ImageNotFound(ImageClientError):
    pass


class ImageUnreachable(ImageClientError):
    pass


class ImageClient:
    """Calls to the image API; one per process is enough."""

    def __init__(self, endpoint=None, session=None, conf=None):
        group = (conf or CONF).glance
        self.endpoint = (endpoint or group.endpoint).rstrip('/')
        self.session = session or requests.Session()
        self.timeout = group.timeout
        if group.auth_type == 'http_basic':
            self.session.auth = (group.username or '', group.password or '')
        elif group.auth_type == 'password':
            self.session.auth = placement_client.KeystoneTokenAuth.from_conf(
                group, placement_client._token_session(self.session))
        else:
            self.session.headers['X-Auth-Token'] = group.token

    def _request(self, method, path, data=None, content_type=None,
                 expected=(200, 201, 204)):
        url = '%s/v2/images%s' % (self.endpoint, path)
        headers = {'Accept': 'application/json'}
        if content_type:
            headers['Content-Type'] = content_type
        try:
            response = self.session.request(method, url, data=data,
                                            headers=headers,
                                            timeout=self.timeout)
        except requests.RequestException as exc:
            raise ImageUnreachable(method, url, None, exc)
        if response.status_code not in expected:
            cls = ImageNotFound if response.status_code == 404 else \
                ImageClientError
            raise cls(method, url, response.status_code,
                      response.text[:300])
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def get(self, image_id):
        """The image (a Glance v2 image dict)."""
        return self._request('GET', '/%s' % image_id)

    def update(self, image_id, values):
        """Set (add, or replace when set) the attributes ``values``."""
        patch = [{'op': 'add', 'path': '/%s' % key, 'value': value}
                 for key, value in values.items()]
        return self._request('PATCH', '/%s' % image_id,
                             data=json.dumps(patch), content_type=PATCH_TYPE)

    def upload(self, image_id, data):
        """Store ``data`` (bytes) as the image's data: it becomes
        active."""
        self._request('PUT', '/%s/file' % image_id, data=data,
                      content_type='application/octet-stream')

    def list(self, **filters):
        """Every image the query ``filters`` (Glance's list parameters)
        selects, following the pages."""
        images, query = [], dict(filters)
        while True:
            page = self._request('GET', '?%s' % urllib.parse.urlencode(
                query))
            images.extend(page.get('images') or [])
            if not page.get('next') or not page.get('images'):
                return images
            query['marker'] = page['images'][-1]['id']

    def delete(self, image_id):
        self._request('DELETE', '/%s' % image_id)
