"""A quick yes to a document that is valid, before jsonschema is asked.

jsonschema walks a document through a validator object per keyword and
per level, a sizeable share of a claim's or a provider registration's
CPU.
:func:`compile_check` turns a schema into a plain function that answers
True only when the document is certainly valid. It knows the keywords
placement's schemas use and is stricter than jsonschema where that is
simpler (an integer-valued float, a ``uniqueItems`` array that is not of
strings): anything it does not say True to goes to jsonschema, whose
answer and error message are the ones used. A schema with any keyword it
does not know gets no function at all (None).
"""

import re

from oslo_utils import uuidutils

# Keywords with no say in validation.
_ANNOTATIONS = frozenset(('$schema', '$comment', 'description', 'title',
                          'default', 'examples'))
_TYPES = {
    'object': lambda v: type(v) is dict,
    'array': lambda v: type(v) is list,
    'string': lambda v: type(v) is str,
    'integer': lambda v: type(v) is int,
    'number': lambda v: type(v) in (int, float),
    'boolean': lambda v: type(v) is bool,
    'null': lambda v: v is None,
}
_KNOWN = frozenset(('type', 'properties', 'patternProperties',
                    'additionalProperties', 'required', 'minProperties',
                    'maxProperties', 'items', 'minItems', 'maxItems',
                    'uniqueItems', 'minLength', 'maxLength', 'pattern',
                    'format', 'minimum', 'maximum', 'enum', 'anyOf'))
# What JSON decodes to; anything else is left to jsonschema.
_JSON = (dict, list, str, int, float, bool, type(None))


class Unsupported(Exception):
    """The schema uses something this module does not check."""


def _uuid(value):
    return type(value) is not str or uuidutils.is_uuid_like(value)


def _type_check(spec):
    names = [spec] if isinstance(spec, str) else spec
    try:
        tests = [_TYPES[name] for name in names]
    except (KeyError, TypeError):
        raise Unsupported('type %r' % (spec,))
    return lambda v: any(test(v) for test in tests)


def _object_checks(schema, uuid_format):
    checks = []
    props = {k: _compile(s, uuid_format)
             for k, s in schema.get('properties', {}).items()}
    patterns = [(re.compile(p).search, _compile(s, uuid_format))
                for p, s in schema.get('patternProperties', {}).items()]
    extra = schema.get('additionalProperties', True)
    if extra is not True and extra is not False:
        extra = _compile(extra, uuid_format)
    required = list(schema.get('required', ()))

    def check_object(v):
        if type(v) is not dict:
            return True
        for key in required:
            if key not in v:
                return False
        for key, item in v.items():
            matched = False
            prop = props.get(key)
            if prop is not None:
                matched = True
                if not prop(item):
                    return False
            for search, check in patterns:
                if search(key):
                    matched = True
                    if not check(item):
                        return False
            if not matched:
                if extra is False:
                    return False
                if extra is not True and not extra(item):
                    return False
        return True
    if props or patterns or extra is not True or required:
        checks.append(check_object)
    return checks + _length_checks(schema, dict, 'minProperties',
                                   'maxProperties')


def _array_checks(schema, uuid_format):
    checks = []
    items = schema.get('items')
    if items is not None:
        if not isinstance(items, dict):
            raise Unsupported('items %r' % (items,))
        item_check = _compile(items, uuid_format)
        checks.append(lambda v: type(v) is not list or all(
            item_check(i) for i in v))
    checks.extend(_length_checks(schema, list, 'minItems', 'maxItems'))
    if schema.get('uniqueItems') is True:
        # Strings only: jsonschema's equality of other values (1 and
        # True, 1 and 1.0) is its own.
        checks.append(lambda v: type(v) is not list or (
            all(type(i) is str for i in v) and len(set(v)) == len(v)))
    elif schema.get('uniqueItems') not in (None, False):
        raise Unsupported('uniqueItems')
    return checks


def _length_checks(schema, kind, least_key, most_key):
    """The bounds on the length of values of ``kind`` (others pass)."""
    checks = []
    least = schema.get(least_key)
    if least is not None:
        checks.append(lambda v: type(v) is not kind or len(v) >= least)
    most = schema.get(most_key)
    if most is not None:
        checks.append(lambda v: type(v) is not kind or len(v) <= most)
    return checks


def _string_checks(schema, uuid_format):
    checks = _length_checks(schema, str, 'minLength', 'maxLength')
    if 'pattern' in schema:
        search = re.compile(schema['pattern']).search
        checks.append(lambda v: type(v) is not str or bool(search(v)))
    if 'format' in schema:
        if schema['format'] != 'uuid':
            raise Unsupported('format %r' % schema['format'])
        if uuid_format:
            checks.append(_uuid)
    return checks


def _number_checks(schema):
    checks = []
    for key, ok in (('minimum', lambda v, b: v >= b),
                    ('maximum', lambda v, b: v <= b)):
        bound = schema.get(key)
        if bound is None:
            continue
        if type(bound) not in (int, float):
            raise Unsupported('%s %r' % (key, bound))
        checks.append(lambda v, b=bound, ok=ok: (
            type(v) not in (int, float) or ok(v, b)))
    return checks


def _compile(schema, uuid_format):
    if not isinstance(schema, dict):
        raise Unsupported('schema %r' % (schema,))
    unknown = set(schema) - _KNOWN - _ANNOTATIONS
    if unknown:
        raise Unsupported(', '.join(sorted(unknown)))
    checks = []
    if 'type' in schema:
        checks.append(_type_check(schema['type']))
    if 'enum' in schema:
        values = schema['enum']
        if not all(type(e) is str for e in values):
            raise Unsupported('enum %r' % (values,))
        allowed = frozenset(values)
        checks.append(lambda v: type(v) is str and v in allowed)
    if 'anyOf' in schema:
        branches = [_compile(s, uuid_format) for s in schema['anyOf']]
        checks.append(lambda v: any(branch(v) for branch in branches))
    checks.extend(_object_checks(schema, uuid_format))
    checks.extend(_array_checks(schema, uuid_format))
    checks.extend(_string_checks(schema, uuid_format))
    checks.extend(_number_checks(schema))
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


def _only_json(value):
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind not in _JSON:
            return False
        if kind is dict:
            if not all(type(k) is str for k in item):
                return False
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
    return True


def compile_check(schema, uuid_format=False):
    """``(document) -> bool``, True only for a document valid against
    ``schema``; None when the schema uses a keyword not known here.

    :param uuid_format: whether ``format: uuid`` is checked (placement's
        format checker, given for bodies and not for query strings).
    """
    try:
        check = _compile(schema, uuid_format)
    except (Unsupported, re.error):
        return None
    return lambda document: _only_json(document) and check(document)
