"""Matching a host value against an extra spec requirement.

The requirement grammar is Nova's, used by ComputeCapabilitiesFilter,
AggregateInstanceExtraSpecsFilter and the image version check:

- ``value`` (no operator): string equality;
- ``= N``: numeric, host value at least N; ``== N``, ``!= N``, ``>= N``,
  ``<= N``: numeric comparisons;
- ``s== x``, ``s!= x``, ``s< x``, ``s<= x``, ``s> x``, ``s>= x``: string
  comparisons;
- ``<in> x``: x is a substring of the host value;
- ``<all-in> x y``: every word is an element of the host value (a list or
  a string of words);
- ``<or> a <or> b``: the host value is one of the alternatives.

A requirement whose numbers do not parse never matches (it does not raise).
"""

import operator

_NUMERIC = {
    '=': operator.ge,
    '==': operator.eq,
    '!=': operator.ne,
    '>=': operator.ge,
    '<=': operator.le,
}

_STRING = {
    's==': operator.eq,
    's!=': operator.ne,
    's<': operator.lt,
    's<=': operator.le,
    's>': operator.gt,
    's>=': operator.ge,
}


def _as_number(text):
    return float(str(text).strip())


def _contains_all(value, words):
    if isinstance(value, str):
        value = value.split()
    present = {str(v) for v in value}
    return all(word in present for word in words)


def match(value, requirement):
    """True when host ``value`` satisfies ``requirement`` (a string)."""
    if value is None:
        return False
    words = str(requirement).split()
    if not words:
        return str(value) == str(requirement)
    op, args = words[0], words[1:]
    if '<or>' in words:
        alternatives = [w for w in words if w != '<or>']
        return str(value) in alternatives
    if op == '<in>':
        return bool(args) and ' '.join(args) in str(value)
    if op == '<all-in>':
        return bool(args) and _contains_all(value, args)
    if op in _NUMERIC and args:
        try:
            return _NUMERIC[op](_as_number(value), _as_number(args[0]))
        except (TypeError, ValueError):
            return False
    if op in _STRING and args:
        return _STRING[op](str(value), ' '.join(args))
    return str(value) == str(requirement)
