"""Allocation candidates: combine the providers of each viable tree into
allocation requests, and summarise the providers involved.

The rules (Placement's, restated):

* a numbered group is served by one provider of the tree or a sharing
  provider anchored to it: every class of the group fits on it, it has
  the group's required traits (an ``in:`` entry needs one of its names)
  and none of its forbidden ones, it is itself in the group's
  ``member_of`` aggregates, and it is in ``in_tree``'s tree; a numbered
  group without resources (1.36) just names such a provider;
* the unnumbered group takes each class from one provider of the tree or
  from a sharing provider anchored to it; no provider used may carry a
  forbidden trait, and the providers used together must have the required
  traits; for ``member_of`` a provider of the tree counts through its own
  aggregates or its root's, a sharing provider only through its own, and a
  root in a forbidden aggregate rules out its whole tree;
* ``group_policy=isolate`` makes the providers of the numbered groups
  (resourceless ones included) pairwise distinct; amounts that land on the
  same provider and class are added up and must still fit;
* ``same_subtree``: among the providers of the listed groups, one is an
  ancestor (or self) of all the others;
* before 1.29 a candidate may not use two providers of one tree (nested
  providers alone are fine);
* ``limit`` stops the search once enough candidates exist (after shuffling
  the trees when ``randomize`` is set); ``max_candidates`` bounds the
  generation in every case.

This module is plain Python, the top of the read path: it calls down,
once per step, into :mod:`root_query` (which trees may serve),
:mod:`tree_reads` (those trees as providers; both run statements of
:mod:`tree_statements`) and, at the end, :mod:`candidate_answer`; none of
them calls back up.
"""

import itertools
import random

from oslo_log import log as logging

from nova_lite.placement.db import api as db_api
from nova_lite.placement.objects import candidate_answer as answer
from nova_lite.placement.objects import root_query
from nova_lite.placement.objects import tree_reads

LOG = logging.getLogger(__name__)
# Fewest trees examined per round when a limit cuts the search (the
# first round reads the limit's worth when it is larger).
MIN_BATCH = 16


class _Search:
    """One request being answered: the ids, the sharing providers (and
    which classes they have room for: :func:`_sharing_room`) and the
    results gathered so far."""

    def __init__(self, request, ids, sharing, sharing_room):
        self.request = request
        self.ids = ids
        self.sharing = sharing
        self.sharing_room = sharing_room
        self.anchored = {}
        self.results = []
        self.seen = set()
        self.cap = self._cap()

    def _cap(self):
        caps = []
        if self.request.max_candidates and self.request.max_candidates > 0:
            caps.append(self.request.max_candidates)
        if self.request.limit is not None and not self.request.randomize:
            caps.append(self.request.limit)
        return min(caps) if caps else None

    @property
    def full(self):
        return self.cap is not None and len(self.results) >= self.cap


# -- per-provider checks ------------------------------------------------------

def _fits(provider, rc_id, amount, already=0):
    """Room on ``provider`` for ``amount`` more of ``rc_id`` (on top of
    ``already`` in this request) within the unit constraints. The
    capacity rule lives with the other rules: a provider is a record of
    what the tree reads found."""
    inv = provider.inv.get(rc_id)
    if inv is None:
        return False
    capacity, min_unit, max_unit, step, used = inv
    if amount < min_unit or amount > max_unit or amount % step:
        return False
    if already and amount + already > max_unit:
        return False
    return capacity - used >= amount + already


def _in_all(aggs, entries):
    """``aggs`` meets every positive member_of entry (any-of each)."""
    return all(aggs & agg_ids for agg_ids in entries)


def _traits_ok(traits, any_of, forbidden):
    if traits & forbidden:
        return False
    return all(traits & entry for entry in any_of)


