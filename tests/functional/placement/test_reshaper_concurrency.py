"""A reshape racing with claims, against a real placement.

A real ``nova-lite-placement`` (gunicorn, several workers) on SQLite and on
MariaDB. A compute root offers 16 VGPU, 4 of them used by 4 consumers.
While claimer threads keep asking ``GET /allocation_candidates`` for one
VGPU and claiming the first candidate, one thread reshapes: the VGPU
inventory moves to two child providers (8 each) and every VGPU allocation
on the root moves along, in one ``POST /reshaper`` (retried with fresh
generations on a 409, since the claims keep bumping the root).

Checked: the reshape eventually wins, no request ever gets a 500, no
provider ends above its capacity, the original consumers now use the
children, the root has no VGPU left and the VGPU in use equals the
original consumers plus the winning claims.
"""

import collections
import concurrent.futures
import random
import threading
import time
import uuid

import requests
import testtools

from tests import db_fixtures
from tests.functional.placement import server

HEADERS = {'X-Auth-Token': 'admin', 'Content-Type': 'application/json',
           'OpenStack-API-Version': 'placement 1.38'}
CLAIMERS = 12
CLAIMS_EACH = 6
RESHAPE_ATTEMPTS = 60
VGPU_PER_CHILD = 8
ORIGINAL_CONSUMERS = 4


