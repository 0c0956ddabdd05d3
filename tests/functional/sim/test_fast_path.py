"""The fast replay path decides exactly what the full scheduler decides.

Random workloads (several seeds, three flavors and resource-only
creates, deletes, a cloud small enough to fill up so that NoValidHost
happens) are replayed twice per configuration: once with every create
through ``SchedulerManager.schedule`` and placement's
``GET /allocation_candidates`` (``exact``), once through
:mod:`nova_lite.sim.fast`. Every create's outcome, host, explanation and
full decision record (but its time stamp), the utilisation timeline and
the usages placement holds at the end must be the same; the fast run
must have decided through the fast path, and its usage table must match
its placement database.
"""

import json
import os
import random

import fixtures
import testtools

from nova_lite.cmd import manage
from nova_lite import conf as nl_conf
from nova_lite import objects
from nova_lite.sim import cloud
from nova_lite.sim import runner
from nova_lite.sim import snapshot
from nova_lite.sim import workload
from nova_lite import testing
from nova_lite.testing import placement_fixture

CONF = nl_conf.CONF
HOSTS = 24

CONFIGS = {
    'pack': '[filter_scheduler]\nram_weight_multiplier = -1.0\n'
            'cpu_weight_multiplier = -1.0\ndisk_weight_multiplier = -1.0\n',
    'spread': '[filter_scheduler]\nram_weight_multiplier = 1.0\n'
              'cpu_weight_multiplier = 1.0\n',
    # Random picks among the best three, ties shuffled, and more filters
    # (per-host counters, aggregate ratios and tenancy, metrics).
    'subset': '[filter_scheduler]\nhost_subset_size = 3\n'
              'shuffle_best_same_weighed_hosts = true\n'
              'max_instances_per_host = 6\nmax_io_ops_per_host = 2\n'
              'enabled_filters = ComputeFilter,AvailabilityZoneFilter,'
              'ImagePropertiesFilter,NumInstancesFilter,IoOpsFilter,'
              'AggregateRamFilter,AggregateCoreFilter,'
              'AggregateMultiTenancyIsolation,'
              'AggregateInstanceExtraSpecsFilter,'
              'ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter,'
              'SameHostFilter,DifferentHostFilter\n'
              'io_ops_weight_multiplier = -2.0\n'
              'num_instances_weight_multiplier = 1.5\n',
    # Placement answers its first 7 fitting hosts only.
    'limit': '[filter_scheduler]\nram_weight_multiplier = -1.0\n'
             '[scheduler]\nmax_placement_results = 7\n',
}


def _uuid(index):
    return '00000000-0000-4000-8000-%012d' % index


