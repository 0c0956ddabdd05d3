"""Fake host states and request specs for the scheduler unit tests."""

import uuid

import testtools
from oslo_config import fixture as config_fixture

from nova_lite import conf as nl_conf
from nova_lite import objects
from nova_lite.objects import request_spec
from nova_lite.scheduler import host_state

CONF = nl_conf.CONF

CELL1 = 'c1000000-0000-4000-8000-000000000001'
CELL2 = 'c2000000-0000-4000-8000-000000000002'


def fake_host(host='host1', node=None, cell_uuid=CELL1, aggregates=(),
              instances=(), service=None, **attrs):
    """A HostState with roomy defaults; ``attrs`` override attributes.

    ``instances`` is a list of instance uuids (or ``(uuid, project)``).
    """
    state = host_state.HostState(host, node or host + '-node',
                                 cell_uuid=cell_uuid, uuid=str(uuid.uuid4()))
    state.vcpus_total = 8
    state.total_usable_ram_mb = 16384
    state.free_ram_mb = 16384
    state.total_usable_disk_gb = 200
    state.free_disk_mb = 200 * 1024
    state.service = dict(service or {'disabled': False,
                                     'forced_down': False, 'up': True})
    state.aggregates = list(aggregates)
    for item in instances:
        inst_uuid, project = (item if isinstance(item, tuple)
                              else (item, 'p1'))
        state.instances[inst_uuid] = host_state.InstanceInfo(inst_uuid,
                                                             project)
    for name, value in attrs.items():
        if not hasattr(state, name):
            raise AttributeError('HostState has no %s' % name)
        setattr(state, name, value)
    return state


def aggregate(name='agg1', hosts=('host1',), **metadata):
    return host_state.Aggregate(id=abs(hash(name)) % 1000,
                                uuid=str(uuid.uuid5(uuid.NAMESPACE_DNS,
                                                    name)),
                                name=name, hosts=hosts, metadata=metadata)


def fake_spec(vcpus=1, memory_mb=512, root_gb=1, ephemeral_gb=0, swap=0,
              extra_specs=None, image_props=None, disk_format=None,
              **kwargs):
    """A RequestSpec with a small flavor; ``kwargs`` go to
    ``RequestSpec.from_components``. Every field is set, as in the
    scheduler's own copy."""
    flavor = {'vcpus': vcpus, 'memory_mb': memory_mb, 'root_gb': root_gb,
              'ephemeral_gb': ephemeral_gb, 'swap': swap,
              'extra_specs': extra_specs or {}}
    image = {'disk_format': disk_format, 'properties': image_props or {}}
    kwargs.setdefault('project_id', 'p1')
    return request_spec.RequestSpec.from_components(
        None, flavor, image=image, **kwargs).fill_defaults()


def group(policy, members=(), hosts=(), rules=None):
    return objects.RequestSpecGroup(uuid='g1', policy=policy,
                                    members=list(members), hosts=list(hosts),
                                    rules=rules or {})


class TestCase(testtools.TestCase):
    """Base class: ``self.flags`` overrides options until the test ends."""

    def setUp(self):
        super().setUp()
        self._conf = self.useFixture(config_fixture.Config(CONF))

    def flags(self, group=None, **kw):
        self._conf.config(group=group, **kw)


class FilterTestCase(TestCase):
    """Base for one filter: ``self.filt`` is an instance of FILTER."""

    FILTER = None

    def setUp(self):
        super().setUp()
        self.filt = self.FILTER()

    def assertPasses(self, host, spec):
        self.assertTrue(self.filt.host_passes(host, spec))

    def assertFails(self, host, spec):
        self.assertFalse(self.filt.host_passes(host, spec))

    def assertHintReadOnce(self, hint):
        """``filter_all`` answers as ``host_passes`` host by host, reading
        the instance-list hint ``hint`` of the spec once for all hosts."""
        spec = fake_spec(scheduler_hints={hint: ['a', 'b']})
        hosts = [fake_host('h%d' % i, instances=[uuid])
                 for i, uuid in enumerate(('a', 'c', 'b', 'd'))]
        expected = [h for h in hosts if self.filt.host_passes(h, spec)]
        reads = []
        real = spec.get_hint_list

        def counted(name):
            reads.append(name)
            return real(name)
        self.patch(spec, 'get_hint_list', counted)
        self.assertEqual(expected, self.filt.filter_all(hosts, spec))
        self.assertEqual([hint], reads)


class WeigherTestCase(TestCase):
    """Base for one weigher: weighs hosts with only WEIGHER."""

    WEIGHER = None

    def weigh(self, hosts, spec=None):
        from nova_lite.scheduler import weights
        handler = weights.WeightHandler([self.WEIGHER.__name__])
        return handler.get_weighed_hosts(hosts, spec or fake_spec())

    def best(self, hosts, spec=None):
        return self.weigh(hosts, spec)[0].obj.host
