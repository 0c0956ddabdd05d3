"""The compute and placement APIs over HTTP, as a lab user reaches them.

Every request is recorded (what, status, seconds) for the report's
"requests answered per status"; a request that gets no answer is recorded
as ``'no answer'`` and never raised, so the workload goes on and the
report says what happened. Each request's timeout is cut to the run's
deadline: no request outlives the scenario.
"""

import threading
import time

import requests

COMPUTE_VERSION = 'compute 2.95'
PLACEMENT_VERSION = 'placement 1.39'
NO_ANSWER = 'no answer'
# How long one request may take when the deadline is further away.
REQUEST_TIMEOUT = 30.0


class Recorder:
    """The requests made so far: ``[(kind, status, seconds)]``."""

    def __init__(self):
        self._lock = threading.Lock()
        self.requests = []

    def add(self, kind, status, seconds):
        with self._lock:
            self.requests.append((kind, status, seconds))


class Client:
    """One service's HTTP API with a token (noauth2 takes it as is)."""

    def __init__(self, endpoint, version, token, recorder, deadline):
        self.endpoint = endpoint.rstrip('/')
        self.headers = {'X-Auth-Token': token,
                        'OpenStack-API-Version': version}
        self.recorder = recorder
        self.deadline = deadline
        self.session = requests.Session()

    def request(self, method, path, body=None, kind=None, headers=None):
        """``(status, body)``; status is NO_ANSWER when none came."""
        timeout = max(0.5, min(REQUEST_TIMEOUT,
                               self.deadline() - time.monotonic()))
        started = time.monotonic()
        try:
            resp = self.session.request(
                method, self.endpoint + path, json=body, timeout=timeout,
                headers=dict(self.headers, **(headers or {})))
        except requests.RequestException:
            status, payload = NO_ANSWER, None
        else:
            status = resp.status_code
            try:
                payload = resp.json() if resp.content else None
            except ValueError:
                payload = None
        if kind is not None:
            self.recorder.add(kind, status, time.monotonic() - started)
        return status, payload


class ComputeAPI(Client):
    """What a scenario's workload does, and what the report reads."""

    def __init__(self, endpoint, token, recorder, deadline):
        super().__init__(endpoint + '/v2.1', COMPUTE_VERSION, token,
                         recorder, deadline)

    def flavor(self, name):
        status, body = self.request('GET', '/flavors/detail')
        for flavor in (body or {}).get('flavors', []):
            if name in (flavor['name'], flavor['id']):
                return flavor
        raise LookupError('no flavor %r (GET /flavors: %s)' % (name, status))

    def image_id(self, name):
        # The image proxy of the compute API ends at 2.35.
        status, body = self.request(
            'GET', '/images', headers={'OpenStack-API-Version':
                                       'compute 2.1'})
        for image in (body or {}).get('images', []):
            if name in (image['name'], image['id']):
                return image['id']
        raise LookupError('no image %r (GET /images: %s)' % (name, status))

    def boot(self, name, flavor_id, image_id):
        status, body = self.request(
            'POST', '/servers', kind='boot',
            body={'server': {'name': name, 'flavorRef': flavor_id,
                             'imageRef': image_id, 'networks': 'none'}})
        return (body or {}).get('server', {}).get('id') if status == 202 \
            else None

    def delete(self, server_id):
        return self.request('DELETE', '/servers/' + server_id,
                            kind='delete')[0]

    def action(self, server_id, kind, body):
        return self.request('POST', '/servers/%s/action' % server_id,
                            body=body, kind=kind)[0]

    def list(self):
        return self.request('GET', '/servers/detail', kind='list')[0]

    def server(self, server_id):
        """The server, None when gone, NO_ANSWER when unknown."""
        status, body = self.request('GET', '/servers/' + server_id)
        if status == 404:
            return None
        return body['server'] if status == 200 else NO_ANSWER

    def servers(self):
        """Every server of the lab, or None without an answer."""
        status, body = self.request('GET', '/servers/detail?all_tenants=1')
        return body['servers'] if status == 200 else None

    def compute_services(self):
        status, body = self.request('GET', '/os-services?binary=nova-compute')
        return body['services'] if status == 200 else None


class PlacementAPI(Client):

    def __init__(self, endpoint, token, recorder, deadline):
        super().__init__(endpoint, PLACEMENT_VERSION, token, recorder,
                         deadline)

    def allocations(self):
        """``{consumer: {resource class: amount}}`` over every provider,
        or None without an answer."""
        status, body = self.request('GET', '/resource_providers')
        if status != 200:
            return None
        found = {}
        for provider in body['resource_providers']:
            status, allocs = self.request(
                'GET', '/resource_providers/%s/allocations'
                % provider['uuid'])
            if status != 200:
                return None
            for consumer, alloc in allocs['allocations'].items():
                total = found.setdefault(consumer, {})
                for rc, amount in alloc['resources'].items():
                    total[rc] = total.get(rc, 0) + amount
        return found
