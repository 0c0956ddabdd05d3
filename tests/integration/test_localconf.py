"""devstack's local.conf format: [[local|localrc]] and [[post-config|FILE]].

The lab reads a devstack-format local.conf (``NOVA_LITE_LOCAL_CONF``
points at it, so the clone's own devstack/local.conf is left alone): the
variables of its [[local|localrc]] section, and options that stack.sh
merges into the files it writes, on every run.
"""

import os
import subprocess
import sys

from tests.integration import lab as lab_mod

LOCAL_CONF = """\
# A devstack user's local.conf.
[[local|localrc]]
NOVA_LITE_NODES_PER_COMPUTE=2

[[post-config|$NOVA_LITE_CONF]]
[filter_scheduler]
host_subset_size = 3

[[post-config|$NOVA_LITE_CPU_CONF]]
[fake_driver]
memory_mb = 12345

[[post-config|$NOVA_LITE_ETC/cell1-compute1.conf]]
[compute]
instance_build_timeout = 77
"""


def _conf_value(conf_files, group, name):
    """What an oslo.config process reading ``conf_files`` sees."""
    code = ('import sys\n'
            'from nova_lite import conf\n'
            'conf.CONF(sys.argv[1:], project="nova-lite")\n'
            'print(getattr(getattr(conf.CONF, %r), %r))\n' % (group, name))
    args = []
    for path in conf_files:
        args += ['--config-file', path]
    result = subprocess.run([sys.executable, '-c', code, *args],
                            capture_output=True, text=True, timeout=60)
    if result.returncode:
        raise AssertionError(result.stderr[-2000:])
    return result.stdout.strip()


class TestDevstackLocalConf(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=1, computes_per_cell=1, nodes_per_compute=5,
                      database='sqlite', name_prefix='nl_lc')

    @classmethod
    def prepare_lab(cls, lab):
        path = os.path.join(lab.state, 'local.conf')
        with open(path, 'w') as f:
            f.write(LOCAL_CONF)
        lab.env['NOVA_LITE_LOCAL_CONF'] = path
        # From local.conf's [[local|localrc]], not the environment.
        del lab.env['NOVA_LITE_NODES_PER_COMPUTE']

    def test_post_config_takes_effect_on_every_stack(self):
        lab = self.lab
        etc = os.path.join(lab.state, 'etc')
        api_conf = os.path.join(etc, 'api-level.conf')
        compute_conf = os.path.join(etc, 'cell1-compute1.conf')
        for _ in range(2):   # the first stack, then a re-run
            with open(api_conf) as f:
                text = f.read()
            # Merged into its section, the file's comments kept, once.
            self.assertEqual(1, text.count('host_subset_size = 3'))
            self.assertIn('# As devstack: the default filters', text)
            section = text.split('[filter_scheduler]')[1].split('\n[')[0]
            self.assertIn('host_subset_size = 3', section)
            self.assertEqual('3', _conf_value(
                [api_conf], 'filter_scheduler', 'host_subset_size'))
            self.assertEqual('77', _conf_value(
                [compute_conf], 'compute', 'instance_build_timeout'))
            # The compute's [fake_driver] option: its nodes' inventory.
            providers = lab.providers()
            self.assertEqual(2, len(providers), providers)
            for rp in providers:
                inventory = lab.placement_get(
                    '/resource_providers/%s/inventories' % rp['uuid'])
                self.assertEqual(
                    12345, inventory['inventories']['MEMORY_MB']['total'])
            lab.stack()
