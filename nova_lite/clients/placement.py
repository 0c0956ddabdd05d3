"""A small typed HTTP client of nova-lite-placement.

Used by the scheduler, the conductors and the computes. It:

* sends every call at an explicit microversion (each method pins the one
  it needs; ``microversion=`` overrides);
* authenticates per ``[placement] auth_type`` (a fixed token, HTTP basic,
  or a Keystone token from a password, renewed as needed);
* retries connection errors ``[placement] connect_retries`` times;
* returns parsed JSON, or raises :class:`PlacementError` (with the
  placement error ``code``) on 4xx/5xx.

The transport is a ``requests.Session``. :func:`in_process_client` mounts
:class:`WSGIAdapter` on the session instead of sockets, so functional
tests of other services reach an in-process placement WSGI app with the
very same client.

Exceptions::

    PlacementClientError
     +-- PlacementUnreachable      connection failed after the retries
     +-- PlacementError            an HTTP error answer (status, code)
          +-- PlacementConflict    409 (``code`` says which kind)
          +-- PlacementNotFound    404
"""

import io
import json
import os
import time
import urllib.parse

from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading as ksa_loading
from keystoneauth1 import session as ksa_session
from oslo_log import log as logging
import requests
import requests.adapters
import requests.auth
import requests.structures
import requests.utils

from nova_lite import conf as nl_conf

LOG = logging.getLogger(__name__)
CONF = nl_conf.CONF

DEFAULT_MICROVERSION = '1.39'
CONCURRENT_UPDATE = 'placement.concurrent_update'


class PlacementClientError(Exception):
    """Base of the client's errors."""


class PlacementUnreachable(PlacementClientError):
    pass


class PlacementError(PlacementClientError):
    def __init__(self, method, url, status, code, detail):
        self.method, self.url, self.status = method, url, status
        self.code, self.detail = code, detail
        super().__init__('%s %s answered %d %s: %s'
                         % (method, url, status, code, detail))


class PlacementConflict(PlacementError):
    @property
    def is_generation_conflict(self):
        return self.code == CONCURRENT_UPDATE


class PlacementNotFound(PlacementError):
    pass


def _error_for(response):
    try:
        first = response.json()['errors'][0]
        code, detail = first.get('code'), first.get('detail')
    except (ValueError, KeyError, IndexError, TypeError):
        code, detail = None, response.text[:500]
    cls = {409: PlacementConflict, 404: PlacementNotFound}.get(
        response.status_code, PlacementError)
    return cls(response.request.method, response.request.url,
               response.status_code, code, detail)


class WSGIAdapter(requests.adapters.BaseAdapter):
    """A requests transport that calls a WSGI application in-process."""

    def __init__(self, app):
        super().__init__()
        self.app = app

    def _environ(self, request):
        url = urllib.parse.urlsplit(request.url)
        body = request.body or b''
        if isinstance(body, str):
            body = body.encode('utf-8')
        environ = {
            'REQUEST_METHOD': request.method, 'SCRIPT_NAME': '',
            # NOTE(nova_lite): PEP 3333 - the raw path bytes as latin-1.
            'PATH_INFO': urllib.parse.unquote_to_bytes(
                url.path or '/').decode('latin-1'),
            'QUERY_STRING': url.query, 'SERVER_NAME': url.hostname or 'x',
            'SERVER_PORT': str(url.port or 80), 'SERVER_PROTOCOL':
            'HTTP/1.1', 'wsgi.version': (1, 0), 'wsgi.url_scheme':
            url.scheme or 'http', 'wsgi.input': io.BytesIO(body),
            'wsgi.errors': io.StringIO(), 'wsgi.multithread': True,
            'wsgi.multiprocess': False, 'wsgi.run_once': False,
            'CONTENT_LENGTH': str(len(body)),
        }
        for name, value in request.headers.items():
            key = name.upper().replace('-', '_')
            if key == 'CONTENT_TYPE':
                environ['CONTENT_TYPE'] = value
            elif key != 'CONTENT_LENGTH':
                environ['HTTP_' + key] = value
        return environ

    def send(self, request, **kwargs):
        captured = {}

        def start_response(status, headers, exc_info=None):
            captured['status'], captured['headers'] = status, headers

        chunks = self.app(self._environ(request), start_response)
        try:
            body = b''.join(chunks)
        finally:
            if hasattr(chunks, 'close'):
                chunks.close()
        response = requests.Response()
        response.status_code = int(captured['status'].split(' ', 1)[0])
        response.reason = captured['status'].partition(' ')[2]
        response.headers = requests.structures.CaseInsensitiveDict(
            captured['headers'])
        response._content = body
        response.url = request.url
        response.request = request
        response.encoding = 'utf-8'
        return response

    def close(self):
        pass


def _token_session(session):
    """A session for Keystone token requests: the transports of
    ``session`` (in-process ones in tests too), but not its auth hook."""
    token_session = requests.Session()
    for prefix, adapter in session.adapters.items():
        token_session.mount(prefix, adapter)
    return token_session


