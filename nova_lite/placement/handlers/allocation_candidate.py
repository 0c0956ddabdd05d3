"""Handler of GET /allocation_candidates (1.10+) in every microversion
shape.

The query string becomes a :class:`candidate_request.CandidateRequest`
here (every malformed or too-new parameter is a 400 naming it); the
object layer finds the candidates; :func:`_serialize` shapes the answer:
a list of allocations per request before 1.12, a dict keyed by provider
from 1.12, traits in summaries from 1.17, every class in summaries from
1.27, parent and root uuids from 1.29, ``mappings`` from 1.34.
"""

import contextlib
import gc
import json
import threading

import webob.exc

from nova_lite import conf as nl_conf
from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement.handlers import common
from nova_lite.placement.handlers import resource_provider as rp_handler
from nova_lite.placement import microversion
from nova_lite.placement.objects import allocation_candidate as ac_obj
from nova_lite.placement.objects import candidate_request as cr
from nova_lite.placement.schemas import allocation_candidate as schema
from nova_lite.placement import util

CONF = nl_conf.CONF
POLICY = 'placement:allocation_candidates:list'


class _GCPause:
    """Keep the cyclic garbage collector off while candidates are built.

    A large answer allocates tens of thousands of small acyclic dicts and
    tuples; each allocation burst triggers collections that walk every
    object of the process and measured at about half the request time at
    1,000 providers. Reference counting frees all of it anyway. A counter
    makes nested or concurrent pauses (gthread workers) safe: the collector
    comes back when the last request leaves.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.active = 0
        self.restore = True

    @contextlib.contextmanager
    def paused(self):
        with self.lock:
            if self.active == 0:
                self.restore = gc.isenabled()
                gc.disable()
            self.active += 1
        try:
            yield
        finally:
            with self.lock:
                self.active -= 1
                if self.active == 0 and self.restore:
                    gc.enable()


_GC = _GCPause()


def _bad(message, code=errors.QUERYPARAM_BAD_VALUE):
    return util.bad_request('Invalid query string parameters: %s' % message,
                            code)


def _check_key(key, values, since, repeat_since, want):
    if want < since:
        raise _bad("'%s' is not a known parameter before microversion "
                   "%d.%d" % ((key,) + since))
    if len(values) > 1 and (repeat_since is None or want < repeat_since):
        raise util.bad_request(
            "Query parameter '%s' may only appear once%s." % (
                key, '' if repeat_since is None else
                ' before microversion %d.%d' % repeat_since),
            errors.QUERYPARAM_DUPLICATE_KEY)


def _check_suffix(key, suffix, want):
    if want < schema.GRANULAR_VERSION:
        raise _bad("'%s' is not a known parameter before microversion "
                   "1.25" % key)
    pattern = (schema.SUFFIX_V1_33 if want >= schema.STRING_SUFFIX_VERSION
               else schema.SUFFIX_V1_25)
    if not pattern.match(suffix):
        raise _bad("'%s' has an invalid request group suffix %r" % (
            key, suffix))


def _resources(key, text):
    try:
        return rp_handler.parse_resources(text)
    except webob.exc.HTTPBadRequest as exc:
        raise util.bad_request('Invalid %s parameter: %s' % (key, exc.detail),
                               getattr(exc, 'comment', None) or
                               errors.QUERYPARAM_BAD_VALUE)


def _parse_group_key(request, key, values, want):
    match = schema.GROUP_KEY.match(key)
    if match is None:
        raise _bad("'%s' is not a known parameter" % key)
    name, suffix = match.groups()
    since, repeat_since = schema.GROUP_KEYS[name]
    if suffix:
        _check_suffix(key, suffix, want)
    _check_key(key, values, since, repeat_since, want)
    group = request.group(suffix)
    if name == 'resources':
        group.resources = _resources(key, values[0])
    elif name == 'required':
        group.required = rp_handler._parse_required(values, want)
    elif name == 'member_of':
        group.member_of = rp_handler._parse_member_of(values, want)
    else:
        group.in_tree = util.require_uuid(values[0], key)


# NOTE(nova_lite): Placement accepts any positive limit. Past a few billion
# it can only mean "all of them", so it is clamped rather than handed to SQL,
# where a number past what a database integer holds (once the query has
# done its arithmetic on it) is a DBError and a logged traceback.
_LIMIT_MAX = 2 ** 31 - 1


def _parse_limit(value):
    if not value.isdigit() or int(value) < 1:
        raise _bad("'limit' must be a positive integer, got %r" % value)
    return min(int(value), _LIMIT_MAX)


def _parse_root_required(value):
    entries = []
    for item in value.split(','):
        forbidden = item.startswith('!')
        name = item[1:] if forbidden else item
        if not schema.TRAIT_NAME.match(name):
            raise _bad("'root_required' has an invalid trait %r" % item)
        entries.append(([name], forbidden))
    return entries


def _parse_request_key(request, key, values, want):
    since, repeat_since = schema.REQUEST_KEYS[key]
    _check_key(key, values, since, repeat_since, want)
    if key == 'limit':
        request.limit = _parse_limit(values[0])
    elif key == 'group_policy':
        if values[0] not in schema.GROUP_POLICIES:
            raise _bad("'group_policy' must be one of %s, got %r" % (
                ', '.join(schema.GROUP_POLICIES), values[0]))
        request.group_policy = values[0]
    elif key == 'root_required':
        request.root_required = _parse_root_required(values[0])
    else:
        for value in values:
            suffixes = value.split(',')
            if not all(suffixes):
                raise _bad("'same_subtree' has an empty suffix: %r" % value)
            request.same_subtree.append(suffixes)


def _check_groups(request, want):
    if not any(g.resources for g in request.groups.values()):
        raise util.bad_request(
            "Invalid query string parameters: at least one 'resources' or "
            "'resources{suffix}' parameter is required.",
            errors.QUERYPARAM_MISSING_VALUE)
    numbered = [g for g in request.groups.values() if g.numbered]
    if want < schema.RESOURCELESS_VERSION:
        for group in numbered:
            if not group.resources:
                raise _bad("'resources%s' is required when 'required%s', "
                           "'member_of%s' or 'in_tree%s' is given" % (
                               (group.suffix,) * 4))
    if len(numbered) > 1 and request.group_policy is None:
        raise _bad("'group_policy' is required when more than one "
                   "numbered request group is given")
    for suffixes in request.same_subtree:
        unknown = [s for s in suffixes if s not in request.groups or not s]
        if unknown:
            raise _bad("'same_subtree' names request groups that do not "
                       "exist: %s" % ', '.join(unknown))


def parse_request(req, conf=CONF):
    """The :class:`CandidateRequest` of ``req``; 400 when malformed."""
    want = microversion.of(req)
    request = cr.CandidateRequest(
        randomize=conf.placement_api.randomize_allocation_candidates,
        max_candidates=conf.placement_api.max_allocation_candidates,
        nested_aware=want >= (1, 29))
    for key in sorted(set(req.GET.keys())):
        values = req.GET.getall(key)
        if key in schema.REQUEST_KEYS:
            _parse_request_key(request, key, values, want)
        else:
            _parse_group_key(request, key, values, want)
    _check_groups(request, want)
    return request


def _serialize_request(allocations, mapping, want):
    if want < (1, 12):
        return {'allocations': [
            {'resource_provider': {'uuid': uuid}, 'resources': resources}
            for uuid, resources in allocations.items()]}
    data = {'allocations': {uuid: {'resources': resources}
                            for uuid, resources in allocations.items()}}
    if want >= (1, 34):
        data['mappings'] = mapping
    return data


def _serialize_summary(summary, want):
    data = {'resources': {rc: {'capacity': capacity, 'used': used}
                          for rc, (capacity, used)
                          in summary.resources.items()}}
    if want >= (1, 17):
        data['traits'] = summary.traits
    if want >= (1, 29):
        data['parent_provider_uuid'] = summary.parent_uuid
        data['root_provider_uuid'] = summary.root_uuid
    return data


def _serialize(candidates, want):
    return {
        'allocation_requests': [
            _serialize_request(allocations, mapping, want)
            for allocations, mapping in candidates.allocation_requests],
        'provider_summaries': {
            uuid: _serialize_summary(summary, want)
            for uuid, summary in candidates.summaries.items()},
    }


@microversion.require('1.10')
def list_allocation_candidates(req):
    """GET /allocation_candidates: 200 with allocation requests and
    provider summaries (both empty when nothing fits)."""
    ctx = common.context(req, POLICY)
    want = microversion.of(req)
    request = parse_request(req)
    with _GC.paused():
        try:
            candidates = ac_obj.find(ctx, request,
                                     all_classes=want >= (1, 27))
        except exception.Invalid as exc:
            raise _bad(exc.message)
        # NOTE(nova_lite): compact separators: the body is the largest
        # placement sends (hundreds of KB at 1,000 providers).
        body = json.dumps(_serialize(candidates, want),
                          separators=(',', ':')).encode('utf-8')
    response = util.json_response({}, req=req)
    response.body = body
    return response