class _ReshapeRace:
    workers = 4

    def _db_url(self):
        raise NotImplementedError

    def setUp(self):
        super().setUp()
        self.placement = self.useFixture(
            server.PlacementServer(self._db_url(), workers=self.workers))
        self.root = str(uuid.uuid4())
        self.children = [str(uuid.uuid4()), str(uuid.uuid4())]
        self._call('POST', '/resource_providers',
                   {'name': 'rs-root', 'uuid': self.root}, 200)
        for i, child in enumerate(self.children):
            self._call('POST', '/resource_providers',
                       {'name': 'rs-gpu%d' % i, 'uuid': child,
                        'parent_provider_uuid': self.root}, 200)
        self._call('PUT', '/resource_providers/%s/inventories' % self.root,
                   {'resource_provider_generation': 0,
                    'inventories': {'VCPU': {'total': 16},
                                    'VGPU': {'total': 2 * VGPU_PER_CHILD}}},
                   200)
        self.originals = [str(uuid.uuid4())
                          for _ in range(ORIGINAL_CONSUMERS)]
        for consumer in self.originals:
            self.assertEqual(204, self._claim_on(
                consumer, {self.root: {'VGPU': 1, 'VCPU': 1}}))
        self.reshaped = threading.Event()

    def _call(self, method, path, body=None, expected=None):
        response = requests.request(method, self.placement.endpoint + path,
                                    json=body, headers=HEADERS, timeout=120)
        if expected is not None:
            self.assertEqual(expected, response.status_code, response.text)
        return response

    def _claim_on(self, consumer, allocations):
        return self._call('PUT', '/allocations/%s' % consumer, {
            'allocations': {rp: {'resources': res}
                            for rp, res in allocations.items()},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'}).status_code

    # -- claimers ------------------------------------------------------------

    def _claim_once(self):
        response = self._call('GET', '/allocation_candidates?resources=VGPU:1'
                                     '&limit=5')
        if response.status_code != 200:
            return response.status_code
        requests_ = response.json()['allocation_requests']
        if not requests_:
            return 'none'
        choice = random.choice(requests_)['allocations']
        return self._claim_on(str(uuid.uuid4()), {
            rp: value['resources'] for rp, value in choice.items()})

    def _claimer(self, _index):
        statuses = []
        for _ in range(CLAIMS_EACH):
            time.sleep(random.uniform(0, 0.05))
            statuses.append(self._claim_once())
        return statuses

    # -- the reshape ----------------------------------------------------------

    def _vgpu_consumers(self):
        """{consumer: (generation, {rp: resources})} using VGPU on root."""
        on_root = self._call('GET', '/resource_providers/%s/allocations'
                             % self.root, expected=200).json()['allocations']
        result = {}
        for consumer, value in on_root.items():
            if 'VGPU' not in value['resources']:
                continue
            record = self._call('GET', '/allocations/%s' % consumer,
                                expected=200).json()
            result[consumer] = (record['consumer_generation'], {
                rp: dict(v['resources'])
                for rp, v in record['allocations'].items()})
        return result

    def _reshape_body(self):
        generations = {rp: self._call('GET', '/resource_providers/%s' % rp,
                                      expected=200).json()['generation']
                       for rp in [self.root] + self.children}
        allocations = {}
        for i, (consumer, (generation, current)) in enumerate(
                sorted(self._vgpu_consumers().items())):
            moved = {rp: dict(res) for rp, res in current.items()}
            vgpu = moved[self.root].pop('VGPU')
            if not moved[self.root]:
                del moved[self.root]
            moved[self.children[i % 2]] = {'VGPU': vgpu}
            allocations[consumer] = {
                'allocations': {rp: {'resources': res}
                                for rp, res in moved.items()},
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': generation,
                'consumer_type': 'INSTANCE'}
        inventories = {self.root: {'VCPU': {'total': 16}}}
        inventories.update({child: {'VGPU': {'total': VGPU_PER_CHILD}}
                            for child in self.children})
        return {'inventories': {
            rp: {'resource_provider_generation': generations[rp],
                 'inventories': inv} for rp, inv in inventories.items()},
            'allocations': allocations}

    def _reshaper(self):
        statuses = []
        time.sleep(0.1)
        for _ in range(RESHAPE_ATTEMPTS):
            status = self._call('POST', '/reshaper',
                                self._reshape_body()).status_code
            statuses.append(status)
            if status == 204:
                self.reshaped.set()
                return statuses
            time.sleep(random.uniform(0, 0.05))
        return statuses

    # -- the test -------------------------------------------------------------

    def _usage_within_capacity(self):
        used_vgpu = 0
        for rp in [self.root] + self.children:
            inv = self._call('GET', '/resource_providers/%s/inventories' % rp,
                             expected=200).json()['inventories']
            usages = self._call('GET', '/resource_providers/%s/usages' % rp,
                                expected=200).json()['usages']
            for rc, used in usages.items():
                self.assertIn(rc, inv, (rp, usages))
                capacity = ((inv[rc]['total'] - inv[rc]['reserved']) *
                            inv[rc]['allocation_ratio'])
                self.assertLessEqual(used, capacity, (rp, rc))
            used_vgpu += usages.get('VGPU', 0)
        return used_vgpu

    def test_claims_during_reshape_never_overallocate(self):
        with concurrent.futures.ThreadPoolExecutor(CLAIMERS + 1) as pool:
            reshape = pool.submit(self._reshaper)
            claims = list(pool.map(self._claimer, range(CLAIMERS)))
        reshape_statuses = reshape.result()
        claim_statuses = collections.Counter(s for c in claims for s in c)
        self.assertEqual(204, reshape_statuses[-1], reshape_statuses)
        self.assertEqual({204, 409}, set(reshape_statuses) | {409},
                         reshape_statuses)
        self.assertNotIn(500, claim_statuses, claim_statuses)
        self.assertLessEqual(set(claim_statuses), {204, 400, 409, 'none'},
                             claim_statuses)
        used_vgpu = self._usage_within_capacity()
        self.assertEqual(ORIGINAL_CONSUMERS + claim_statuses[204], used_vgpu,
                         claim_statuses)
        root_inv = self._call('GET', '/resource_providers/%s/inventories'
                              % self.root, expected=200).json()
        self.assertNotIn('VGPU', root_inv['inventories'])
        for consumer in self.originals:
            record = self._call('GET', '/allocations/%s' % consumer,
                                expected=200).json()['allocations']
            self.assertEqual({'VCPU': 1}, record[self.root]['resources'])
            on_children = [rp for rp in record if rp in self.children]
            self.assertEqual(1, len(on_children), record)


class TestReshapeRaceSQLite(_ReshapeRace, testtools.TestCase):
    def _db_url(self):
        return self.useFixture(db_fixtures.SQLiteDatabase(
            'placement.sqlite')).url


class TestReshapeRaceMySQL(_ReshapeRace, testtools.TestCase):
    def _db_url(self):
        return self.useFixture(db_fixtures.MySQLDatabase(
            self, prefix='nl_placement_reshape')).url
