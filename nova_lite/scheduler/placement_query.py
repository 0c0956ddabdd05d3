"""Turn a request spec into a ``GET /allocation_candidates`` query.

What goes in (as Nova does, written for nova_lite):

- the flavor: ``VCPU`` = vcpus, ``MEMORY_MB`` = memory_mb, ``DISK_GB`` =
  root_gb (unless booting from volume) + ephemeral_gb + swap MB rounded up
  to whole GB; zero amounts are left out;
- flavor extra specs ``resources:RC=N`` (override the flavor amounts,
  ``0`` removes one), ``trait:T=required|forbidden``, numbered groups
  ``resourcesN:RC=N`` / ``traitN:T=...`` (each group on one provider) and
  ``group_policy=none|isolate``, which is required as soon as there is
  more than one numbered group;
- image properties ``traits_required`` (a list or comma list) and
  ``trait:T=required``;
- the ``hw:`` keys nova_lite maps to placement:
  ``hw:cpu_policy=dedicated`` asks for ``PCPU`` instead of ``VCPU``
  (``shared``, the default, keeps ``VCPU``; ``mixed`` is not supported) and,
  with it, ``hw:cpu_thread_policy=isolate`` forbids and ``=require``
  requires the ``HW_CPU_HYPERTHREADING`` trait; other ``hw:`` keys are left
  to filters or ignored;
- the requested destination's aggregates (``member_of``) and forbidden
  aggregates, ``in_tree`` when the caller resolved a forced node, what the
  request prefilters add (:mod:`nova_lite.scheduler.request_filter`),
  ``limit = [scheduler] max_placement_results`` unless the request needs
  every candidate (server group or same/different host hints, a forced
  host that was not resolved to one node).

Malformed extra specs raise :class:`InvalidSchedulerRequest` naming the
key; the manager turns it into NoValidHost.
"""

import math
import re
import urllib.parse

import os_resource_classes as orc

from nova_lite import conf as nl_conf
from nova_lite import exception

CONF = nl_conf.CONF

# The microversion the query is written for (root_required, same_subtree,
# forbidden aggregates, mappings in the response).
ALLOCATION_CANDIDATES_VERSION = '1.36'

_GRANULAR_KEY = re.compile(r'^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$')
_RESOURCE_CLASS = re.compile(r'^[A-Z0-9_]+$')
_TRAIT = re.compile(r'^[A-Z0-9_]+$')
_GROUP_POLICIES = ('none', 'isolate')
_TRAIT_VALUES = ('required', 'forbidden')
# Hints that need every candidate, not the first ``limit``.
_UNLIMITED_HINTS = ('group', 'same_host', 'different_host')


class RequestGroup:
    """One group of the query; suffix '' is the unnumbered group."""

    def __init__(self, suffix=''):
        self.suffix = suffix
        self.resources = {}
        self.required_traits = set()
        self.forbidden_traits = set()
        self.member_of = []
        self.forbidden_aggregates = set()
        self.in_tree = None

    def params(self):
        """``[(name, value)]`` of this group for the query string."""
        s = self.suffix
        result = []
        if self.resources:
            result.append(('resources' + s, ','.join(
                '%s:%d' % (rc, amount)
                for rc, amount in sorted(self.resources.items()))))
        traits = sorted(self.required_traits) + sorted(
            '!' + t for t in self.forbidden_traits)
        if traits:
            result.append(('required' + s, ','.join(traits)))
        for aggregates in self.member_of:
            result.append(('member_of' + s,
                           'in:' + ','.join(sorted(aggregates))))
        if self.forbidden_aggregates:
            result.append(('member_of' + s, '!in:' + ','.join(
                sorted(self.forbidden_aggregates))))
        if self.in_tree:
            result.append(('in_tree' + s, self.in_tree))
        return result


