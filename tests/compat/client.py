"""A small admin client for a live Placement, used to set up and wipe data.

It speaks the public REST API only (noauth2 ``admin`` token by default), so
it works against nova_lite, OpenStack Placement or any compatible service.
Each call names the microversion it needs; a response outside 2xx raises
:class:`PlacementError` with the status and the body's first line.
"""

import requests

STANDARD_PREFIX_CUSTOM = 'CUSTOM_'


class PlacementError(Exception):
    pass


class PlacementClient:
    def __init__(self, endpoint, token='admin', timeout=60):
        self.endpoint = endpoint.rstrip('/')
        self.session = requests.Session()
        self.session.headers.update({'x-auth-token': token,
                                     'accept': 'application/json'})
        self.timeout = timeout

    def request(self, method, path, version, body=None, ok=()):
        """The response to ``method path``; raises unless it is 2xx or
        its status is in ``ok``."""
        headers = {'openstack-api-version': 'placement %s' % version}
        resp = self.session.request(method, self.endpoint + path,
                                    json=body, headers=headers,
                                    timeout=self.timeout)
        if not resp.ok and resp.status_code not in ok:
            first = (resp.text.strip().splitlines() or [''])[0][:200]
            raise PlacementError('%s %s (%s): %s %s' % (
                method, path, version, resp.status_code, first))
        return resp

    # Reads.

    def providers(self):
        return self.request('GET', '/resource_providers',
                            '1.14').json()['resource_providers']

    def generation(self, rp_uuid):
        return self.request('GET', '/resource_providers/%s' % rp_uuid,
                            '1.14').json()['generation']

    # What upstream's fixtures do through the object layer.

    def create_provider(self, name, *aggs, uuid, parent=None):
        body = {'name': name, 'uuid': uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        self.request('POST', '/resource_providers', '1.14', body)
        if aggs:
            self.set_aggregates(uuid, aggs)
        return uuid

    def set_aggregates(self, rp_uuid, aggs):
        # NOTE(nova_lite): 1.1's list body, as the object call upstream's
        # fixtures make: it does not bump the provider generation (1.19's
        # form does), and tests read generations.
        self.request('PUT', '/resource_providers/%s/aggregates' % rp_uuid,
                     '1.1', list(aggs))

    def ensure_resource_class(self, name):
        if name.startswith(STANDARD_PREFIX_CUSTOM):
            self.request('PUT', '/resource_classes/%s' % name, '1.7')

    def add_inventory(self, rp_uuid, rc, total, **fields):
        self.ensure_resource_class(rc)
        fields.setdefault('max_unit', total)
        body = dict(fields, resource_class=rc, total=total,
                    resource_provider_generation=self.generation(rp_uuid))
        self.request('POST', '/resource_providers/%s/inventories' % rp_uuid,
                     '1.14', body)

    def set_traits(self, rp_uuid, *traits):
        for name in traits:
            if name.startswith(STANDARD_PREFIX_CUSTOM):
                self.request('PUT', '/traits/%s' % name, '1.6')
        body = {'traits': list(traits),
                'resource_provider_generation': self.generation(rp_uuid)}
        self.request('PUT', '/resource_providers/%s/traits' % rp_uuid,
                     '1.6', body)

    def set_allocation(self, consumer, rp_uuid, resources, project_id,
                       user_id):
        """A new consumer's allocations, all against one provider."""
        body = {'allocations': {rp_uuid: {'resources': resources}},
                'project_id': project_id, 'user_id': user_id,
                'consumer_generation': None}
        self.request('PUT', '/allocations/%s' % consumer, '1.28', body)

    # Back to an empty service.

    def wipe(self):
        """Delete every allocation, provider (leaves first), custom
        resource class and custom trait."""
        providers = self.providers()
        consumers = set()
        for rp in providers:
            resp = self.request(
                'GET', '/resource_providers/%s/allocations' % rp['uuid'],
                '1.14')
            consumers.update(resp.json()['allocations'])
        for consumer in sorted(consumers):
            self.request('DELETE', '/allocations/%s' % consumer, '1.14',
                         ok=(404,))
        parents = {rp['uuid']: rp.get('parent_provider_uuid')
                   for rp in providers}
        for rp_uuid in sorted(parents, key=lambda u: -_depth(u, parents)):
            self.request('DELETE', '/resource_providers/%s' % rp_uuid,
                         '1.14', ok=(404,))
        classes = self.request('GET', '/resource_classes',
                               '1.7').json()['resource_classes']
        for rc in classes:
            if rc['name'].startswith(STANDARD_PREFIX_CUSTOM):
                self.request('DELETE', '/resource_classes/%s' % rc['name'],
                             '1.7', ok=(404,))
        traits = self.request('GET', '/traits?name=startswith:CUSTOM_',
                              '1.6').json()['traits']
        for name in traits:
            self.request('DELETE', '/traits/%s' % name, '1.6', ok=(404,))


def _depth(rp_uuid, parents):
    depth = 0
    while parents.get(rp_uuid):
        rp_uuid = parents[rp_uuid]
        depth += 1
    return depth
