"""The answer of an allocation candidates search, as the handler's
encoder reads it: the results in ids with the providers' uuids and the
class names (:class:`Candidates`), the summaries' providers and names
(:class:`SummarySource`), and the named forms (:class:`Summary`, the
named requests) built only when a caller asks for them (before 1.12, and
the byte-identity tests).

Split from :mod:`allocation_candidate`, which finds the candidates and
calls :func:`summaries` once, at the end: the only SQL here is the
lookup of the few names the search did not resolve itself.
"""

import dataclasses

import sqlalchemy as sa

from nova_lite.placement.objects import common


class Candidates:
    """The answer, with names resolved for the handler.

    ``allocation_requests`` is [({rp uuid: {rc name: amount}}, {suffix:
    [rp uuid]})]; ``summaries`` {rp uuid: :class:`Summary`}. From a
    search, the requests are also kept as found (``results``, in ids,
    with ``uuids`` {rp id: uuid} and ``rc_names`` {rc id: name}) and
    named only when asked: the handler's encoder names and encodes them
    in one pass, without a dict per candidate in between.
    """

    def __init__(self, allocation_requests=None, summaries=None,
                 results=None, uuids=None, rc_names=None,
                 summary_source=None):
        self._named = allocation_requests
        self._summaries = summaries
        self.results = results
        self.uuids = uuids
        self.rc_names = rc_names
        self.summary_source = summary_source

    @property
    def summaries(self):
        if self._summaries is None:
            self._summaries = self.summary_source.summaries()
        return self._summaries

    @property
    def allocation_requests(self):
        if self._named is None:
            self._named = _named(self.results, self.uuids, self.rc_names)
        return self._named


@dataclasses.dataclass
class Summary:
    uuid: str
    parent_uuid: str | None
    root_uuid: str
    resources: dict   # {rc name: {'capacity': int, 'used': int}}
    traits: list


def _summary_ids(search, by_id):
    """Providers to summarise: from 1.29 the whole trees of the providers
    allocated from (not of those only named by a resourceless group), else
    those allocated from."""
    ids = {rp for alloc, _ in search.results for rp in alloc}
    if not search.request.nested_aware:
        return sorted(ids)
    roots = {by_id[rp].root_id for rp in ids}
    ids |= {p.id for p in by_id.values() if p.root_id in roots}
    return sorted(ids)


class SummarySource:
    """What the provider summaries are made of: the providers to
    summarise (ids in order), the providers by id and the names. The
    handler's encoder formats them straight into text (from 1.12); the
    :class:`Summary` objects are built only when asked for."""

    def __init__(self, ids, by_id, rc_names, trait_names, wanted):
        self.ids = ids
        self.by_id = by_id
        self.rc_names = rc_names
        self.trait_names = trait_names
        # Resource class ids to show; None: every class (1.27+).
        self.wanted = wanted

    def trait_list(self, key):
        """Names of the trait ids ``key``, in trait id order, as
        Placement lists them (standard traits first; clients compare
        these lists)."""
        return [self.trait_names[t] for t in sorted(key)]

    def tree_uuids(self, provider):
        """(parent uuid or None, root uuid) of ``provider``."""
        by_id = self.by_id
        root = by_id.get(provider.root_id)
        parent = by_id.get(provider.parent_id)
        return (parent.uuid if parent is not None else None,
                root.uuid if root is not None else provider.uuid)

    def summaries(self):
        """{uuid: Summary}; providers with the same traits share one
        list of names."""
        rc_names = self.rc_names
        wanted = self.wanted
        trait_lists = {}
        result = {}
        for rp_id in self.ids:
            provider = self.by_id[rp_id]
            resources = {}
            for rc, inv in provider.inv.items():
                if wanted is None or rc in wanted:
                    resources[rc_names[rc]] = {
                        'capacity': int(inv[0]), 'used': inv[4]}
            key = frozenset(provider.traits)
            traits = trait_lists.get(key)
            if traits is None:
                traits = trait_lists[key] = self.trait_list(key)
            parent_uuid, root_uuid = self.tree_uuids(provider)
            result[provider.uuid] = Summary(
                uuid=provider.uuid, parent_uuid=parent_uuid,
                root_uuid=root_uuid, resources=resources, traits=traits)
        return result


def summaries(context, search, by_id, all_classes):
    """The :class:`SummarySource` of the answer, names resolved."""
    ids = _summary_ids(search, by_id)
    rc_ids = {rc for rp in ids for rc in by_id[rp].inv}
    trait_ids = {t for rp in ids for t in by_id[rp].traits}
    rc_names = _names(context, common.RC, rc_ids, search.ids.rcs)
    trait_names = _names(context, common.TRAIT, trait_ids, search.ids.traits,
                         common.standard_trait_names())
    wanted = None if all_classes else set(search.ids.rcs.values())
    return SummarySource(ids, by_id, rc_names, trait_names, wanted), rc_names


def _lookup(table):
    """``SELECT id, name WHERE id IN :keys`` of ``table``, built once at
    import: a prebuilt statement spares its construction and
    SQLAlchemy's cache key walk."""
    return sa.select(table.c.id, table.c.name).where(
        table.c.id.in_(sa.bindparam('keys', expanding=True)))


_NAMES_BY_ID = {common.RC.name: _lookup(common.RC),
                common.TRAIT.name: _lookup(common.TRAIT)}


def _names(context, table, id_values, known, standard=None):
    """{id: name} for ``id_values``: the names the request itself
    resolved (``known``, {name: id}, read in this transaction), the
    ``standard`` ones ({id: name}, remembered per database) and a lookup
    of the others only. Summaries of flat computes name no class beyond
    the requested ones, nor a trait beyond the standard ones, so that
    lookup is usually skipped."""
    names = {i: name for name, i in known.items() if i in id_values}
    missing = id_values.difference(names)
    if standard and missing:
        for i in list(missing):
            name = standard.get(i)
            if name is not None:
                names[i] = name
                missing.discard(i)
    if missing:
        rows = context.session.execute(_NAMES_BY_ID[table.name],
                                       {'keys': sorted(missing)}).all()
        names.update({r[0]: r[1] for r in rows})
    return names


class Uuids(dict):
    """{rp id: uuid} of the providers of a search, filled on demand."""

    def __init__(self, by_id):
        super().__init__()
        self.by_id = by_id

    def __missing__(self, rp_id):
        uuid = self[rp_id] = self.by_id[rp_id].uuid
        return uuid


def _named(results, uuids, rc_names):
    """The results with uuids and names. A group's amounts are one shared
    dict (:attr:`_GroupRules.amounts`), so each is named once, not once
    per candidate."""
    named = []
    names = {}
    for allocation, mapping in results:
        requested = {}
        for rp, res in allocation.items():
            entry = names.get(id(res))
            if entry is None:
                entry = names[id(res)] = (
                    res, {rc_names[rc]: n for rc, n in res.items()})
            requested[uuids[rp]] = entry[1]
        named.append((requested,
                      {suffix: [uuids[rp] for rp in rps]
                       for suffix, rps in mapping.items()}))
    return named
