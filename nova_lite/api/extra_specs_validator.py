"""Validation of flavor extra specs, before they reach the database.

A malformed spec would otherwise surface only at boot time as a
scheduling failure. Refused with a 400 naming the key:

* ``resources[N]:<RC>`` whose class is neither standard nor ``CUSTOM_*``,
  or whose amount is not a non-negative integer;
* ``trait[N]:<TRAIT>`` whose trait is neither standard nor ``CUSTOM_*``,
  or whose value is not ``required`` / ``forbidden``;
* ``group_policy`` other than ``none`` / ``isolate``;
* the ``hw:`` keys nova_lite knows, with a bad value, and any other
  ``hw:`` key (a typo there would be silently ignored otherwise).

Other namespaces (``aggregate_instance_extra_specs:``, ``capabilities:``,
operator-defined ones) are free-form, as in Nova.
"""

import re

import os_resource_classes as orc
import os_traits

_GRANULAR = re.compile(r'^(resources|trait)([a-zA-Z0-9_-]{0,64}):(.*)$')
_CUSTOM = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_INT = re.compile(r'^[0-9]+$')
_STANDARD_TRAITS = frozenset(os_traits.get_traits())

_HW_CHOICES = {
    'hw:cpu_policy': ('shared', 'dedicated', 'mixed'),
    'hw:cpu_thread_policy': ('prefer', 'isolate', 'require'),
    'hw:emulator_threads_policy': ('share', 'isolate'),
    'hw:mem_encryption': ('true', 'false', 'True', 'False'),
    'hw:watchdog_action': ('none', 'pause', 'poweroff', 'reset',
                           'disabled'),
}
_HW_POSITIVE_INT = ('hw:numa_nodes', 'hw:cpu_sockets', 'hw:cpu_cores',
                    'hw:cpu_threads', 'hw:cpu_max_sockets',
                    'hw:cpu_max_cores', 'hw:cpu_max_threads')


class InvalidExtraSpec(ValueError):
    """A spec that cannot be used; the message names the key."""


def _fail(key, value, reason):
    raise InvalidExtraSpec('Validation failed; extra spec %s=%s: %s'
                           % (key, value, reason))


def _check_resource(key, name, value):
    if not (name in orc.STANDARDS or _CUSTOM.match(name)):
        _fail(key, value, 'unknown resource class %s (use a standard class '
              'or CUSTOM_*)' % name)
    if not _INT.match(value):
        _fail(key, value, 'the amount must be a non-negative integer')


def _check_trait(key, name, value):
    if not (name in _STANDARD_TRAITS or _CUSTOM.match(name)):
        _fail(key, value, 'unknown trait %s (use a standard trait or '
              'CUSTOM_*)' % name)
    if value not in ('required', 'forbidden'):
        _fail(key, value, "the value must be 'required' or 'forbidden'")


def _check_hw(key, value):
    if key in _HW_CHOICES:
        if value not in _HW_CHOICES[key]:
            _fail(key, value, 'must be one of %s'
                  % ', '.join(_HW_CHOICES[key]))
    elif key in _HW_POSITIVE_INT:
        if not _INT.match(value) or int(value) < 1:
            _fail(key, value, 'must be a positive integer')
    elif key == 'hw:mem_page_size':
        if value not in ('small', 'large', 'any') and not re.match(
                r'^[0-9]+([KMG]i?B?)?$', value):
            _fail(key, value, "must be small, large, any or a size")
    else:
        _fail(key, value, 'unknown hw: extra spec')


def validate(key, value):
    """Raise InvalidExtraSpec unless ``key=value`` is usable."""
    value = str(value)
    match = _GRANULAR.match(key)
    if match:
        kind, _suffix, name = match.groups()
        if kind == 'resources':
            _check_resource(key, name, value)
        else:
            _check_trait(key, name, value)
    elif key == 'group_policy':
        if value not in ('none', 'isolate'):
            _fail(key, value, "must be 'none' or 'isolate'")
    elif key.startswith('hw:'):
        _check_hw(key, value)


def validate_all(extra_specs):
    for key, value in extra_specs.items():
        validate(key, value)
