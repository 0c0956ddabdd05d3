"""Two schedulers racing 200 builds over 50 hosts: nobody over-allocates.

Two scheduler managers (each with its own host cache, as two
nova-lite-scheduler processes would have) share one in-process placement
and two SQLite cells. 50 hosts fit 3 one-vCPU instances each (150 slots);
each scheduler builds 100 instances from its own thread. Placement must
refuse every claim beyond capacity: the result reports the builds placed,
the NoValidHosts, the claims that were retried on the same host (provider
generation races) and the refused claims that moved on to another host,
and checks no provider's usage exceeds its inventory.
"""

import threading
import time
import uuid

import fixtures

from nova_lite.clients import placement as placement_client
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.testing import placement_fixture
from nova_lite.scheduler import manager as sched_manager
from nova_lite import testing
from tests.functional.scheduler import helpers

HOSTS = 50
SLOTS_PER_HOST = 3
BUILDS = 200


class _Cloud(fixtures.Fixture):

    def _setUp(self):
        self.useFixture(testing.ConfFixture(service_down_time=86400))
        self.dbs = self.useFixture(testing.DatabaseFixture(
            cells=('cell1', 'cell2')))
        self.placement = self.useFixture(
            placement_fixture.PlacementFixture()).client
        self.nodes = []
        for index in range(HOSTS):
            self.nodes.extend(helpers.add_compute(
                self.dbs, 'cell1' if index % 2 else 'cell2',
                'host%d' % index, vcpus=SLOTS_PER_HOST, memory_mb=65536,
                disk_gb=1000, placement=self.placement))


def _build(mgr, spec, count, outcome, lock):
    ctxt = nl_context.get_admin_context()
    for _ in range(count):
        try:
            mgr.schedule(ctxt, spec, [str(uuid.uuid4())],
                         return_alternates=False)
            key = 'placed'
        except exception.NoValidHost:
            key = 'no_valid_host'
        with lock:
            outcome[key] += 1


def run(args):
    objects.register_all()
    builds = 60 if args.quick else BUILDS
    with _Cloud() as cloud:
        try:
            cloud.placement.get_allocation_candidates(
                {'resources': 'VCPU:1'}, microversion='1.36')
        except placement_client.PlacementError:
            return {'rows': [], 'note': 'placement does not serve '
                    'allocation candidates; nothing measured'}
        managers = [sched_manager.SchedulerManager(
            host='sched%d' % i, placement=cloud.placement)
            for i in range(2)]
        spec = objects.RequestSpec.from_components(
            nl_context.get_admin_context(),
            flavor={'vcpus': 1, 'memory_mb': 512, 'root_gb': 1},
            project_id='p1', user_id='u1')
        outcome = {'placed': 0, 'no_valid_host': 0}
        lock = threading.Lock()
        threads = [threading.Thread(
            target=_build, args=(mgr, spec.obj_clone(), builds // 2,
                                 outcome, lock)) for mgr in managers]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        over = [node for node in cloud.nodes
                if cloud.placement.get_usages(node)['usages'].get(
                    'VCPU', 0) > SLOTS_PER_HOST]
        for mgr in managers:
            mgr.cleanup_host()
        stats = [mgr.claim_stats.as_dict() for mgr in managers]
        row = {'hosts': HOSTS, 'slots': HOSTS * SLOTS_PER_HOST,
               'builds': builds, 'placed': outcome['placed'],
               'no_valid_host': outcome['no_valid_host'],
               'over_allocated_hosts': len(over),
               'claims_retried_same_host': sum(s['retries'] for s in stats),
               'claims_refused': sum(s['conflicts'] - s['retries']
                                     for s in stats),
               'seconds': round(elapsed, 1)}
        return {'rows': [row]}
