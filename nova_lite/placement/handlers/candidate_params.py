"""The query string of GET /allocation_candidates, read as Placement reads it.

Clients and upstream's tests match the error texts, and which error wins
when several apply, so the steps keep Placement's order:

1. each key's *last* value is validated against the microversion's JSON
   schema (``schemas.allocation_candidate``);
2. request-wide keys: ``limit`` and ``group_policy`` take their *first*
   value, ``root_required`` may appear once, ``same_subtree`` may repeat;
3. request group keys in query-string order (``resources`` and ``in_tree``:
   the last one wins; ``required`` and ``member_of`` read every value of
   their key: ``required`` only its last one before 1.39);
4. the groups as a whole: from 1.36 resourceless groups must be named by
   ``same_subtree`` and ``same_subtree`` must name real groups; before, a
   group without resources is an orphan; then conflicting traits;
5. ``group_policy`` when more than one numbered group exists.

The result is a plain :class:`candidate_request.CandidateRequest`.
"""

from oslo_utils import uuidutils
import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import microversion
from nova_lite.placement.objects import candidate_request as cr
from nova_lite.placement.schemas import allocation_candidate as schema
from nova_lite.placement import util

INVALID = 'Invalid query string parameters: '
# A limit past a few billion can only mean "all of them"; clamped rather
# than handed to SQL, where it could overflow a database integer.
LIMIT_MAX = 2 ** 31 - 1
# The largest max_unit an inventory may have: no amount above it can fit.
AMOUNT_MAX = 2 ** 31 - 1


def _bad(message, code=errors.DEFAULT):
    return webob.exc.HTTPBadRequest(message, comment=code)


# -- values -------------------------------------------------------------------

def parse_resources(value):
    """{class: amount} of ``VCPU:2,MEMORY_MB:1024`` (a repeated class: the
    last amount wins, as in Placement)."""
    if value.strip() == '':
        raise _bad('Badly formed resources parameter. Expected resources '
                   'query string parameter in form: ?resources=VCPU:2,'
                   'MEMORY_MB:1024. Got: empty string.')
    result = {}
    for item in value.split(','):
        parts = item.split(':')
        if len(parts) != 2:
            raise _bad('Badly formed resources parameter. Expected '
                       'resources query string parameter in form: '
                       '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.' % item)
        name, amount = parts
        try:
            amount = int(amount)
        except ValueError:
            raise _bad('Requested resource %s expected positive integer '
                       'amount. Got: %s.' % (name, amount))
        if amount < 1:
            raise _bad('Requested resource %s requires amount >= 1. '
                       'Got: %d.' % (name, amount))
        if amount > AMOUNT_MAX:
            # NOTE(nova_lite): Placement hands such an amount to SQL and
            # answers 500 (integer overflow); a clear 400 instead.
            raise _bad('Requested resource %s requires amount <= %d. '
                       'Got: %d.' % (name, AMOUNT_MAX, amount))
        result[name] = amount
    return result


def parse_traits(value, allow_forbidden, allow_any):
    """([set of any-of names, ...], {forbidden names}) of one ``required``
    value: ``A,!B`` (each required, ``!`` forbids) or, from 1.39,
    ``in:A,B`` (one of them)."""
    if value.startswith('in:'):
        if not allow_any:
            raise _bad(INVALID + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC'"
                       " only supported since microversion 1.39. Got: %s"
                       % value)
        names = {name.strip() for name in value[3:].split(',')}
        if not all(names):
            raise _bad(INVALID + "Expected 'required' parameter value of the"
                       " form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty "
                       "trait in: %s" % value)
        if any(name.startswith('!') for name in names):
            raise _bad(INVALID + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC'"
                       " does not support forbidden traits. Got: %s" % value)
        return [names], set()
    names = [name.strip() for name in value.split(',')]
    # NOTE(nova_lite): as in Placement, any number of leading '!' forbids.
    forbidden = {name.lstrip('!') for name in names if name.startswith('!')}
    if not all(names) or not all(forbidden):
        form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
                else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
        raise _bad(INVALID + "Expected 'required' parameter value of the "
                   "form: %s. Got an empty trait in: %s" % (form, value))
    if forbidden and not allow_forbidden:
        raise _bad(INVALID + "Expected 'required' parameter value of the "
                   "form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: %s" % value)
    return [{name} for name in names if not name.startswith('!')], forbidden