class KeystoneTokenAuth(requests.auth.AuthBase):
    """Put a Keystone token in ``X-Auth-Token`` of every request.

    The token comes from keystoneauth1's password plugin, which caches it
    and gets a new one shortly before it expires (under its own lock, so
    the threads of one process share a token).
    """

    def __init__(self, plugin, timeout=30.0, http_session=None):
        self.plugin = plugin
        self.session = ksa_session.Session(auth=plugin, timeout=timeout,
                                           session=http_session)

    @classmethod
    def from_conf(cls, group, http_session=None):
        """The ``[placement] auth_type = password`` settings as an auth;
        ``http_session`` (a requests.Session) carries the token requests."""
        loader = ksa_loading.get_plugin_loader('password')
        plugin = loader.load_from_options(
            auth_url=group.auth_url, username=group.username,
            password=group.password, project_name=group.project_name,
            user_domain_name=group.user_domain_name,
            project_domain_name=group.project_domain_name)
        return cls(plugin, group.timeout, http_session)

    def invalidate(self):
        self.plugin.invalidate()

    def __call__(self, request):
        try:
            token = self.plugin.get_token(self.session)
        except ksa_exceptions.ConnectFailure:
            raise
        except ksa_exceptions.ClientException as exc:
            raise PlacementClientError(
                'no Keystone token for placement: %s' % exc)
        request.headers['X-Auth-Token'] = token
        return request


def environment_session(endpoint):
    """A ``requests.Session`` for ``endpoint`` that reads the proxy and CA
    bundle settings of the environment once, here, instead of on every
    request (requests scans all of ``os.environ`` twice per request when
    ``trust_env`` is on: more than placement's own work on a small
    request)."""
    session = requests.Session()
    session.proxies.update(requests.utils.get_environ_proxies(endpoint))
    bundle = (os.environ.get('REQUESTS_CA_BUNDLE') or
              os.environ.get('CURL_CA_BUNDLE'))
    if bundle:
        session.verify = bundle
    session.trust_env = False
    return session