class PlacementQuery:
    """Everything sent to ``GET /allocation_candidates``."""

    def __init__(self, limit=None):
        self.groups = {'': RequestGroup()}
        self.group_policy = None
        self.root_required = set()
        self.root_forbidden = set()
        self.limit = limit

    @property
    def unnumbered(self):
        return self.groups['']

    def group(self, suffix):
        """The group ``suffix``, created on first use."""
        if suffix not in self.groups:
            self.groups[suffix] = RequestGroup(suffix)
        return self.groups[suffix]

    @property
    def numbered_groups(self):
        return [g for s, g in sorted(self.groups.items()) if s]

    def add_member_of(self, aggregate_uuids):
        """Require membership in one of ``aggregate_uuids`` (an OR-list)."""
        self.unnumbered.member_of.append(set(aggregate_uuids))

    def params(self):
        """Sorted ``[(name, value)]``; repeated names (member_of) allowed."""
        result = []
        for _suffix, group in sorted(self.groups.items()):
            result.extend(group.params())
        if self.group_policy:
            result.append(('group_policy', self.group_policy))
        roots = sorted(self.root_required) + sorted(
            '!' + t for t in self.root_forbidden)
        if roots:
            result.append(('root_required', ','.join(roots)))
        if self.limit is not None:
            result.append(('limit', str(self.limit)))
        return sorted(result)

    def to_querystring(self):
        return urllib.parse.urlencode(self.params(), safe=',:!')

    def __str__(self):
        return 'GET /allocation_candidates?%s' % self.to_querystring()


def _parse_amount(key, value):
    try:
        amount = int(str(value).strip())
    except (TypeError, ValueError):
        raise exception.InvalidSchedulerRequest(
            key, 'resource amount %r is not an integer' % (value,))
    if amount < 0:
        raise exception.InvalidSchedulerRequest(
            key, 'resource amount %d is negative' % amount)
    return amount


def _check_resource_class(key, name):
    if not (name in orc.STANDARDS or
            (orc.is_custom(name) and _RESOURCE_CLASS.match(name))):
        raise exception.InvalidSchedulerRequest(
            key, '%r is not a standard or CUSTOM_ resource class' % name)


def _check_trait(key, name, value):
    if not name or not _TRAIT.match(name):
        raise exception.InvalidSchedulerRequest(
            key, '%r is not a trait name (A-Z, 0-9, _)' % name)
    if value not in _TRAIT_VALUES:
        raise exception.InvalidSchedulerRequest(
            key, 'value %r must be "required" or "forbidden"' % (value,))


def _apply_extra_spec(query, key, value, overrides):
    match = _GRANULAR_KEY.match(key)
    if not match:
        return
    kind, suffix, name = match.group(1), match.group(2) or '', match.group(3)
    group = query.group(suffix)
    if kind == 'resources':
        _check_resource_class(key, name)
        amount = _parse_amount(key, value)
        if suffix:
            group.resources[name] = amount
        else:
            overrides[name] = amount
    else:
        value = str(value).strip()
        _check_trait(key, name, value)
        traits = (group.required_traits if value == 'required'
                  else group.forbidden_traits)
        traits.add(name)


def _flavor_amounts(spec):
    flavor = spec.flavor
    disk = flavor.ephemeral_gb + int(math.ceil(flavor.swap / 1024.0))
    if not spec.is_bfv:
        disk += flavor.root_gb
    return {'VCPU': flavor.vcpus, 'MEMORY_MB': flavor.memory_mb,
            'DISK_GB': disk}


def _apply_cpu_policy(query, amounts, extra_specs):
    policy = str(extra_specs.get('hw:cpu_policy', 'shared')).strip()
    if policy not in ('shared', 'dedicated', 'mixed'):
        raise exception.InvalidSchedulerRequest(
            'hw:cpu_policy', 'must be shared or dedicated, got %r' % policy)
    if policy == 'mixed':
        raise exception.InvalidSchedulerRequest(
            'hw:cpu_policy', 'mixed is not supported by nova_lite')
    if policy == 'dedicated':
        amounts['PCPU'] = amounts.pop('VCPU')
        thread = extra_specs.get('hw:cpu_thread_policy')
        if thread == 'isolate':
            query.unnumbered.forbidden_traits.add('HW_CPU_HYPERTHREADING')
        elif thread == 'require':
            query.unnumbered.required_traits.add('HW_CPU_HYPERTHREADING')