def cloud_doc(seed):
    """Hosts of several sizes, ratios and reserved amounts, existing
    usage, a trait, a custom class, a disabled node, two nodes on some
    hosts, aggregates with a weight override, a RAM ratio and a tenant."""
    rng = random.Random(seed)
    providers, hypervisors = [], []
    for i in range(HOSTS):
        vcpus = rng.choice([8, 16, 24])
        ram = rng.choice([16384, 32768, 65536])
        inv = {'VCPU': {'total': vcpus,
                        'allocation_ratio': rng.choice([1.0, 2.0, 4.0])},
               'MEMORY_MB': {'total': ram,
                             'reserved': rng.choice([0, 512, 2048]),
                             'allocation_ratio': rng.choice([1.0, 1.5])},
               'DISK_GB': {'total': rng.choice([200, 500, 1000])}}
        if i % 5 == 0:
            inv['CUSTOM_GPU'] = {'total': 2}
        usages = {}
        if i % 4 == 1:
            usages = {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40}
        providers.append({'uuid': _uuid(i), 'name': 'node%02d' % i,
                          'inventories': inv, 'usages': usages,
                          'traits': ['CUSTOM_FAST'] if i % 3 == 0 else []})
        hypervisors.append({
            'id': _uuid(i), 'hypervisor_hostname': 'node%02d' % i,
            'service': {'host': 'compute%02d' % (i // 2 if i < 8 else i)},
            'status': 'disabled' if i == 5 else 'enabled', 'state': 'up'})
    aggregates = [
        {'name': 'heavy', 'uuid': _uuid(900),
         'hosts': ['compute%02d' % i for i in (9, 10, 11)],
         'metadata': {'ram_weight_multiplier': '3.0',
                      'ram_allocation_ratio': '0.5'}},
        {'name': 'tenant', 'uuid': _uuid(901),
         'hosts': ['compute12', 'compute13'],
         'metadata': {'filter_tenant_id': 'p1'}}]
    flavors = [
        {'name': 'small', 'vcpus': 1, 'ram': 2048, 'disk': 20},
        {'name': 'medium', 'vcpus': 4, 'ram': 8192, 'disk': 40},
        {'name': 'large', 'vcpus': 8, 'ram': 16384, 'disk': 80},
        {'name': 'fast', 'vcpus': 2, 'ram': 4096, 'disk': 20,
         'extra_specs': {'trait:CUSTOM_FAST': 'required'}},
        {'name': 'gpu', 'vcpus': 2, 'ram': 4096, 'disk': 20,
         'extra_specs': {'resources:CUSTOM_GPU': '1',
                         'trait:CUSTOM_FAST': 'forbidden'}}]
    return snapshot.validate({'providers': providers, 'flavors': flavors,
                              'aggregates': aggregates,
                              'hypervisors': hypervisors})


def trace(seed, count=160):
    """Creates and deletes; a few creates with resources, hints or
    image properties (those hints take the full path)."""
    events = workload.generate(
        {'small': 5, 'medium': 3, 'large': 2, 'fast': 1, 'gpu': 1}, count,
        rate=2.0, lifetime=70.0, projects=3, seed=seed)
    rng = random.Random(seed)
    creates = [e for e in events if e['action'] == 'create']
    for event in rng.sample(creates, 12):
        kind = rng.randrange(3)
        if kind == 0:
            del event['flavor']
            event['resources'] = {'VCPU': 3, 'MEMORY_MB': 3072,
                                  'DISK_GB': 30}
        elif kind == 1:
            earlier = [e['id'] for e in creates
                       if e['time'] < event['time']]
            if earlier:
                event['hints'] = {'different_host': [earlier[-1]]}
        else:
            event['image_properties'] = {'hw_architecture': 'x86_64'}
    return events


def _decisions(path):
    rows = []
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            if row.get('decision'):
                row['decision'].pop('at', None)
            rows.append(row)
    return rows


class FastPathEquivalenceTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        objects.register_all()
        placement_fixture.ensure_parsed(CONF)
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def _placement_usages(self, name):
        client = cloud.start_placement(CONF, cloud.database_path(
            self.workdir, name))
        try:
            return {p['uuid']: {rc: n for rc, n in p['usages'].items() if n}
                    for p in client.get_capacity()}
        finally:
            cloud.stop_placement(CONF)

    def _replay(self, doc, events, conf_name, seed, exact):
        name = '%s-%d-%s' % (conf_name, seed, 'exact' if exact else 'fast')
        conf_path = os.path.join(self.workdir, conf_name + '.conf')
        with open(conf_path, 'w') as f:
            f.write(CONFIGS[conf_name])
        decisions = os.path.join(self.workdir, name + '.jsonl')
        kept = []
        rep = runner.run_one(doc, events, conf_path, self.seeded,
                             self.workdir,
                             name, seed=seed, decisions_path=decisions,
                             samples=8, exact=exact, keep=kept)
        return name, rep, _decisions(decisions), kept[0]

    def _check(self, conf_name, seed):
        doc = cloud_doc(seed)
        events = trace(seed)
        self.workdir = os.path.join(self.tmp, 'seed%d' % seed)
        os.makedirs(self.workdir)
        self.seeded, _refused = runner.seed_database(doc, self.workdir)
        e_name, exact, e_rows, _e = self._replay(doc, events, conf_name,
                                                 seed, True)
        f_name, fast, f_rows, replay = self._replay(doc, events, conf_name,
                                                    seed, False)
        self.assertEqual(len(e_rows), len(f_rows))
        for e_row, f_row in zip(e_rows, f_rows, strict=True):
            self.assertEqual(e_row, f_row)
        self.assertEqual(exact['timeline'], fast['timeline'])
        self.assertEqual(exact['utilisation'], fast['utilisation'])
        placed = [r for r in e_rows if r['result'] == 'placed']
        failed = [r for r in e_rows if r['result'] != 'placed']
        self.assertGreater(len(placed), 50)
        paths = fast['paths']
        self.assertIsNone(paths['whole_run_exact_because'])
        self.assertEqual(0, paths['mismatched_shapes'])
        self.assertGreater(paths['fast'], len(e_rows) // 2)
        self.assertGreater(paths['exact'], 0)   # the hinted creates
        self.assertEqual(0, exact['paths']['fast'])
        # Placement holds the same usages after both runs, and the fast
        # run's table is what its placement holds.
        e_usages = self._placement_usages(e_name)
        f_usages = self._placement_usages(f_name)
        self.assertEqual(e_usages, f_usages)
        table = {p['uuid']: p['usages'] for p in replay.fast.capacity()}
        self.assertEqual(f_usages, table)
        return placed, failed

    def test_pack(self):
        failed = []
        for seed in (0, 1, 2):
            failed += self._check('pack', seed)[1]
        self.assertTrue(failed)     # the cloud fills up

    def test_spread(self):
        for seed in (3, 4):
            self._check('spread', seed)

    def test_subset_and_filters(self):
        failed = []
        for seed in (5, 6):
            failed += self._check('subset', seed)[1]
        reasons = {r.get('reason') or '' for r in failed}
        self.assertTrue(any('Filter' in r for r in reasons), reasons)

    def test_limited_candidates(self):
        for seed in (7, 8):
            self._check('limit', seed)


class ExactFlagTest(testtools.TestCase):
    """``sim run --exact`` takes the full path for every create and
    writes the decisions the default run writes."""

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.tmp = self.useFixture(fixtures.TempDir()).path
        stdout = self.useFixture(fixtures.StringStream('stdout'))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', stdout.stream))

    def _path(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_exact_and_fast_runs_agree(self):
        snap = os.path.join(self.tmp, 'snapshot.json')
        snapshot.save(cloud_doc(9), snap)
        trace_path = self._path('trace.jsonl', ''.join(
            json.dumps(e) + '\n' for e in trace(9, count=60)))
        conf = self._path('spread.conf', CONFIGS['spread'])
        outputs = {}
        for label, extra in (('fast', []), ('exact', ['--exact'])):
            out = os.path.join(self.tmp, label)
            self.assertEqual(0, manage.main(
                ['sim', 'run', '--snapshot', snap, '--workload', trace_path,
                 '--config', conf, '-o', out, '--seed', '9'] + extra))
            with open(os.path.join(out, 'spread.json')) as f:
                outputs[label] = (json.load(f), _decisions(
                    os.path.join(out, 'spread.decisions.jsonl')))
        fast, exact = outputs['fast'], outputs['exact']
        self.assertEqual(exact[1], fast[1])
        self.assertEqual(0, exact[0]['paths']['fast'])
        self.assertEqual('exact replay asked',
                         exact[0]['paths']['whole_run_exact_because'])
        self.assertGreater(fast[0]['paths']['fast'], 30)