class _GroupRules:
    """A group's constraints in ids, checked per provider.

    ``member_of`` is Placement's, which differs by group: a numbered group's
    provider must itself be in the aggregates; in the unnumbered group a
    provider of the tree counts as a member through its own aggregates or
    (all of them) its root's, and a sharing provider from elsewhere only
    through its own. A forbidden aggregate excludes a provider that is in
    it, and in the unnumbered group also every provider of a tree whose
    root (the anchor) is in it.
    """

    def __init__(self, group, ids):
        self.group = group
        self.resources = [(ids.rcs[rc], amount)
                          for rc, amount in sorted(group.resources.items())]
        # One dict for every allocation of this group on one provider:
        # shared, never mutated (sums are built in new dicts).
        self.amounts = dict(self.resources)
        self.any_of = [ids.trait_ids(e) for e in group.required_any_of]
        self.forbidden = ids.trait_ids(group.forbidden_traits)
        self.member_of = [ids.agg_ids(uuids)
                          for uuids, forbidden in group.member_of
                          if not forbidden]
        self.forbidden_aggs = {a for uuids, forbidden in group.member_of
                               if forbidden for a in ids.agg_ids(uuids)}
        self.tree_root = (ids.tree_roots.get(group.in_tree, -1)
                          if group.in_tree else None)

    def _aggs_ok(self, provider, anchor):
        if not self.group.numbered:
            if provider.root_id == anchor.id:
                if self.member_of and not (
                        _in_all(provider.aggs, self.member_of) or
                        _in_all(anchor.aggs, self.member_of)):
                    return False
            elif not _in_all(provider.aggs, self.member_of):
                return False
            return not ((provider.aggs | anchor.aggs) & self.forbidden_aggs)
        return (_in_all(provider.aggs, self.member_of) and
                not provider.aggs & self.forbidden_aggs)

    def placed_ok(self, provider, anchor):
        """member_of and in_tree hold for ``provider`` in a candidate
        anchored at the root provider ``anchor``."""
        if self.tree_root is not None and provider.root_id != self.tree_root:
            return False
        if self.member_of or self.forbidden_aggs:
            return self._aggs_ok(provider, anchor)
        return True

    def single_ok(self, provider, anchor):
        """``provider`` alone satisfies the whole group."""
        if not _traits_ok(provider.traits, self.any_of, self.forbidden):
            return False
        if not all(_fits(provider, rc, n) for rc, n in self.resources):
            return False
        return self.placed_ok(provider, anchor)


# -- fragments: the ways one group is met in one tree -------------------------

def _numbered_fragments(rules, pool, anchor):
    fragments = []
    for provider in pool:
        if rules.single_ok(provider, anchor):
            allocation = {provider.id: rules.amounts}
            fragments.append((allocation, (provider.id,)))
    return fragments


def _single_provider_fragments(rules, provider, anchor):
    """The common flat case: one provider serves the whole group."""
    if provider.traits & rules.forbidden or not all(
            _fits(provider, rc, n) for rc, n in rules.resources):
        return []
    if rules.any_of and not all(provider.traits & e for e in rules.any_of):
        return []
    if not rules.placed_ok(provider, anchor):
        return []
    return [({provider.id: rules.amounts}, (provider.id,))]


def _unnumbered_fragments(rules, pool, anchor):
    if len(pool) == 1:
        return _single_provider_fragments(rules, pool[0], anchor)
    choices = []
    for rc_id, amount in rules.resources:
        fitting = [p for p in pool
                   if not (p.traits & rules.forbidden)
                   and _fits(p, rc_id, amount)
                   and rules.placed_ok(p, anchor)]
        if not fitting:
            return []
        choices.append(fitting)
    fragments = []
    for combo in itertools.product(*choices):
        allocation = {}
        for provider, (rc_id, amount) in zip(combo, rules.resources,
                                             strict=True):
            allocation.setdefault(provider.id, {})[rc_id] = amount
        if rules.any_of:
            traits = set().union(*(p.traits for p in combo))
            if not all(traits & entry for entry in rules.any_of):
                continue
        fragments.append((allocation, tuple(sorted(allocation))))
    return fragments


def _resourceless_fragments(rules, pool, anchor):
    return [({}, (p.id,)) for p in pool if rules.single_ok(p, anchor)]


