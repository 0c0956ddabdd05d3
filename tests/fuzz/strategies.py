"""Hypothesis strategies for requests to both APIs, from their own tables.

The routes come from each API's ``ROUTE_DECLARATIONS``; the JSON schemas
a route may see are those of the schema modules its handler module
imports (``nova_lite/api/schemas/*``, ``nova_lite/placement/schemas/*``),
so a new route or schema is fuzzed without touching this file. Bodies
are drawn from a schema, mostly valid, with values swapped for hostile
ones (integers past 64 bits, lone surrogates, NUL, huge strings, deep
nesting, wrong types, unknown keys); queries use the parameter names of
the ``QUERY*`` schemas with hostile values; path items are ids of every
shape. A request is a :class:`Request`; targets send it in-process or
over HTTP.
"""

import collections
import importlib
import json
import re
import types
import urllib.parse

from hypothesis import strategies as st

Request = collections.namedtuple(
    'Request', 'api method path query body version')

HUGE_INTS = [2 ** 63, -2 ** 63 - 1, 2 ** 64, 10 ** 30, -1, 0, 2 ** 31]
NASTY_STRINGS = ['\ud800', 'a\udfffb', '\x00', 'x' * 300, '', ' ',
                 '\u2603', '%00', '../..', "'; DROP TABLE x; --",
                 '9' * 30, 'in:', '!', ',', ':']
PATH_ITEMS = ['1', '0', '-1', str(2 ** 63), '9' * 30,
              '00000000-0000-0000-0000-000000000000',
              '10000000-0000-4000-8000-000000000001', 'not-a-uuid',
              'x' * 300, '%ED%A0%80', '%00', '%ff', 'VCPU', 'CUSTOM_X',
              'HW_CPU_X86_AVX2', 'host1', '..']
VERSIONS = {'compute': [None, '2.1', '2.60', '2.95', 'latest', '2.999', 'x'],
            'placement': [None, '1.0', '1.20', '1.39', 'latest', '1.99',
                          'x']}
DEPTH_BOMB = '[' * 990 + ']' * 990


# -- the catalogs --------------------------------------------------------

def _schemas_of(module, prefixes):
    """Dict constants of the schema modules ``module`` imports."""
    found = {}
    for value in vars(module).values():
        if isinstance(value, types.ModuleType) and \
                value.__name__.startswith(prefixes):
            for name, schema in vars(value).items():
                if name.isupper() and isinstance(schema, dict) and \
                        schema.get('type') in ('object', 'array'):
                    found['%s.%s' % (value.__name__.rsplit('.', 1)[-1],
                                     name)] = schema
    return found


Route = collections.namedtuple('Route', 'api template methods bodies queries')


def catalog(api):
    """Routes of ``api`` ('compute' or 'placement') with their schemas."""
    if api == 'compute':
        router = importlib.import_module('nova_lite.api.deploy')
        prefixes = ('nova_lite.api.schemas',)
    else:
        router = importlib.import_module('nova_lite.placement.handler')
        prefixes = ('nova_lite.placement.schemas',)
    routes = []
    for template, methods in router.ROUTE_DECLARATIONS.items():
        schemas = {}
        for handler in methods.values():
            module = importlib.import_module(handler.__module__)
            schemas.update(_schemas_of(module, prefixes))
        bodies = [s for n, s in sorted(schemas.items())
                  if 'QUERY' not in n.upper()]
        queries = [s for n, s in sorted(schemas.items())
                   if 'QUERY' in n.upper()]
        routes.append(Route(api, template, sorted(methods), bodies,
                            queries))
    return routes


# -- values from a schema --------------------------------------------------

def nasty():
    return st.one_of(
        st.sampled_from(HUGE_INTS), st.sampled_from(NASTY_STRINGS),
        st.sampled_from([None, True, False, 1.5, 1e308, [], {}]),
        st.text(max_size=20), st.integers())


