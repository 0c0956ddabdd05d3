"""RequestWeighing: the weights kept between the instances of a request.

The incremental weighing must give what a full re-weigh of every host
per instance gives (the same hosts, order, weights and parts), so the
same host is chosen; and it must re-weigh only the consumed hosts.
"""

import copy
import random

from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.scheduler import decision
from nova_lite.scheduler import host_state
from nova_lite.scheduler import manager
from nova_lite.scheduler import weights
from tests.unit.scheduler import fakes
from tests.unit.scheduler import test_manager

_MULTIPLIERS = ('ram_weight_multiplier', 'disk_weight_multiplier',
                'cpu_weight_multiplier', 'io_ops_weight_multiplier',
                'num_instances_weight_multiplier',
                'build_failure_weight_multiplier',
                'soft_affinity_weight_multiplier',
                'soft_anti_affinity_weight_multiplier')


def _random_hosts(rng, count):
    """Hosts with few distinct values (ties, shared extremes), some in
    aggregates that override a multiplier."""
    overrides = [
        fakes.aggregate('ram', hosts=(), ram_weight_multiplier='-2.5'),
        fakes.aggregate('io', hosts=(), io_ops_weight_multiplier='3'),
        fakes.aggregate('bad', hosts=(), cpu_weight_multiplier='x'),
    ]
    hosts = []
    for index in range(count):
        aggs = [agg for agg in overrides if rng.random() < 0.15]
        hosts.append(fakes.fake_host(
            'h%d' % (index // rng.choice((1, 2, 3))),
            node='n%d' % index, aggregates=aggs,
            cell_uuid=rng.choice((fakes.CELL1, fakes.CELL2)),
            free_ram_mb=rng.choice((4096, 8192, 8192, 16384,
                                    rng.randrange(1024, 20000))),
            free_disk_mb=rng.choice((10240, 20480, 20480)),
            vcpus_total=rng.choice((4, 8, 16)),
            vcpus_used=rng.randrange(0, 4),
            cpu_allocation_ratio=rng.choice((1.0, 1.5, 16.0)),
            num_io_ops=rng.randrange(0, 3),
            num_instances=rng.randrange(0, 4),
            failed_builds=rng.choice((0, 0, 0, 1)),
            metrics={'cpu.percent': rng.choice((0.1, 0.5, 0.9))}
            if rng.random() < 0.8 else {}))
    return hosts


def _random_spec(rng):
    policy = rng.choice((None, None, 'soft-affinity', 'soft-anti-affinity'))
    kwargs = {}
    if policy:
        kwargs['instance_group'] = fakes.group(policy)
    return fakes.fake_spec(memory_mb=rng.choice((512, 2048)),
                           vcpus=rng.choice((1, 2)), num_instances=10,
                           **kwargs)


def _rounds(rng, hosts, count, keep):
    """The host lists of ``count`` weighings: now and then a filter
    drops some hosts (or brings them back), so the kept raw weights
    must follow the hosts; it stops at an empty one."""
    for _index in range(count):
        current = hosts
        if rng.random() < 0.3:
            current = [h for h in hosts if rng.random() < keep]
        if not current:
            return
        yield current


def _as_tuples(weighed):
    return [(item.obj, item.weight, item.parts) for item in weighed]


class TestSameAsFullReweigh(fakes.TestCase):
    """Over many random host sets, multipliers and specs, every instance
    of a request sees what get_weighed_hosts of all its hosts gives."""

    def _configure(self, rng):
        for option in _MULTIPLIERS:
            value = rng.choice((0.0, 1.0, -1.0, 2.0, 0.5, 1e6))
            if option.startswith('soft_'):
                value = abs(value)  # the policy gives the sign
            self.flags(**{option: value}, group='filter_scheduler')
        self.flags(weight_setting=rng.choice(
            ([], ['cpu.percent=-1.0'], ['cpu.percent=2', 'bad'])),
            weight_multiplier=rng.choice((1.0, -1.0)),
            group='metrics')

    def test_incremental_matches_full_reweigh(self):
        rng = random.Random(20261128)
        for _case in range(150):
            self._configure(rng)
            hosts = _random_hosts(rng, rng.choice((2, 3, 5, 20, 60)))
            spec = _random_spec(rng)
            handler = weights.WeightHandler()
            weighing = handler.for_request(spec)
            subset_size = rng.choice((1, 2, 5))
            shuffle = rng.random() < 0.3
            pick_rng = random.Random(rng.random())
            for current in _rounds(rng, hosts, 10, 0.8):
                expected = handler.get_weighed_hosts(current, spec)
                ordered, totals = weighing.weigh(current)
                self.assertEqual([(w.obj, w.weight) for w in expected],
                                 list(zip(ordered, totals, strict=True)))
                self.assertEqual(
                    _as_tuples(expected[:decision.TOP_HOSTS]),
                    _as_tuples(weighing.top(decision.TOP_HOSTS)))
                chosen = weights.pick(ordered, totals, subset_size,
                                      shuffle, pick_rng)[0]
                host_state.consume_selected_host(chosen, spec, None)
                weighing.consumed(chosen)

    def test_first_host_comes_or_goes_before_a_nan(self):
        # min() and max() start from the first raw weight: a NaN there
        # makes both NaN, one later on is passed over.
        self.flags(ram_weight_multiplier=1.0, group='filter_scheduler')
        nan = float('nan')
        rams = (1024, nan, 4096, 2048, 8192)
        hosts = [fakes.fake_host('h%d' % i, free_ram_mb=ram)
                 for i, ram in enumerate(rams)]
        spec = fakes.fake_spec()
        handler = weights.WeightHandler()
        for first, then in ((hosts, hosts[1:]), (hosts[1:], hosts)):
            weighing = handler.for_request(spec)
            for current in (first, then):
                expected = handler.get_weighed_hosts(current, spec)
                ordered, totals = weighing.weigh(current)
                self.assertEqual([(w.obj, repr(w.weight)) for w in expected],
                                 [(h, repr(t)) for h, t in
                                  zip(ordered, totals, strict=True)])

    def test_pick_is_pick_host(self):
        weighed = [weights.WeighedHost(fakes.fake_host('h%d' % i), w)
                   for i, w in enumerate((3.0, 3.0, 3.0, 2.0, 1.0))]
        for seed in range(20):
            expected = weights.pick_host(weighed, 3, True,
                                         random.Random(seed))
            got = weights.pick([w.obj for w in weighed],
                               [w.weight for w in weighed], 3, True,
                               random.Random(seed))
            self.assertEqual([w.obj for w in expected], got)


class _Counting:
    """Counts the hosts each weigher of a handler weighs."""

    def __init__(self, handler):
        self.counts = {}
        for weigher in handler.weighers:
            weigher.weigh_objects = self._wrap(weigher)

    def _wrap(self, weigher):
        real = weigher.weigh_objects

        def weigh_objects(hosts, spec):
            self.counts[weigher.name] = (self.counts.get(weigher.name, 0) +
                                         len(hosts))
            return real(hosts, spec)
        return weigh_objects


class _FullReweigh:
    """The weighing the scheduler did before RequestWeighing: every
    host by every weigher for every instance."""

    def __init__(self, handler, spec):
        self.handler = handler
        self.spec = spec
        self.weighed = []

    def consumed(self, host):
        pass

    def weigh(self, hosts):
        self.weighed = self.handler.get_weighed_hosts(hosts, self.spec)
        return ([w.obj for w in self.weighed],
                [w.weight for w in self.weighed])

    def top(self, count):
        return self.weighed[:count]

    def multipliers(self):
        return self.handler.multipliers()


class TestManagerWeighsOnce(fakes.TestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()
        self.ctxt = nl_context.get_admin_context()

    def _manager(self, hosts):
        return manager.SchedulerManager(
            host='sched', placement=test_manager.FakePlacement(hosts),
            host_manager=test_manager.FakeHostManager(hosts))

    def _run(self, hosts, spec, seed, full=False):
        mgr = self._manager(hosts)
        handler = mgr._get_handlers()[1]
        counting = _Counting(handler)
        if full:
            self.patch(handler, 'for_request',
                       lambda spec: _FullReweigh(handler, spec))
        uuids = ['i%d' % i for i in range(spec.num_instances)]
        random.seed(seed)
        result = mgr.schedule(self.ctxt, copy.deepcopy(spec), uuids, True,
                              return_decisions=True)
        chosen = []
        for sels in result:
            record = decision.loads(sels[0].decision)
            record.pop('at')
            chosen.append(([(s.service_host, s.nodename) for s in sels],
                           record))
        return chosen, counting.counts

    def test_same_choices_as_full_reweigh(self):
        rng = random.Random(7)
        for seed in range(12):
            self.flags(host_subset_size=rng.choice((1, 3)),
                       shuffle_best_same_weighed_hosts=rng.random() < 0.5,
                       group='filter_scheduler')
            hosts = _random_hosts(rng, 40)
            spec = _random_spec(rng)
            new, _counts = self._run(hosts, spec, seed)
            old, _counts = self._run(hosts, spec, seed,
                                     full=True)
            self.assertEqual(old, new)

    def test_weighers_weigh_each_host_once_plus_the_picks(self):
        hosts = [fakes.fake_host('h%d' % i, free_ram_mb=8192 + 64 * i)
                 for i in range(200)]
        spec = fakes.fake_spec(num_instances=10)
        _chosen, counts = self._run(hosts, spec, 0)
        # 200 hosts for the first instance, then the consumed host of
        # each pick (the last weighing gives the alternates).
        self.assertEqual({200 + 10}, set(counts.values()))
        _chosen, full = self._run(hosts, spec, 0, full=True)
        self.assertEqual({200 * 11}, set(full.values()))

    def test_soft_anti_affinity_reweighs_every_host(self):
        hosts = [fakes.fake_host('h%d' % i) for i in range(20)]
        spec = fakes.fake_spec(num_instances=4,
                               instance_group=fakes.group(
                                   'soft-anti-affinity'))
        chosen, counts = self._run(hosts, spec, 0)
        self.assertEqual(4, len({sels[0] for sels, _rec in chosen}))
        self.assertEqual(20 * 5, counts['ServerGroupSoftAntiAffinityWeigher'])
        self.assertEqual(20 + 4, counts['RAMWeigher'])
