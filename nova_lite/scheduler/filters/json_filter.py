"""JsonFilter: the ``query`` scheduler hint, a small JSON expression language.

The hint is a JSON list ``[op, arg, ...]``. Arguments are literals, nested
expressions, or ``$variables`` naming host state attributes
(``$free_ram_mb``, ``$vcpus_total``, ``$stats.cpu_family`` for a key of a
dict attribute). Operators: ``=``, ``<``, ``>``, ``<=``, ``>=`` (compare
the first argument with each following one), ``in`` (first argument among
the others), ``not``, ``or``, ``and``. Example::

    ["and", [">=", "$free_ram_mb", 1024], ["<", "$num_instances", 10]]

A variable the host does not have is dropped from the arguments, as Nova
does. A query that is not valid JSON or uses an unknown operator makes the
request invalid (the NoValidHost explanation names the ``query`` hint).
"""

import json
import operator

from nova_lite import exception
from nova_lite.scheduler import filters


def _all_pairs(compare):
    def command(args):
        if len(args) < 2:
            return False
        return all(compare(args[0], other) for other in args[1:])
    return command


def _in(args):
    return len(args) >= 2 and args[0] in args[1:]


def _not(args):
    # One argument: its negation. Several: true when all are false.
    return not any(args)


def _or(args):
    return any(args)


def _and(args):
    return bool(args) and all(args)


COMMANDS = {
    '=': _all_pairs(operator.eq),
    '<': _all_pairs(operator.lt),
    '>': _all_pairs(operator.gt),
    '<=': _all_pairs(operator.le),
    '>=': _all_pairs(operator.ge),
    'in': _in,
    'not': _not,
    'or': _or,
    'and': _and,
}


def parse_query(text):
    """The parsed query; raises InvalidSchedulerRequest when malformed."""
    try:
        query = json.loads(text) if isinstance(text, str) else text
    except ValueError as err:
        raise exception.InvalidSchedulerRequest('query',
                                               'not JSON: %s' % err)
    _validate(query)
    return query


def _validate(expr):
    if not isinstance(expr, list) or not expr:
        raise exception.InvalidSchedulerRequest(
            'query', 'an expression must be a non-empty list: %r' % (expr,))
    if expr[0] not in COMMANDS:
        raise exception.InvalidSchedulerRequest(
            'query', 'unknown operator %r' % (expr[0],))
    for arg in expr[1:]:
        if isinstance(arg, list):
            _validate(arg)


def _variable(host_state, name):
    path = name[1:].split('.')
    value = getattr(host_state, path[0], None)
    for key in path[1:]:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def evaluate(expr, host_state):
    """Value of the (validated) expression for ``host_state``."""
    args = []
    for arg in expr[1:]:
        if isinstance(arg, list):
            arg = evaluate(arg, host_state)
        elif isinstance(arg, str) and arg.startswith('$'):
            arg = _variable(host_state, arg)
        if arg is not None:
            args.append(arg)
    try:
        return COMMANDS[expr[0]](args)
    except TypeError:
        # Comparing values of different types (a string with a number).
        return False


class JsonFilter(filters.BaseHostFilter):
    """Keeps hosts for which the ``query`` hint evaluates true."""

    run_filter_once_per_request = False
    RUN_ON_REBUILD = False

    def filter_all(self, hosts, spec):
        text = spec.get_hint('query')
        if not text:
            return list(hosts)
        query = parse_query(text)
        return [host for host in hosts if evaluate(query, host)]

    def host_passes(self, host_state, spec):
        text = spec.get_hint('query')
        if not text:
            return True
        return bool(evaluate(parse_query(text), host_state))
