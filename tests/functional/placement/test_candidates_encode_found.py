"""The answer of GET /allocation_candidates is encoded straight from the
search (requests in ids, summaries from the providers); its text must be
the one json.dumps gives of the named requests and Summary objects, for
nested trees, sharing providers, traits and every microversion shape."""

import json
from unittest import mock
import uuid

import testtools
import webob

from nova_lite.placement.handlers import candidate_encode
from nova_lite.testing import placement_fixture

AGG = str(uuid.uuid4())
# (query, first microversion that takes it)
QUERIES = [
    ('resources=VCPU:1,DISK_GB:10', '1.10'),
    ('resources=VCPU:1&required=HW_CPU_X86_AVX2', '1.17'),
    ('resources=VCPU:1,DISK_GB:10&member_of=' + AGG, '1.21'),
    ('resources=VCPU:1&limit=1', '1.16'),
    ('resources1=VCPU:1&resources2=SRIOV_NET_VF:1&group_policy=isolate',
     '1.25'),
    ('resources=VCPU:1,SRIOV_NET_VF:1&required=!STORAGE_DISK_SSD', '1.22'),
]
VERSIONS = ['1.10', '1.12', '1.17', '1.26', '1.27', '1.29', '1.34', '1.36']


def _version(text):
    return tuple(int(part) for part in text.split('.'))


class TestFoundEncoding(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.app = self.useFixture(placement_fixture.PlacementFixture()).app
        for i in range(2):
            root = self._provider('cn%d' % i, {'VCPU': 8, 'MEMORY_MB': 512},
                                  traits=['HW_CPU_X86_AVX2'] if i else [])
            self._provider('cn%d-pf' % i, {'SRIOV_NET_VF': 4}, parent=root,
                           traits=['CUSTOM_PHYSNET_A'])
            self._aggregates(root, 2 if i else 1)
        disk = self._provider('disk', {'DISK_GB': 100},
                              traits=['MISC_SHARES_VIA_AGGREGATE',
                                      'STORAGE_DISK_SSD'])
        self._aggregates(disk, 2)

    def _call(self, method, path, body=None, version='1.36'):
        headers = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
                   'Content-Type': 'application/json',
                   'OpenStack-API-Version': 'placement ' + version}
        request = webob.Request.blank(path, method=method, headers=headers)
        if body is not None:
            request.body = json.dumps(body).encode()
        response = request.get_response(self.app)
        self.assertLess(response.status_int, 300, response.text)
        return response

    def _provider(self, name, inventory, parent=None, traits=()):
        rp = str(uuid.uuid4())
        body = {'name': name, 'uuid': rp}
        if parent:
            body['parent_provider_uuid'] = parent
        self._call('POST', '/resource_providers', body)
        self._call('PUT', '/resource_providers/%s/inventories' % rp,
                   {'resource_provider_generation': 0,
                    'inventories': {rc: {'total': total}
                                    for rc, total in inventory.items()}})
        for trait in traits:
            if trait.startswith('CUSTOM_'):
                self._call('PUT', '/traits/%s' % trait)
        if traits:
            self._call('PUT', '/resource_providers/%s/traits' % rp,
                       {'resource_provider_generation': 1,
                        'traits': list(traits)})
        return rp

    def _aggregates(self, rp, generation):
        self._call('PUT', '/resource_providers/%s/aggregates' % rp,
                   {'resource_provider_generation': generation,
                    'aggregates': [AGG]})

    def test_same_text_as_the_encoder_of_the_named_answer(self):
        encode = candidate_encode.encode
        checked = []

        def checking(candidates, want):
            text = encode(candidates, want)
            named = candidate_encode.serialize(candidates, want)
            self.assertEqual(json.dumps(named, separators=(',', ':')), text)
            checked.append(len(named['allocation_requests']))
            return text

        with mock.patch.object(candidate_encode, 'encode', checking):
            for version in VERSIONS:
                for query, first in QUERIES:
                    if _version(version) < _version(first):
                        continue
                    self._call('GET', '/allocation_candidates?' + query,
                               version=version)
        self.assertGreater(sum(checked), 40)