def _fragments(rules, pool, anchor):
    if not rules.resources:
        return _resourceless_fragments(rules, pool, anchor)
    if rules.group.numbered:
        return _numbered_fragments(rules, pool, anchor)
    return _unnumbered_fragments(rules, pool, anchor)


# -- combining the groups -----------------------------------------------------

def _merge(parts, by_id):
    """Add up the allocations of ``parts``; None when a sum overflows."""
    merged = {}
    for allocation, _ in parts:
        for rp_id, resources in allocation.items():
            target = merged.setdefault(rp_id, {})
            for rc_id, amount in resources.items():
                if rc_id in target:
                    already = target[rc_id]
                    if not _fits(by_id[rp_id], rc_id, amount, already):
                        return None
                    target[rc_id] = already + amount
                else:
                    target[rc_id] = amount
    return merged


def _isolated(parts, groups):
    """Every numbered group, resourceless ones included, on a provider of
    its own."""
    chosen = [mapped[0]
              for (_, mapped), group in zip(parts, groups, strict=True)
              if group.numbered]
    return len(chosen) == len(set(chosen))


def _is_ancestor(ancestor_id, rp_id, by_id):
    while rp_id is not None:
        if rp_id == ancestor_id:
            return True
        provider = by_id.get(rp_id)
        rp_id = provider.parent_id if provider is not None else None
    return False


def _same_subtree_ok(mapping, same_subtree, by_id):
    for suffixes in same_subtree:
        members = {rp for s in suffixes for rp in mapping.get(s, ())}
        if not any(all(_is_ancestor(top, rp, by_id) for rp in members)
                   for top in members):
            return False
    return True


def _tree_candidates(search, rules, root_id, tree, by_id):
    """Yield (allocation, mapping) for one tree, as ids."""
    root = by_id[root_id]
    pool = tree
    anchored = search.anchored.get(root_id)
    if anchored:
        members = {p.id for p in tree}
        pool = tree + [search.sharing[s] for s in sorted(anchored)
                       if s not in members]
    per_group = []
    for group_rules in rules:
        fragments = _fragments(group_rules, pool, root)
        if not fragments:
            return
        per_group.append(fragments)
    groups = [r.group for r in rules]
    if len(per_group) == 1:
        for allocation, mapped in per_group[0]:
            yield allocation, {groups[0].suffix: list(mapped)}
        return
    same_subtree = search.request.same_subtree
    isolate = search.request.isolate
    for parts in itertools.product(*per_group):
        if isolate and not _isolated(parts, groups):
            continue
        merged = _merge(parts, by_id)
        if merged is None:
            continue
        mapping = {g.suffix: list(mapped) for (_, mapped), g
                   in zip(parts, groups, strict=True)}
        if same_subtree and not _same_subtree_ok(mapping, same_subtree,
                                                 by_id):
            continue
        yield merged, mapping


def _one_per_tree(allocation, by_id):
    """Before 1.29 Placement is blind to trees: a candidate may use a
    nested provider, but not two providers of one tree."""
    roots = {by_id[rp_id].root_id for rp_id in allocation}
    return len(roots) == len(allocation)


def _duplicate(search, allocation, mapping, root_id, by_id):
    """True when a candidate made only of sharing providers (found from
    each tree they share with, and from their own) was already found."""
    if not search.sharing or not all(by_id[rp].sharing or
                                     by_id[rp].root_id != root_id
                                     for rp in allocation):
        return False
    key = (frozenset((rp, rc, n) for rp, res in allocation.items()
                     for rc, n in res.items()),
           frozenset((s, tuple(v)) for s, v in mapping.items()))
    if key in search.seen:
        return True
    search.seen.add(key)
    return False