def _apply_image(query, spec):
    props = spec.image.properties
    required = props.get('traits_required')
    for trait in ([t.strip() for t in required.split(',')] if required
                  else []):
        _check_trait('image traits_required', trait, 'required')
        query.unnumbered.required_traits.add(trait)
    for key, value in props.items():
        if key.startswith('trait:'):
            name = key[len('trait:'):]
            _check_trait('image property %s' % key, name,
                         str(value).strip())
            if str(value).strip() == 'required':
                query.unnumbered.required_traits.add(name)


def _check_groups(query, extra_specs):
    numbered = query.numbered_groups
    for group in numbered:
        if not group.resources:
            raise exception.InvalidSchedulerRequest(
                'trait%s:*' % group.suffix,
                'numbered group %s has traits but no resources%s:*' % (
                    group.suffix, group.suffix))
    policy = extra_specs.get('group_policy')
    if policy is not None:
        policy = str(policy).strip()
        if policy not in _GROUP_POLICIES:
            raise exception.InvalidSchedulerRequest(
                'group_policy', 'must be "none" or "isolate", got %r' % (
                    policy,))
        query.group_policy = policy
    elif len(numbered) > 1:
        raise exception.InvalidSchedulerRequest(
            'group_policy', 'required when the flavor has more than one '
            'numbered group (resources1:, resources2:, ...)')


def _needs_every_candidate(spec):
    if any(spec.scheduler_hints.get(h) for h in _UNLIMITED_HINTS):
        return True
    if spec.instance_group is not None:
        return True
    dest = spec.requested_destination
    return bool(spec.force_hosts or spec.force_nodes or
                (dest is not None and dest.host))


def _apply_destination(query, spec):
    dest = spec.requested_destination
    if dest is None:
        return
    for aggregates in dest.aggregates:
        uuids = [a.strip() for a in str(aggregates).split(',') if a.strip()]
        if uuids:
            query.add_member_of(uuids)
    query.unnumbered.forbidden_aggregates.update(dest.forbidden_aggregates)


def build_query(spec, in_tree=None, max_results=None):
    """The :class:`PlacementQuery` for ``spec``.

    :param in_tree: compute node uuid when the caller resolved a forced or
        requested host/node to exactly one node (keeps the limit).
    :param max_results: ``limit``; ``[scheduler] max_placement_results``
        by default.
    :raises InvalidSchedulerRequest: a malformed extra spec or image trait.
    """
    extra_specs = spec.flavor.extra_specs
    query = PlacementQuery()
    overrides = {}
    for key, value in sorted(extra_specs.items()):
        _apply_extra_spec(query, key, value, overrides)
    amounts = _flavor_amounts(spec)
    _apply_cpu_policy(query, amounts, extra_specs)
    if 'VCPU' in overrides or 'PCPU' in overrides:
        amounts.pop('VCPU', None)
        amounts.pop('PCPU', None)
    amounts.update(overrides)
    query.unnumbered.resources = {rc: n for rc, n in amounts.items() if n}
    for group in query.numbered_groups:
        group.resources = {rc: n for rc, n in group.resources.items() if n}
    _apply_image(query, spec)
    _check_groups(query, extra_specs)
    _apply_destination(query, spec)
    if in_tree:
        query.unnumbered.in_tree = in_tree
    if max_results is None:
        max_results = CONF.scheduler.max_placement_results
    if in_tree or not _needs_every_candidate(spec):
        query.limit = max_results
    return query
