"""Unit tests of the judgement of builds a previous process lost."""

import datetime
import types

import testtools

from nova_lite.compute import interrupted_builds
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception

NOW = datetime.datetime(2026, 1, 1, 12, 0, 0)
OLD = NOW - datetime.timedelta(seconds=interrupted_builds.RECENT + 1)


def _instance(uuid, written=OLD, task_state=task_states.SCHEDULING):
    return types.SimpleNamespace(uuid=uuid, created_at=written,
                                 updated_at=None, task_state=task_state,
                                 vm_state=vm_states.BUILDING, host=None)


class FakeConductor:
    """Instances by uuid; filters on uuid, vm_state and host."""

    def __init__(self, *instances):
        self.instances = {i.uuid: i for i in instances}
        self.faults = []

    def instance_get_all_by_filters(self, context, filters):
        return [i for u, i in sorted(self.instances.items())
                if u in filters.get('uuid', [u]) and
                i.vm_state == filters['vm_state'] and
                i.host == filters['host']]

    def instance_fault_create(self, context, values):
        self.faults.append(values['instance_uuid'])


class FakeRecords:
    def __init__(self, conductor, refuse=()):
        self.conductor = conductor
        self.refuse = set(refuse)

    def update(self, context, uuid, values, expected_vm_state=None,
               expected_task_state=None):
        if uuid in self.refuse:
            raise exception.UnexpectedVMStateError(
                instance_uuid=uuid, expected=expected_vm_state,
                actual=vm_states.ACTIVE)
        instance = self.conductor.instances[uuid]
        for key, value in values.items():
            setattr(instance, key, value)
        return instance


class FakePlacement:
    def __init__(self, by_provider):
        self.by_provider = by_provider
        self.reads = []

    def get_allocations(self, consumer):
        self.reads.append(consumer)
        return {'allocations': {rp: {} for rp, consumers in
                                self.by_provider.items()
                                if consumer in consumers}}


class FakeBuilds:
    def __init__(self):
        self.watched = set()
        self.arrived = set()

    def watch(self, uuids):
        self.watched = set(uuids)

    def received(self, uuid):
        return uuid in self.arrived


class InterruptedBuildsTestCase(testtools.TestCase):

    def _checker(self, instances, by_provider, refuse=()):
        self.conductor = FakeConductor(*instances)
        self.dropped = []
        self.builds = FakeBuilds()
        self.placement = FakePlacement(by_provider)
        allocations = types.SimpleNamespace(drop=self.dropped.append)
        return interrupted_builds.InterruptedBuilds(
            'host1', FakeRecords(self.conductor, refuse), self.conductor,
            self.placement, allocations, self.builds)

    def test_suspects_are_building_hostless_claims_on_its_nodes(self):
        on_node = _instance('a')
        on_other_node = _instance('b')
        placed = _instance('c')
        placed.host = 'host1'
        checker = self._checker([on_node, on_other_node, placed],
                                {'rp1': ['a', 'c'], 'rp9': ['b']})
        self.assertEqual(1, checker.find(None, ['rp1', 'rp2']))
        self.assertEqual({'a'}, checker.suspects)
        self.assertEqual({'a'}, self.builds.watched)
        # only the hostless builds' claims were read
        self.assertEqual(['a', 'b'], self.placement.reads)

    def test_nothing_building_reads_nothing_from_placement(self):
        checker = self._checker([], {'rp1': ['a']})
        self.assertEqual(0, checker.find(None, ['rp1']))
        self.assertEqual([], self.placement.reads)

    def test_lost_build_failed_received_one_left(self):
        lost, arrived = _instance('a'), _instance('b')
        checker = self._checker([lost, arrived], {'rp1': ['a', 'b']})
        checker.find(None, ['rp1'])
        self.builds.arrived.add('b')
        self.assertEqual(1, checker.check(None, now=NOW))
        self.assertEqual((vm_states.ERROR, None),
                         (lost.vm_state, lost.task_state))
        self.assertEqual(['a'], self.conductor.faults)
        self.assertEqual(['a'], self.dropped)
        self.assertEqual(vm_states.BUILDING, arrived.vm_state)
        # done: no more watching
        self.assertEqual(set(), self.builds.watched)
        self.assertEqual(set(), checker.suspects)

    def test_build_that_started_meanwhile_is_left(self):
        started = _instance('a')
        checker = self._checker([started], {'rp1': ['a']})
        checker.find(None, ['rp1'])
        started.task_state = task_states.SPAWNING
        self.assertEqual(0, checker.check(None, now=NOW))
        self.assertEqual([], self.dropped)

    def test_instance_changed_at_the_save_keeps_its_claim(self):
        checker = self._checker([_instance('a')], {'rp1': ['a']},
                                refuse=['a'])
        checker.find(None, ['rp1'])
        self.assertEqual(0, checker.check(None, now=NOW))
        self.assertEqual([], self.dropped)
        self.assertEqual([], self.conductor.faults)

    def test_recent_instance_waits_and_a_stop_ends_the_wait(self):
        """A conductor may not have cast yet: the check waits until the
        instance was left alone RECENT seconds; a stop ends the wait and
        judges nothing."""
        checker = self._checker([_instance('a', written=NOW)],
                                {'rp1': ['a']})
        checker.find(None, ['rp1'])
        checker.stopping.set()
        self.assertEqual(0, checker.check(None, now=NOW))
        self.assertEqual([], self.dropped)