def _single_checker(rules):
    """``rules.single_ok(p, p)`` as one flat function: the same checks in
    the same order (forbidden traits, every class fits, the any-of
    entries, then member_of and in_tree), with the group's values bound
    once instead of looked up per provider. On a 1,000-tree answer the
    generic path's calls (``_fits`` per class, generator per ``all``)
    were a fifth of the search.

    The unnumbered group's member_of is left out: for a tree of one
    provider without sharing providers (the only trees asked here) the
    root query's condition on it is exact, and the provider's aggregates
    are not read for such trees (``tree_reads.NESTED_AGGS``)."""
    resources = tuple(rules.resources)
    forbidden = rules.forbidden
    any_of = tuple(rules.any_of)
    if rules.group.numbered:
        placed = (rules.tree_root is not None or bool(rules.member_of) or
                  bool(rules.forbidden_aggs))
        placed_ok = rules.placed_ok
    else:
        tree_root = rules.tree_root
        placed = tree_root is not None

        def placed_ok(provider, anchor):
            return provider.root_id == tree_root

    def ok(provider):
        traits = provider.traits
        if forbidden and traits & forbidden:
            return False
        inv = provider.inv
        for rc_id, amount in resources:
            entry = inv.get(rc_id)
            if entry is None:
                return False
            capacity, min_unit, max_unit, step, used = entry
            if (amount < min_unit or amount > max_unit or amount % step or
                    capacity - used < amount):
                return False
        for entry in any_of:
            if not traits & entry:
                return False
        return not placed or placed_ok(provider, provider)
    return ok


def _one_provider_trees(search, rules, trees, anchored):
    """Yield the trees the one-provider fast path cannot answer; answer
    the others: a one-group request on a one-provider tree without
    sharing providers (a flat compute node) has at most one candidate,
    the provider itself. The general path gives the same answer through
    fragments and products; this skips their machinery."""
    ok = _single_checker(rules)
    suffix = rules.group.suffix
    amounts = rules.amounts if rules.resources else None
    results = search.results
    cap = search.cap
    for root_id, tree in trees.items():
        if not tree:
            continue
        if len(tree) != 1 or root_id in anchored:
            yield root_id, tree
            continue
        provider = tree[0]
        if not ok(provider):
            continue
        rp_id = provider.id
        allocation = {rp_id: amounts} if amounts is not None else {}
        results.append((allocation, {suffix: [rp_id]}))
        if cap is not None and len(results) >= cap:
            return


def _collect(search, rules, trees):
    by_id = {p.id: p for tree in trees.values() for p in tree}
    by_id.update(search.sharing)
    nested_aware = search.request.nested_aware
    anchored = search.anchored
    pending = trees.items()
    if len(rules) == 1:
        pending = _one_provider_trees(search, rules[0], trees, anchored)
    for root_id, tree in pending:
        if not tree:
            continue
        if search.full:
            return by_id
        for allocation, mapping in _tree_candidates(search, rules, root_id,
                                                    tree, by_id):
            if not nested_aware and not _one_per_tree(allocation, by_id):
                continue
            if _duplicate(search, allocation, mapping, root_id, by_id):
                continue
            search.results.append((allocation, mapping))
            if search.full:
                return by_id
    return by_id


# -- the search loop ----------------------------------------------------------

def _batches(context, search):
    """(root ids, their providers' rows or None, their usage rows or None)
    to examine, in order,
    until the search is full (see :func:`root_query.viable_trees`)."""
    request = search.request
    if request.limit is not None and not request.randomize:
        # NOTE(nova_lite): the SQL filter is only a necessary condition;
        # when trees keep failing the Python checks, take bigger bites.
        # The first bite is the limit itself, and without the capacity
        # conditions (room=False): in a cloud with room the first trees by
        # id have it, and the Python checks, which are exact, find them
        # from the usage the tree reads bring anyway; the capacity probes
        # (a usage sum per inventory of each root) were the costliest
        # statement of a limit=50 request on MariaDB.
        # The answer is the same: the next bites, filtered, start after
        # the last tree of the first. A full cloud pays one bite more.
        size = max(request.limit, MIN_BATCH)
        after = None
        room = False
        while not search.full:
            roots, rows, ahead = root_query.viable_trees(
                context, request, search.ids, search.sharing_room, after,
                size, room=room)
            if not roots:
                return
            yield roots, rows, ahead
            if len(roots) < size:
                return
            after = roots[-1]
            if room:
                size *= 2
            room = True
        return
    # NOTE(nova_lite): without a limit every viable tree is read, so the
    # capacity part of the SQL filter would only repeat the Python checks
    # at the price of a usage lookup per inventory row; the randomized
    # limited search keeps it (fewer trees shuffled and read).
    if request.limit is None:
        yield root_query.viable_trees(context, request, search.ids,
                                      search.sharing_room, room=False)
        return
    roots = root_query.viable_roots(context, request, search.ids,
                                    search.sharing_room)
    random.shuffle(roots)
    size = max(request.limit * 2, MIN_BATCH)
    for start in range(0, len(roots), size):
        if search.full or len(search.results) >= request.limit:
            return
        yield roots[start:start + size], None, None


