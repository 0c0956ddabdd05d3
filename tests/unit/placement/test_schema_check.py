"""schema_check's quick yes never says yes to what jsonschema refuses,
and says it to the documents placement gets most."""

import random
import re
from unittest import mock
import uuid

import jsonschema
import testtools
import webob.exc

from nova_lite.placement import schema_check
from nova_lite.placement.schemas import allocation
from nova_lite.placement.schemas import allocation_candidate
from nova_lite.placement.schemas import inventory
from nova_lite.placement.schemas import misc
from nova_lite.placement.schemas import reshaper
from nova_lite.placement.schemas import resource_provider
from nova_lite.placement import util

UUID = str(uuid.UUID(int=7))
# Values put anywhere in a document: most break a schema somewhere.
ODD = [0, -1, 1, 7, 2 ** 31, 2 ** 31 - 1, 1.0, 1.5, 3.5e38, True, False,
       None, '', 'x', 'VCPU', 'CUSTOM_X', 'a b', 'VCPU\n', UUID,
       UUID.replace('-', ''), UUID[:-1] + 'g', 'none', 'isolate', '12',
       '0', 'x' * 256, [], {}, ['a', 'a'], ['A', 'B'], [1, True],
       [UUID, UUID], {'a': 1}]
KEYS = ['VCPU', 'CUSTOM_X', '', 'a', 'x.y', '_1', 'resources1', 'limit',
        'required_A', UUID, UUID.replace('-', '')]


def _schemas():
    found = {}
    for module in (allocation, inventory, misc, reshaper, resource_provider):
        for name, value in vars(module).items():
            if not name.startswith('_') and isinstance(value, dict) and (
                    'type' in value or 'anyOf' in value):
                found['%s.%s' % (module.__name__, name)] = value
    for version in allocation_candidate.VERSIONS:
        found['candidates %s' % (version,)] = (
            allocation_candidate.query_schema(version))
    return found


def _sample(schema, rnd, depth=0):
    """A document shaped by ``schema``, with odd values here and there."""
    if depth > 8 or rnd.random() < 0.04:
        return rnd.choice(ODD)
    if 'anyOf' in schema:
        return _sample(rnd.choice(schema['anyOf']), rnd, depth + 1)
    kind = schema.get('type')
    if isinstance(kind, list):
        kind = rnd.choice(kind)
    if kind == 'object' or 'properties' in schema:
        doc = {}
        props = schema.get('properties', {})
        for key in props:
            if key in schema.get('required', ()) or rnd.random() < 0.5:
                doc[key] = _sample(props[key], rnd, depth + 1)
        patterns = list(schema.get('patternProperties', {}).items())
        extra = rnd.randint(0, 3) if patterns else int(rnd.random() < 0.1)
        for _ in range(extra):
            key, sub = rnd.choice(KEYS), {}
            if patterns and rnd.random() < 0.9:
                pattern, sub = rnd.choice(patterns)
                key = rnd.choice([k for k in KEYS if re.search(pattern, k)]
                                 or [key])
            doc[key] = _sample(sub, rnd, depth + 1)
        return doc
    if kind == 'array':
        items = schema.get('items', {})
        return [_sample(items, rnd, depth + 1)
                for _ in range(rnd.randint(0, 3))]
    if kind == 'string':
        if 'enum' in schema:
            return rnd.choice(schema['enum'])
        if schema.get('format') == 'uuid' or 'fA-F' in schema.get(
                'pattern', ''):
            return rnd.choice([UUID, UUID.replace('-', ''), str(
                uuid.UUID(int=rnd.randint(0, 2 ** 128 - 1)))])
        return rnd.choice(['VCPU', 'CUSTOM_X', 'HW_CPU_X86_AVX', '12',
                           'none', 'x'])
    if kind in ('integer', 'number'):
        return rnd.choice([0, 1, 5, 100, 2 ** 31 - 1, 16.0])
    return rnd.choice(ODD)


class TestQuickCheck(testtools.TestCase):

    def test_never_yes_to_an_invalid_document(self):
        rnd = random.Random(17)
        for name, schema in _schemas().items():
            for uuid_format in (False, True):
                quick = schema_check.compile_check(schema, uuid_format)
                self.assertIsNotNone(quick, name)
                checker = util._FORMAT_CHECKER if uuid_format else None
                validator = jsonschema.validators.validator_for(schema)(
                    schema, format_checker=checker)
                said_yes = 0
                for _ in range(500):
                    doc = _sample(schema, rnd)
                    if quick(doc):
                        said_yes += 1
                        self.assertTrue(validator.is_valid(doc),
                                        (name, uuid_format, doc))
                self.assertGreater(said_yes, 0, name)

    def test_unknown_keywords_get_no_quick_check(self):
        for schema in ({'type': 'string', 'format': 'date-time'},
                       {'oneOf': [{'type': 'string'}]},
                       {'$ref': '#/x'},
                       {'type': 'array', 'prefixItems': []},
                       {'type': 'integer', 'exclusiveMinimum': 0},
                       {'enum': [1, True]},
                       {'type': 'array', 'items': [{'type': 'string'}]}):
            self.assertIsNone(schema_check.compile_check(schema), schema)

    def test_stricter_cases_go_to_jsonschema(self):
        # An integer-valued float is an integer to jsonschema; the quick
        # check leaves it to it, and the answer is jsonschema's.
        quick = schema_check.compile_check(inventory.PUT_ALL_SCHEMA)
        doc = {'resource_provider_generation': 1.0,
               'inventories': {'VCPU': {'total': 8}}}
        self.assertFalse(quick(doc))
        util.validate(doc, inventory.PUT_ALL_SCHEMA)

    def test_valid_body_skips_jsonschema(self):
        body = {'resource_provider_generation': 3,
                'inventories': {'VCPU': {'total': 8, 'allocation_ratio': 16},
                                'MEMORY_MB': {'total': 4096,
                                              'reserved': 512}}}
        util.validate(body, inventory.PUT_ALL_SCHEMA)
        with mock.patch.object(jsonschema.exceptions, 'best_match') as best:
            util.validate(body, inventory.PUT_ALL_SCHEMA)
            util.validate({'resource_provider_generation': 0,
                           'aggregates': [UUID]},
                          misc.AGGREGATES_SCHEMA_V1_19)
        best.assert_not_called()
        body['inventories']['VCPU']['total'] = 0
        exc = self.assertRaises(webob.exc.HTTPBadRequest, util.validate, body,
                                inventory.PUT_ALL_SCHEMA)
        self.assertIn('0 is less than the minimum of 1', str(exc))
