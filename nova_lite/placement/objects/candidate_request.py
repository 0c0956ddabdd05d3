"""What ``GET /allocation_candidates`` asks for, parsed and version-free.

The handler turns the query string into a :class:`CandidateRequest`; the
object layer (``allocation_candidate`` for the combination of providers,
``root_query`` and ``tree_reads`` for SQL) only ever sees this, never
webob or microversions except through the plain flags set here.

Traits and aggregates use the same entry shape as
``provider_filters``: a list of ``(names, forbidden)`` where ``names`` is an
any-of list and ``forbidden`` entries exclude.
"""

import dataclasses

UNNUMBERED = ''


@dataclasses.dataclass
class RequestGroup:
    """One request group; ``suffix`` '' is the unnumbered group.

    A numbered group is satisfied by exactly one provider; the unnumbered
    group may spread its resource classes over the providers of one tree
    and the sharing providers anchored to it.
    """
    suffix: str = UNNUMBERED
    resources: dict = dataclasses.field(default_factory=dict)
    required: list = dataclasses.field(default_factory=list)
    member_of: list = dataclasses.field(default_factory=list)
    in_tree: str | None = None

    @property
    def numbered(self):
        return self.suffix != UNNUMBERED

    @property
    def required_any_of(self):
        """Required entries as sets of names (each needs one of them)."""
        return [set(names) for names, forbidden in self.required
                if not forbidden]

    @property
    def forbidden_traits(self):
        return {n for names, forbidden in self.required if forbidden
                for n in names}

    def trait_names(self):
        return {n for names, _ in self.required for n in names}


@dataclasses.dataclass
class CandidateRequest:
    """Every group plus the request-wide options."""
    groups: dict = dataclasses.field(default_factory=dict)
    group_policy: str | None = None
    root_required: list = dataclasses.field(default_factory=list)
    same_subtree: list = dataclasses.field(default_factory=list)
    limit: int | None = None
    randomize: bool = False
    max_candidates: int = -1
    # 1.29+: candidates may use nested providers; summaries name the tree.
    nested_aware: bool = True

    def group(self, suffix):
        if suffix not in self.groups:
            self.groups[suffix] = RequestGroup(suffix=suffix)
        return self.groups[suffix]

    @property
    def ordered_groups(self):
        """Groups in a stable order, the unnumbered one first."""
        return [self.groups[s] for s in sorted(self.groups)]

    @property
    def isolate(self):
        return self.group_policy == 'isolate'

    def resource_class_names(self):
        return {rc for g in self.groups.values() for rc in g.resources}

    def trait_names(self):
        names = {n for g in self.groups.values() for n in g.trait_names()}
        names |= {n for entry, _ in self.root_required for n in entry}
        return names

    def aggregate_uuids(self):
        return {u for g in self.groups.values()
                for uuids, _ in g.member_of for u in uuids}

    def in_tree_uuids(self):
        return {g.in_tree for g in self.groups.values() if g.in_tree}