def _with_aggs(request, sharing):
    """Whether the trees' aggregates are read: with member_of, and for
    sharing providers; when the unnumbered group is the only one and no
    sharing provider is involved, only with a tree of more than one
    provider (a one-provider tree then takes the one-provider path,
    whose checker leaves that member_of to the root query)."""
    if sharing:
        return True
    if not request.aggregate_uuids():
        return False
    if list(request.groups) == ['']:
        return tree_reads.NESTED_AGGS
    return True


def _usable(rules, sharing):
    """The check of a provider's traits that decides whether a tree of
    that provider alone may have a candidate, for the one-group request
    without sharing providers (the one-provider path's first checks,
    forbidden then required traits: exact for such a tree); None when
    traits rule nothing out. The tree reads skip the inventories of the
    trees it rejects (``tree_reads._load``)."""
    if sharing or len(rules) != 1:
        return None
    forbidden = rules[0].forbidden
    any_of = tuple(rules[0].any_of)
    if not forbidden and not any_of:
        return None

    def usable(provider):
        traits = provider.traits
        if traits & forbidden:
            return False
        for entry in any_of:
            if not traits & entry:
                return False
        return True
    return usable


def _sharing_room(rules, sharing):
    """{(rc id, amount, forbidden trait ids): ids of the sharing
    providers with room for that amount of a group and none of its
    forbidden traits}, empty without sharing providers: what the root
    query needs of them (``root_query.plan``), decided once per request
    by the rules here, so that the SQL side sees ids, not providers."""
    room = {}
    if not sharing:
        return room
    for group_rules in rules:
        forbidden = frozenset(group_rules.forbidden)
        for rc_id, amount in group_rules.resources:
            room[rc_id, amount, forbidden] = frozenset(
                p.id for p in sharing.values()
                if _fits(p, rc_id, amount) and not p.traits & forbidden)
    return room


def _search(context, request):
    ids = root_query.resolve(context, request)
    sharing = tree_reads.load_sharing(context, request, ids)
    rules = [_GroupRules(g, ids) for g in request.ordered_groups]
    search = _Search(request, ids, sharing, _sharing_room(rules, sharing))
    by_id = dict(sharing)
    with_aggs = _with_aggs(request, sharing)
    usable = _usable(rules, sharing)
    for roots, rows, ahead in _batches(context, search):
        trees = tree_reads.load_trees(context, roots, with_aggs, usable,
                                      rows, ahead)
        search.anchored = tree_reads.anchors(context, sharing, roots)
        by_id.update(_collect(search, rules, trees))
        if search.full:
            break
    return search, by_id


@db_api.reader
def find(context, request, all_classes=True):
    """The :class:`Candidates` for ``request`` (a CandidateRequest).

    :param all_classes: summaries list every class of a provider (1.27+),
        not only the requested ones.
    """
    search, by_id = _search(context, request)
    if request.limit is not None:
        if request.randomize and len(search.results) > request.limit:
            search.results = random.sample(search.results, request.limit)
        del search.results[request.limit:]
    source, rc_names = answer.summaries(context, search, by_id, all_classes)
    LOG.debug('%d allocation candidates, %d provider summaries',
              len(search.results), len(source.ids))
    return answer.Candidates(results=search.results,
                            uuids=answer.Uuids(by_id),
                      rc_names=rc_names, summary_source=source)
