"""The JSON schema of a scenario file, checked before anything runs.

A scenario that fails half-way through a lab run because of a typo costs
a minute and leaves faults behind; a schema catches it at once, with the
path of the wrong field.
"""

_NAME = {'type': 'string', 'pattern': '^[A-Za-z0-9][A-Za-z0-9_.-]*$'}
_SECONDS = {'type': 'number', 'minimum': 0}
_COUNT = {'type': 'integer', 'minimum': 1}
_HOSTS = {'oneOf': [{'type': 'string'},
                    {'type': 'array', 'items': {'type': 'string'},
                     'minItems': 1}]}

# What a workload phase does; each runs after the one before it.
PHASES = ('boot', 'delete', 'resize', 'confirm', 'list', 'pause')
# What the timeline does; each entry waits for its trigger.
CHAOS_ACTIONS = ('rpc_rule', 'rpc_release', 'rpc_clear', 'kill_compute',
                 'restart_compute', 'freeze_cell', 'thaw_cell',
                 'stop_heartbeats', 'partition', 'database_fault',
                 'api_fault')
# What the report checks at the end.
INVARIANTS = ('requests_answered', 'no_stuck_builds',
              'allocations_match_servers', 'no_orphans', 'servers_in_state',
              'recovered')

_PHASE = {
    'type': 'object',
    'required': ['do'],
    'additionalProperties': False,
    'properties': {
        'do': {'enum': list(PHASES)},
        'name': _NAME,
        # boot and list: how many requests; others act on every server
        # of the run that is still there.
        'count': _COUNT,
        # Requests per second (None: as fast as answered).
        'rate': {'type': 'number', 'exclusiveMinimum': 0},
        'flavor': {'type': 'string'},
        # Wait (bounded by the scenario's settle_timeout) until the
        # servers leave BUILD (boot), reach VERIFY_RESIZE (resize) or
        # ACTIVE (confirm), or are gone (delete).
        'wait': {'type': 'boolean'},
        'seconds': _SECONDS,
    },
}

_RULE_FIELDS = {
    'action': {'enum': ['hold', 'delay', 'drop', 'duplicate', 'fail']},
    'at': {'enum': ['send', 'dispatch']},
    'bus': {'type': 'string'}, 'topic': {'type': 'string'},
    'server': {'type': 'string'}, 'method': {'type': 'string'},
    'count': _COUNT, 'window': {'type': 'number', 'exclusiveMinimum': 0},
    'seconds': _SECONDS, 'error': {'enum': ['timeout', 'remote']},
}

_CHAOS = {
    'type': 'object',
    'required': ['do'],
    'additionalProperties': False,
    'properties': {
        'do': {'enum': list(CHAOS_ACTIONS)},
        # When: seconds after the run started, or after a workload
        # phase (by name) ended, plus ``delay`` seconds.
        'at': _SECONDS,
        'after': _NAME,
        'delay': _SECONDS,
        'rule': {'type': 'object', 'required': ['action'],
                 'additionalProperties': False,
                 'properties': _RULE_FIELDS},
        'match': {'type': 'object', 'additionalProperties': False,
                  'properties': {k: {'type': 'string'} for k in
                                 ('method', 'server', 'topic')}},
        'discard': {'type': 'boolean'},
        # kill_compute / restart_compute: hosts, or 'all'.
        'host': _HOSTS,
        'cell': {'type': 'string'},
        # partition: how long the host is cut off; api_fault: how long
        # the fault lasts (default: until the lab's chaos clear).
        'seconds': {'type': 'number', 'exclusiveMinimum': 0},
        # database_fault (host: hosts, or '*' for every service) and
        # api_fault (service): seconds each statement or request waits
        # (plus up to ``jitter``, api_fault), the fraction that fails.
        'latency': _SECONDS,
        'jitter': _SECONDS,
        'error_rate': {'type': 'number', 'minimum': 0, 'maximum': 1},
        'service': {'enum': ['placement', 'compute']},
        # Name the recovery this action starts (its time is reported).
        'recovery': _NAME,
    },
    'oneOf': [{'required': ['at']}, {'required': ['after']}],
}

_INVARIANT = {
    'type': 'object',
    'required': ['check'],
    'additionalProperties': False,
    'properties': {
        'check': {'enum': list(INVARIANTS)},
        # requests_answered: the statuses allowed (default: any below 500).
        'statuses': {'type': 'array', 'items': {'type': 'integer'}},
        # servers_in_state: the final states allowed (GONE: deleted).
        'states': {'type': 'array', 'items': {'type': 'string'},
                   'minItems': 1},
        # recovered: within how many seconds.
        'within': _SECONDS,
    },
}

SCENARIO = {
    '$schema': 'https://json-schema.org/draft/2020-12/schema',
    'type': 'object',
    'required': ['name', 'workload', 'invariants'],
    'additionalProperties': False,
    'properties': {
        'name': _NAME,
        'description': {'type': 'string'},
        # Whether every invariant is meant to pass; a scenario that shows
        # how a failure is reported says false (its run still exits 1).
        'expect_pass': {'type': 'boolean'},
        'flavor': {'type': 'string'},
        'image': {'type': 'string'},
        # The whole workload and timeline, then the settling, each bounded.
        'timeout': {'type': 'number', 'exclusiveMinimum': 0},
        'settle_timeout': {'type': 'number', 'exclusiveMinimum': 0},
        # Delete what the run left (after the report's state is taken).
        'cleanup': {'type': 'boolean'},
        'workload': {'type': 'array', 'items': _PHASE, 'minItems': 1},
        'timeline': {'type': 'array', 'items': _CHAOS},
        'invariants': {'type': 'array', 'items': _INVARIANT, 'minItems': 1},
    },
}