def from_schema(schema, depth=0):
    """Mostly valid instances of ``schema``, sometimes hostile values."""
    if depth > 4 or not isinstance(schema, dict):
        return nasty()
    kind = schema.get('type')
    if isinstance(kind, list):
        kind = kind[0]
    if schema.get('enum'):
        good = st.sampled_from(schema['enum'])
    elif 'enum' in schema:
        # A placeholder a handler fills per microversion (external events'
        # names): nothing is valid before it does.
        good = nasty()
    elif 'oneOf' in schema or 'anyOf' in schema:
        good = st.one_of([from_schema(s, depth + 1) for s in
                          schema.get('oneOf', schema.get('anyOf'))])
    elif kind == 'object':
        good = _object(schema, depth)
    elif kind == 'array':
        good = st.lists(from_schema(schema.get('items', {}), depth + 1),
                        max_size=4)
    elif kind == 'integer':
        good = st.integers(schema.get('minimum', -10),
                           schema.get('maximum', 10 ** 6))
    elif kind == 'number':
        good = st.floats(allow_nan=False, allow_infinity=False)
    elif kind == 'boolean':
        good = st.booleans()
    elif kind == 'string':
        good = _string(schema)
    else:
        good = nasty()
    return st.one_of(good, good, good, nasty())


def _string(schema):
    fmt = schema.get('format')
    if fmt == 'uuid':
        return st.uuids().map(str)
    if 'pattern' in schema:
        try:
            return st.from_regex(schema['pattern'], fullmatch=True).filter(
                lambda s: len(s) <= schema.get('maxLength', 255))
        except re.error:
            pass
    return st.text(min_size=schema.get('minLength', 0),
                   max_size=min(schema.get('maxLength', 40), 40))


def _object(schema, depth):
    props = schema.get('properties', {})
    required = [k for k in schema.get('required', []) if k in props]
    optional = [k for k in props if k not in required]
    fixed = {k: from_schema(props[k], depth + 1) for k in required}

    @st.composite
    def build(draw):
        value = draw(st.fixed_dictionaries(fixed))
        for key in draw(st.lists(st.sampled_from(optional), unique=True,
                                 max_size=len(optional))) if optional else []:
            value[key] = draw(from_schema(props[key], depth + 1))
        if draw(st.integers(0, 9)) == 0:
            value[draw(st.sampled_from(['x', '\ud800', '', 'id']))] = \
                draw(nasty())
        if required and draw(st.integers(0, 9)) == 0:
            value.pop(draw(st.sampled_from(required)), None)
        return value
    return build()


# -- requests -----------------------------------------------------------------

def _encode(document):
    # ensure_ascii keeps lone surrogates as \ud800 escapes: valid JSON
    # text that the server must refuse, not bytes the client cannot send.
    return json.dumps(document).encode()


def _fill(template, draw):
    path = template
    while '{' in path:
        start = path.index('{')
        item = draw(st.sampled_from(PATH_ITEMS))
        path = path[:start] + item + path[path.index('}') + 1:]
    return path


def _query(route, draw):
    names = sorted({name for schema in route.queries
                    for name in schema.get('properties', {})})
    names += ['limit', 'marker', 'sort_key', 'junk']
    pairs = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from(names))
        value = draw(st.one_of(st.sampled_from(NASTY_STRINGS + [
            str(v) for v in HUGE_INTS]), st.text(max_size=10)))
        pairs.append((name, value))
    return urllib.parse.urlencode(pairs, errors='surrogatepass')


@st.composite
def requests(draw, routes):
    """One :class:`Request` on one of ``routes``."""
    route = draw(st.sampled_from(routes))
    method = draw(st.sampled_from(route.methods + ['PATCH', 'HEAD']
                                  if draw(st.integers(0, 19)) == 0
                                  else route.methods))
    body = None
    if method in ('POST', 'PUT', 'PATCH'):
        choice = draw(st.integers(0, 19))
        if choice == 0:
            body = DEPTH_BOMB.encode()
        elif choice == 1:
            body = draw(st.sampled_from([b'', b'{', b'\xff\xfe', b'null',
                                         b'[]', b'"x"']))
        elif route.bodies:
            body = _encode(draw(from_schema(
                draw(st.sampled_from(route.bodies)))))
        else:
            body = _encode(draw(nasty()))
    query = _query(route, draw) if method == 'GET' else ''
    version = draw(st.sampled_from(VERSIONS[route.api]))
    return Request(route.api, method, _fill(route.template, draw), query,
                   body, version)
