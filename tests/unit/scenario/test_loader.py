"""Scenario files: what is accepted, what is refused and how it is said."""

import os
import re
import tempfile

import testtools

from nova_lite.scenario import loader

MINIMAL = """
name: tiny
workload:
  - {do: boot, count: 2}
invariants:
  - {check: no_stuck_builds}
"""


class TestParse(testtools.TestCase):

    def test_minimal_file_gets_the_defaults(self):
        scenario = loader.parse(MINIMAL)
        self.assertEqual('tiny', scenario['name'])
        self.assertEqual(120, scenario['timeout'])
        self.assertEqual(60, scenario['settle_timeout'])
        self.assertTrue(scenario['expect_pass'])
        self.assertTrue(scenario['cleanup'])
        self.assertEqual([], scenario['timeline'])
        self.assertEqual('boot', scenario['workload'][0]['name'])

    def test_not_yaml_is_refused(self):
        exc = self.assertRaises(loader.ScenarioError, loader.parse,
                                'name: [unclosed', source='x.yaml')
        self.assertIn('x.yaml: not YAML', str(exc))

    def test_errors_name_the_field(self):
        text = MINIMAL.replace('count: 2', 'count: 0, rate: -1')
        exc = self.assertRaises(loader.ScenarioError, loader.parse, text)
        self.assertIn('workload[0].count', str(exc))
        self.assertIn('workload[0].rate', str(exc))

    def test_unknown_fields_and_actions_are_refused(self):
        exc = self.assertRaises(loader.ScenarioError, loader.parse,
                                MINIMAL + 'colour: blue\n')
        self.assertIn("'colour' was unexpected", str(exc))
        exc = self.assertRaises(
            loader.ScenarioError, loader.parse,
            MINIMAL.replace('do: boot', 'do: reboot'))
        self.assertIn('workload[0].do', str(exc))

    def test_missing_required_sections(self):
        exc = self.assertRaises(loader.ScenarioError, loader.parse,
                                'name: x\n')
        self.assertIn("'workload' is a required property", str(exc))

    def test_timeline_entry_needs_one_trigger(self):
        text = MINIMAL + 'timeline:\n  - {do: rpc_clear}\n'
        exc = self.assertRaises(loader.ScenarioError, loader.parse, text)
        self.assertIn('timeline[0]', str(exc))
        text = MINIMAL + 'timeline:\n  - {do: rpc_clear, at: 1, after: boot}\n'
        self.assertRaises(loader.ScenarioError, loader.parse, text)

    def test_after_must_name_a_phase(self):
        text = MINIMAL + 'timeline:\n  - {do: rpc_clear, after: nope}\n'
        exc = self.assertRaises(loader.ScenarioError, loader.parse, text)
        self.assertIn("no workload phase named 'nope'", str(exc))
        self.assertIn('phases: boot', str(exc))

    def test_action_without_its_target_is_refused(self):
        text = MINIMAL + 'timeline:\n  - {do: kill_compute, at: 1}\n'
        exc = self.assertRaises(loader.ScenarioError, loader.parse, text)
        self.assertIn("kill_compute needs 'host'", str(exc))

    def test_rule_fields_are_checked(self):
        text = MINIMAL + ('timeline:\n  - {do: rpc_rule, at: 0, rule: '
                          '{action: explode}}\n')
        exc = self.assertRaises(loader.ScenarioError, loader.parse, text)
        self.assertIn('timeline[0].rule.action', str(exc))

    def test_database_fault_parses_and_is_checked(self):
        text = MINIMAL + ('timeline:\n  - {do: database_fault, at: 1, '
                          "host: '*', latency: 0.5, error_rate: 0.2}\n")
        entry = loader.parse(text)['timeline'][0]
        self.assertEqual(('*', 0.5, 0.2), (entry['host'], entry['latency'],
                                           entry['error_rate']))
        exc = self.assertRaises(loader.ScenarioError, loader.parse,
                                text.replace("host: '*', ", ''))
        self.assertIn("database_fault needs 'host'", str(exc))
        self.assertRaises(loader.ScenarioError, loader.parse,
                          text.replace('0.2', '1.5'))

    def test_api_fault_parses_and_is_checked(self):
        text = MINIMAL + ('timeline:\n  - {do: api_fault, at: 1, '
                          'service: placement, latency: 1, jitter: 0.5, '
                          'error_rate: 0.1, seconds: 20}\n')
        entry = loader.parse(text)['timeline'][0]
        self.assertEqual(('placement', 1, 0.5, 0.1, 20),
                         tuple(entry[k] for k in (
                             'service', 'latency', 'jitter', 'error_rate',
                             'seconds')))
        exc = self.assertRaises(loader.ScenarioError, loader.parse,
                                text.replace('service: placement, ', ''))
        self.assertIn("api_fault needs 'service'", str(exc))
        exc = self.assertRaises(loader.ScenarioError, loader.parse,
                                text.replace('placement', 'glance'))
        self.assertIn('timeline[0].service', str(exc))

    def test_two_phases_of_one_name_need_names(self):
        text = MINIMAL.replace('- {do: boot, count: 2}',
                               '- {do: list}\n  - {do: list}')
        exc = self.assertRaises(loader.ScenarioError, loader.parse, text)
        self.assertIn("a second phase named 'list'", str(exc))


class TestLoad(testtools.TestCase):

    def test_every_shipped_scenario_loads(self):
        shipped = loader.shipped()
        self.assertIn('delete-during-build', shipped)
        self.assertIn('broken-dropped-build', shipped)
        self.assertGreaterEqual(len(shipped), 5)
        for name in shipped:
            scenario = loader.load(name)
            self.assertEqual(name, scenario['name'])
        self.assertFalse(loader.load('broken-dropped-build')['expect_pass'])

    def test_a_file_by_path(self):
        with tempfile.NamedTemporaryFile('w', suffix='.yaml',
                                         delete=False) as f:
            f.write(MINIMAL)
        self.addCleanup(os.unlink, f.name)
        self.assertEqual('tiny', loader.load(f.name)['name'])

    def test_missing_file(self):
        exc = self.assertRaises(loader.ScenarioError, loader.load,
                                '/nonexistent/s.yaml')
        self.assertIn('/nonexistent/s.yaml', str(exc))



class TestDocExample(testtools.TestCase):

    def test_doc_example_is_the_shipped_scenario(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))))
        with open(os.path.join(root, 'doc', 'chaos.md')) as f:
            example = re.search(r'```yaml\n(.*?)```', f.read(), re.S).group(1)
        self.assertEqual(loader.load('delete-during-build'),
                         loader.parse(example))
