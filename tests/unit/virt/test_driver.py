"""The driver interface as a document, loading drivers, shared helpers."""

import inspect
import re

from oslo_config import cfg
import testtools

from nova_lite import conf as nl_conf
from nova_lite.conf import allocation
from nova_lite import exception
from nova_lite.virt import driver
from nova_lite.virt import fake

PARAM = re.compile(r':param (\w+):')


def _public_methods(cls):
    return {name: member for name, member in vars(cls).items()
            if callable(member) and (not name.startswith('_') or
                                     name == '__init__')}


def _conf():
    conf = cfg.ConfigOpts()
    nl_conf.register_opts(conf)
    allocation.register_opts(conf)
    conf([], default_config_files=[])
    return conf


class TestInterfaceDocument(testtools.TestCase):

    def test_every_public_method_is_documented(self):
        undocumented = [name for name, method in
                        _public_methods(driver.ComputeDriver).items()
                        if not (method.__doc__ or '').strip()]
        self.assertEqual([], undocumented)

    def test_docstring_params_match_signatures(self):
        mismatches = []
        for name, method in _public_methods(driver.ComputeDriver).items():
            documented = PARAM.findall(method.__doc__ or '')
            actual = [p for p in inspect.signature(method).parameters
                      if p != 'self']
            if documented != actual:
                mismatches.append((name, documented, actual))
        self.assertEqual([], mismatches)

    def test_fake_driver_keeps_the_signatures(self):
        base = _public_methods(driver.ComputeDriver)
        differing = [
            name for name, method in _public_methods(fake.FakeDriver).items()
            if name in base and
            inspect.signature(method) != inspect.signature(base[name])]
        self.assertEqual([], differing)

    def test_fake_driver_implements_everything(self):
        missing = [name for name in _public_methods(driver.ComputeDriver)
                   if getattr(fake.FakeDriver, name) is
                   getattr(driver.ComputeDriver, name) and
                   'NotImplementedError' in inspect.getsource(
                       getattr(driver.ComputeDriver, name))]
        self.assertEqual([], missing)


class TestLoadDriver(testtools.TestCase):

    def test_default_is_the_fake_driver(self):
        loaded = driver.load_driver(conf=_conf())
        self.assertIsInstance(loaded, fake.FakeDriver)

    def test_bad_names_are_one_line_config_errors(self):
        for name in ('nope.Driver', 'fake.Nope', 'FakeDriver',
                     'fake.CPU_INFO', 'driver.InstanceInfo'):
            error = self.assertRaises(exception.ConfigInvalid,
                                      driver.load_driver, name,
                                      conf=_conf())
            self.assertIn('[DEFAULT] compute_driver', str(error))
            self.assertNotIn('\n', str(error))


class TestHelpers(testtools.TestCase):

    def test_allocation_ratio_precedence(self):
        conf = _conf()
        drv = driver.ComputeDriver(conf=conf)
        self.assertEqual({'VCPU': 4.0, 'MEMORY_MB': 1.0, 'DISK_GB': 1.0},
                         drv.get_allocation_ratios({}))
        existing = {'VCPU': {'allocation_ratio': 2.0}}
        self.assertEqual(2.0, drv.get_allocation_ratios(existing)['VCPU'])
        conf.set_override('cpu_allocation_ratio', 16.0)
        self.assertEqual(16.0, drv.get_allocation_ratios(existing)['VCPU'])

    def test_reserved_rounds_disk_up(self):
        conf = _conf()
        conf.set_override('reserved_host_disk_mb', 1025)
        conf.set_override('reserved_host_cpus', 2)
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 2},
                         driver.ComputeDriver(conf=conf).get_reserved())

    def test_capabilities_as_traits(self):
        traits = fake.FakeDriver(conf=_conf()).capabilities_as_traits()
        self.assertTrue(traits['COMPUTE_IMAGE_TYPE_RAW'])
        self.assertFalse(traits['COMPUTE_VOLUME_MULTI_ATTACH'])
        self.assertEqual(set(driver.CAPABILITY_TRAITS.values()), set(traits))

    def test_instance_field_reads_objects_and_dicts(self):
        class Instance:
            uuid = 'u1'

        self.assertEqual('u1', driver.instance_field(Instance(), 'uuid'))
        self.assertEqual('u2', driver.instance_field({'uuid': 'u2'}, 'uuid'))
        self.assertEqual(3, driver.instance_field({}, 'node', 3))