def _group_traits(req, suffix, want):
    values = req.GET.getall('required' + suffix)
    if want < (1, 39):
        # Before 1.39 a repeated key means its last value only.
        values = values[-1:]
    required, forbidden = [], set()
    for value in values:
        any_of, not_wanted = parse_traits(value, want >= (1, 22),
                                          want >= (1, 39))
        required += any_of
        forbidden |= not_wanted
    return required, forbidden


def _member_of_value(value):
    if ',' in value and not value.startswith(('in:', '!in:')):
        raise _bad("Multiple values for 'member_of' must be prefixed with "
                   "the 'in:' or '!in:' keyword using the valid "
                   "microversion. Got: %s" % value)
    required, forbidden = set(), set()
    if value.startswith('!in:'):
        forbidden = set(value[4:].split(','))
    elif value.startswith('!'):
        forbidden = {value[1:]}
    elif value.startswith('in:'):
        required = set(value[3:].split(','))
    else:
        required = {value}
    for uuid in sorted(required | forbidden):
        if not uuidutils.is_uuid_like(uuid):
            raise _bad(INVALID + "Expected 'member_of' parameter to contain "
                       "valid UUID(s). Got: %s" % uuid)
    return required, forbidden


def _group_member_of(req, suffix, want):
    """([set of any-of aggregate uuids, ...], {forbidden uuids})."""
    values = req.GET.getall('member_of' + suffix)
    if want < (1, 24) and len(values) > 1:
        raise _bad('Multiple member_of%s parameters are not supported'
                   % suffix)
    required, forbidden = [], set()
    for value in values:
        any_of, not_wanted = _member_of_value(value)
        if any_of:
            required.append(any_of)
        if not_wanted:
            if want < (1, 32):
                raise _bad('Forbidden member_of%s parameters are not '
                           'supported in the specified microversion' % suffix)
            forbidden |= not_wanted
    return required, forbidden


def _in_tree(value):
    uuid = value.strip()
    if not uuidutils.is_uuid_like(uuid):
        raise _bad(INVALID + "Expected 'in_tree' parameter to be a format of "
                   "uuid. Got: %s" % value)
    return uuid


# -- request-wide keys -------------------------------------------------------

def _limit(values):
    # NOTE(nova_lite): the schema saw the last value; Placement uses the
    # first, and a malformed first one must be a 400 here, not a 500.
    if not values[0].isdigit() or int(values[0]) < 1:
        raise _bad(INVALID + "'limit' must be a positive integer. Got: %s"
                   % values[0], errors.QUERYPARAM_BAD_VALUE)
    return min(int(values[0]), LIMIT_MAX)


def _root_required(values):
    """[([name], forbidden)] of the one ``root_required`` value."""
    if len(values) > 1:
        raise _bad("Query parameter 'root_required' may be specified only "
                   "once.", errors.QUERYPARAM_DUPLICATE_KEY)
    any_of, forbidden = parse_traits(values[0], True, False)
    required = {name for names in any_of for name in names}
    conflicts = required & forbidden
    if conflicts:
        raise _bad('Conflicting required and forbidden traits found in '
                   'root_required: %s' % ', '.join(sorted(conflicts)),
                   errors.QUERYPARAM_BAD_VALUE)
    return ([([name], False) for name in sorted(required)] +
            [([name], True) for name in sorted(forbidden)])


def _same_subtree(values):
    result = []
    for value in values:
        suffixes = {part.strip() for part in value.split(',')}
        if '' in suffixes:
            raise _bad('Empty string (unsuffixed group) can not be specified '
                       'in `same_subtree` ', errors.QUERYPARAM_BAD_VALUE)
        result.append(suffixes)
    return result


def _request_wide(req, request):
    get = req.GET
    if 'limit' in get:
        request.limit = _limit(get.getall('limit'))
    if 'group_policy' in get:
        request.group_policy = get.getall('group_policy')[0]
    if 'root_required' in get:
        request.root_required = _root_required(get.getall('root_required'))
    request.same_subtree = _same_subtree(get.getall('same_subtree'))


# -- request groups -----------------------------------------------------------

class _Group:
    """A group while it is parsed (Placement's shape, names not ids)."""

    def __init__(self, suffix):
        self.suffix = suffix
        self.resources = {}
        self.required = []
        self.forbidden = set()
        self.member_of = []
        self.forbidden_aggs = set()
        self.in_tree = None

    def to_request_group(self):
        required = [(sorted(names), False) for names in self.required]
        required += [([name], True) for name in sorted(self.forbidden)]
        member_of = [(sorted(uuids), False) for uuids in self.member_of]
        if self.forbidden_aggs:
            member_of.append((sorted(self.forbidden_aggs), True))
        return cr.RequestGroup(suffix=self.suffix, resources=self.resources,
                               required=required, member_of=member_of,
                               in_tree=self.in_tree)


