"""Query string schemas of GET /allocation_candidates, by microversion.

Placement validates the query string (each key with its last value) against
one JSON schema per microversion before parsing anything, and clients and
upstream's tests match jsonschema's own report ("'limit' was unexpected",
"Failed validating 'pattern'", "'resources1@' does not match any of the
regexes: ..."). So the schemas have Placement's shape: which keys exist
from which version, the request group key patterns, ``limit``'s pattern and
``group_policy``'s enum.
"""

import functools
import re

# Request group suffixes: digits until 1.32, then 1-64 of [a-zA-Z0-9_-].
GROUP_PAT = r'[1-9][0-9]*'
GROUP_PAT_1_33 = r'[a-zA-Z0-9_-]{1,64}'
GROUP_KEYS = ('resources', 'required', 'member_of', 'in_tree')
GROUP_POLICIES = ('none', 'isolate')
_STRING = {'type': 'string'}
_LIMIT = {'type': ['integer', 'string'], 'pattern': '^[1-9][0-9]*$',
          'minimum': 1, 'minLength': 1}

# The versions at which the schema changes, newest first.
VERSIONS = ((1, 36), (1, 35), (1, 33), (1, 31), (1, 25), (1, 21), (1, 17),
            (1, 16), (1, 10))


def group_key_pattern(prefix, suffix_pattern):
    return '^%s(%s)?$' % (prefix, suffix_pattern)


@functools.cache
def compiled(prefix, suffix_pattern):
    """The compiled :func:`group_key_pattern` (group 1 is the suffix)."""
    return re.compile(group_key_pattern(prefix, suffix_pattern))


def _flat(want):
    """1.10-1.24: one unnumbered group, ``resources`` required."""
    properties = {'resources': _STRING}
    if want >= (1, 16):
        properties['limit'] = _LIMIT
    if want >= (1, 17):
        properties['required'] = _STRING
    if want >= (1, 21):
        properties['member_of'] = _STRING
    return {'type': 'object', 'properties': properties,
            'required': ['resources'], 'additionalProperties': False}


def _granular(want):
    """1.25+: suffixed request groups; no key is required by the schema."""
    suffix = GROUP_PAT_1_33 if want >= (1, 33) else GROUP_PAT
    keys = GROUP_KEYS if want >= (1, 31) else GROUP_KEYS[:3]
    properties = {'limit': _LIMIT,
                  'group_policy': {'type': 'string',
                                   'enum': list(GROUP_POLICIES)}}
    if want >= (1, 35):
        properties['root_required'] = _STRING
    if want >= (1, 36):
        properties['same_subtree'] = _STRING
    return {'type': 'object', 'properties': properties,
            'patternProperties': {group_key_pattern(key, suffix): _STRING
                                  for key in keys},
            'additionalProperties': False}


def _build(want):
    return _granular(want) if want >= (1, 25) else _flat(want)


_SCHEMAS = {version: _build(version) for version in VERSIONS}


def query_schema(want):
    """The schema for microversion ``want`` (a (major, minor) tuple)."""
    for version in VERSIONS:
        if want >= version:
            return _SCHEMAS[version]
    return _SCHEMAS[VERSIONS[-1]]
