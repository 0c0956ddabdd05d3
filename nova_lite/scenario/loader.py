"""Read a scenario file: YAML, checked against the schema, defaults filled.

Errors name the file and the field (``workload[1].rate: -1 is less than
or equal to the minimum of 0``) so a lab user fixes the file before any
fault is injected.
"""

import os

import jsonschema
import yaml

from nova_lite.scenario import schema

SHIPPED_DIR = os.path.join(os.path.dirname(__file__), 'scenarios')

DEFAULTS = {'description': '', 'expect_pass': True, 'flavor': 'm1.tiny',
            'image': 'cirros-0.6.3-x86_64-disk', 'timeout': 120,
            'settle_timeout': 60, 'cleanup': True, 'timeline': []}


class ScenarioError(ValueError):
    """The scenario file cannot be run as written."""


def shipped():
    """``{name: path}`` of the scenarios shipped with nova_lite."""
    return {name[:-len('.yaml')]: os.path.join(SHIPPED_DIR, name)
            for name in sorted(os.listdir(SHIPPED_DIR))
            if name.endswith('.yaml')}


def load(path):
    """The scenario at ``path`` (or a shipped one by name), checked."""
    if not os.path.exists(path) and path in shipped():
        path = shipped()[path]
    try:
        with open(path) as f:
            text = f.read()
    except OSError as exc:
        raise ScenarioError('%s: %s' % (path, exc.strerror))
    return parse(text, source=path)


def parse(text, source='<scenario>'):
    """The scenario in the YAML ``text``, checked, defaults filled."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError('%s: not YAML: %s' % (source, exc))
    validator = jsonschema.Draft202012Validator(schema.SCENARIO)
    errors = sorted(validator.iter_errors(data),
                    key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        raise ScenarioError('%s: %s' % (source, '; '.join(
            '%s: %s' % (_where(e), e.message) for e in errors)))
    scenario = dict(DEFAULTS, **data)
    _name_phases(scenario['workload'], source)
    _check_triggers(scenario, source)
    return scenario


def _where(error):
    where = ''
    for part in error.absolute_path:
        where += '[%d]' % part if isinstance(part, int) else (
            '.' + part if where else part)
    return where or '(top level)'


def _name_phases(phases, source):
    """Each phase gets a name (its ``do`` by default) the timeline can
    refer to; two phases with one name are an error."""
    seen = set()
    for index, phase in enumerate(phases):
        name = phase.setdefault('name', phase['do'])
        if name in seen:
            raise ScenarioError(
                '%s: workload[%d]: a second phase named %r (give it a '
                'name)' % (source, index, name))
        seen.add(name)


def _check_triggers(scenario, source):
    names = {p['name'] for p in scenario['workload']}
    for index, entry in enumerate(scenario['timeline']):
        if 'after' in entry and entry['after'] not in names:
            raise ScenarioError(
                '%s: timeline[%d].after: no workload phase named %r '
                '(phases: %s)' % (source, index, entry['after'],
                                  ', '.join(sorted(names))))
        needs = {'rpc_rule': 'rule', 'kill_compute': 'host',
                 'restart_compute': 'host', 'freeze_cell': 'cell',
                 'stop_heartbeats': 'host', 'partition': 'host',
                 'thaw_cell': 'cell', 'database_fault': 'host',
                 'api_fault': 'service'}.get(entry['do'])
        if needs and needs not in entry:
            raise ScenarioError('%s: timeline[%d]: %s needs %r'
                                % (source, index, entry['do'], needs))