def _group_key(key, suffix_pattern):
    """(prefix, suffix) of a request group key, or None."""
    for prefix in schema.GROUP_KEYS:
        match = schema.compiled(prefix, suffix_pattern).match(key)
        if match is not None:
            return prefix, match.group(1) or ''
    return None


def _groups(req, want):
    """{suffix: _Group} in order of first appearance."""
    suffix_pattern = (schema.GROUP_PAT_1_33 if want >= (1, 33)
                      else schema.GROUP_PAT)
    groups = {}
    for key, value in req.GET.items():
        parsed = _group_key(key, suffix_pattern)
        if parsed is None:
            continue
        prefix, suffix = parsed
        group = groups.setdefault(suffix, _Group(suffix))
        if prefix == 'resources':
            group.resources = parse_resources(value)
        elif prefix == 'required':
            group.required, group.forbidden = _group_traits(req, suffix,
                                                            want)
        elif prefix == 'member_of':
            group.member_of, group.forbidden_aggs = _group_member_of(
                req, suffix, want)
        else:
            group.in_tree = _in_tree(value)
    return groups


def _check_same_subtree(groups, same_subtree):
    """1.36+: resourceless groups are only meaningful in a same_subtree."""
    resourceless = sorted(s for s, g in groups.items() if not g.resources)
    if len(resourceless) == len(groups):
        raise _bad('There must be at least one resources or resources[$S] '
                   'parameter.', errors.QUERYPARAM_MISSING_VALUE)
    named = set().union(*same_subtree)
    bad = [suffix for suffix in resourceless if suffix not in named]
    if bad:
        raise _bad('Resourceless suffixed group request should be specified '
                   'in `same_subtree` query param: bad group(s) - %s.' % bad,
                   errors.QUERYPARAM_BAD_VALUE)
    bad = [suffix for suffix in sorted(named) if suffix not in groups]
    if bad:
        raise _bad('Real suffixes should be specified in `same_subtree`: '
                   '%s not found in %s.' % (bad, list(groups)),
                   errors.QUERYPARAM_BAD_VALUE)


def _check_orphans(groups):
    """Before 1.36 every group needs resources."""
    orphans = ['required%s' % s for s, g in groups.items()
               if g.required and not g.resources]
    if orphans:
        raise _bad('All traits parameters must be associated with '
                   'resources.  Found the following orphaned traits keys: '
                   '%s' % ', '.join(orphans))
    orphans = ['member_of%s' % s for s, g in groups.items()
               if not g.resources and (g.member_of or g.forbidden_aggs)]
    if orphans:
        raise _bad('All member_of parameters must be associated with '
                   'resources. Found the following orphaned member_of '
                   'keys: %s' % ', '.join(orphans))
    if not all(g.resources for g in groups.values()):
        raise _bad('All request groups must specify resources.')
    if not groups:
        raise _bad('At least one request group (`resources` or '
                   '`resources{$S}`) is required.')


def _check_conflicts(groups):
    conflicts = sorted(
        'required%s: (%s)' % (s, ', '.join(sorted(names)))
        for s, g in groups.items() for names in g.required
        if names <= g.forbidden)
    if conflicts:
        raise _bad('Conflicting required and forbidden traits found in the '
                   'following traits keys: %s' % ', '.join(conflicts))


# -- the whole query ----------------------------------------------------------

def _last_values(req):
    try:
        return {key: value for key, value in req.GET.items()}
    except UnicodeDecodeError as exc:
        raise _bad(INVALID + str(exc))


def parse(req, randomize=False, max_candidates=-1):
    """The :class:`CandidateRequest` of ``req``; 400 when malformed."""
    want = microversion.of(req)
    util.validate_query_dict(_last_values(req), schema.query_schema(want))
    request = cr.CandidateRequest(randomize=randomize,
                                  max_candidates=max_candidates,
                                  nested_aware=want >= (1, 29))
    _request_wide(req, request)
    groups = _groups(req, want)
    if want >= (1, 36):
        _check_same_subtree(groups, request.same_subtree)
    else:
        _check_orphans(groups)
    if want >= (1, 22):
        _check_conflicts(groups)
    if not request.group_policy and sum(1 for s in groups if s) > 1:
        raise _bad('The "group_policy" parameter is required when '
                   'specifying more than one "resources{N}" parameter.')
    request.same_subtree = [sorted(s) for s in request.same_subtree]
    for suffix, group in groups.items():
        request.groups[suffix] = group.to_request_group()
    return request