class PlacementClient:
    """Typed calls to placement; one instance per process is enough."""

    def __init__(self, endpoint=None, session=None, conf=None):
        conf = conf or CONF
        group = conf.placement
        self.endpoint = (endpoint or group.endpoint).rstrip('/')
        self.session = session or environment_session(self.endpoint)
        self.timeout = group.timeout
        self.connect_retries = group.connect_retries
        self.retry_delay = group.connect_retry_delay
        self.keystone = None
        if group.auth_type == 'http_basic':
            self.session.auth = (group.username or '', group.password or '')
        elif group.auth_type == 'password':
            self.keystone = KeystoneTokenAuth.from_conf(
                group, _token_session(self.session))
            self.session.auth = self.keystone
        else:
            self.session.headers['X-Auth-Token'] = group.token

    # -- transport -------------------------------------------------------

    def request(self, method, path, body=None, microversion=None,
                params=None, expected=(200, 201, 204)):
        """Send one request; parsed JSON (or None) for expected statuses."""
        url = self.endpoint + path
        headers = {'OpenStack-API-Version': 'placement %s'
                   % (microversion or DEFAULT_MICROVERSION),
                   'Accept': 'application/json'}
        data = None
        if body is not None:
            headers['Content-Type'] = 'application/json'
            data = json.dumps(body)
        response = self._send(method, url, headers, data, params)
        if response.status_code == 401 and self.keystone is not None:
            # NOTE(nova_lite): the token was revoked or expired early
            # (keystone restarted with new keys): get a new one, once.
            LOG.info('Placement refused the Keystone token (401): '
                     'getting a new one')
            self.keystone.invalidate()
            response = self._send(method, url, headers, data, params)
        if response.status_code not in expected:
            raise _error_for(response)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def _send(self, method, url, headers, data, params):
        for attempt in range(self.connect_retries + 1):
            try:
                return self.session.request(method, url, headers=headers,
                                            data=data, params=params,
                                            timeout=self.timeout)
            except (requests.ConnectionError,
                    ksa_exceptions.ConnectFailure) as exc:
                if attempt == self.connect_retries:
                    raise PlacementUnreachable(
                        'placement at %s unreachable: %s'
                        % (self.endpoint, exc))
                # NOTE(nova_lite): DEBUG: the caller logs the outage once
                # if the retries do not help (a compute once per period).
                LOG.debug('Placement connection failed (%s), retry %d/%d',
                          exc, attempt + 1, self.connect_retries)
                time.sleep(self.retry_delay)
            except requests.Timeout as exc:
                # NOTE(nova_lite): not retried: placement may have applied
                # the request (a claim made); the caller decides.
                raise PlacementUnreachable(
                    'placement at %s did not answer %s %s within %ss: %s'
                    % (self.endpoint, method, url, self.timeout, exc))

    # -- resource providers -----------------------------------------------

    def get_provider(self, uuid):
        return self.request('GET', '/resource_providers/%s' % uuid)

    def list_providers(self, **filters):
        return self.request('GET', '/resource_providers',
                            params=filters)['resource_providers']

    def create_provider(self, name, uuid=None, parent_provider_uuid=None):
        body = {'name': name}
        if uuid:
            body['uuid'] = uuid
        if parent_provider_uuid:
            body['parent_provider_uuid'] = parent_provider_uuid
        return self.request('POST', '/resource_providers', body)

    def delete_provider(self, uuid):
        self.request('DELETE', '/resource_providers/%s' % uuid)

    # -- inventories, traits, aggregates ------------------------------------

    def get_inventories(self, uuid):
        return self.request('GET', '/resource_providers/%s/inventories'
                            % uuid)

    def set_inventories(self, uuid, generation, inventories):
        return self.request(
            'PUT', '/resource_providers/%s/inventories' % uuid,
            {'resource_provider_generation': generation,
             'inventories': inventories})

    def get_traits(self, uuid):
        return self.request('GET', '/resource_providers/%s/traits' % uuid)

    def set_traits(self, uuid, generation, traits):
        return self.request('PUT', '/resource_providers/%s/traits' % uuid,
                            {'resource_provider_generation': generation,
                             'traits': list(traits)})

    def ensure_trait(self, name):
        self.request('PUT', '/traits/%s' % name)

    def ensure_resource_class(self, name):
        self.request('PUT', '/resource_classes/%s' % name)

    def get_aggregates(self, uuid):
        return self.request('GET', '/resource_providers/%s/aggregates'
                            % uuid)

    def set_aggregates(self, uuid, generation, aggregates):
        return self.request(
            'PUT', '/resource_providers/%s/aggregates' % uuid,
            {'resource_provider_generation': generation,
             'aggregates': list(aggregates)})

    # -- allocations and usages ---------------------------------------------

    def get_allocations(self, consumer_uuid):
        return self.request('GET', '/allocations/%s' % consumer_uuid)

    def put_allocations(self, consumer_uuid, allocations, project_id,
                        user_id, consumer_generation=None,
                        consumer_type='INSTANCE'):
        """Replace a consumer's allocations ({rp: {'resources': {...}}})."""
        self.request('PUT', '/allocations/%s' % consumer_uuid,
                     {'allocations': allocations, 'project_id': project_id,
                      'user_id': user_id,
                      'consumer_generation': consumer_generation,
                      'consumer_type': consumer_type})

    def post_allocations(self, body):
        """Write several consumers' allocations atomically (1.38 shape)."""
        self.request('POST', '/allocations', body)

    def delete_allocations(self, consumer_uuid):
        self.request('DELETE', '/allocations/%s' % consumer_uuid)

    def get_provider_allocations(self, uuid):
        return self.request('GET', '/resource_providers/%s/allocations'
                            % uuid)

    def get_usages(self, uuid):
        return self.request('GET', '/resource_providers/%s/usages' % uuid)

    def get_capacity(self, uuids=None):
        """Every provider (or those of ``uuids``) with inventories, usages,
        traits and aggregates (``GET /nova_lite/capacity``, a nova_lite
        placement extension)."""
        path = '/nova_lite/capacity'
        if uuids is not None:
            path += '?uuids=' + ','.join(uuids)
        return self.request('GET', path)['resource_providers']

    def get_capacity_usages(self):
        """``[[uuid, generation, {rc: used}]]`` of every provider."""
        return self.request('GET', '/nova_lite/capacity/usages')['usages']

    def get_capacity_fingerprint(self):
        """Text that changes whenever :meth:`get_capacity` would."""
        return self.request('GET', '/nova_lite/capacity/fingerprint')[
            'fingerprint']

    def get_project_usages(self, project_id, user_id=None):
        params = {'project_id': project_id}
        if user_id:
            params['user_id'] = user_id
        return self.request('GET', '/usages', params=params)['usages']

    def get_allocation_candidates(self, params, microversion='1.39'):
        """``GET /allocation_candidates``: ``allocation_requests`` and
        ``provider_summaries`` in the shape of ``microversion``. ``params``
        is a dict or a list of pairs (repeated ``member_of``)."""
        return self.request('GET', '/allocation_candidates', params=params,
                            microversion=microversion)

    def reshape(self, inventories, allocations, microversion='1.38'):
        """``POST /reshaper``: replace the inventories of several providers
        and the allocations of several consumers atomically.

        :param inventories: {rp uuid: {"resource_provider_generation",
            "inventories"}}
        :param allocations: {consumer uuid: {"allocations", "project_id",
            "user_id", "consumer_generation"[, "consumer_type"]}}
        :raises PlacementConflict: a provider or consumer generation
            changed (nothing was written).
        """
        self.request('POST', '/reshaper', {'inventories': inventories,
                                           'allocations': allocations},
                     microversion=microversion)


def in_process_client(app, conf=None, endpoint='http://placement.invalid'):
    """A :class:`PlacementClient` whose requests go straight to ``app``."""
    session = requests.Session()
    adapter = WSGIAdapter(app)
    session.mount('http://', adapter)
    session.mount('https://', adapter)
    return PlacementClient(endpoint=endpoint, session=session, conf=conf)
