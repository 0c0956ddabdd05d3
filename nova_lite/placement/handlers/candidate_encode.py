"""The body of GET /allocation_candidates as JSON text, in every
microversion shape: a list of allocations per request before 1.12, a
dict keyed by provider from 1.12, traits in summaries from 1.17, parent
and root uuids from 1.29, ``mappings`` from 1.34.

From 1.12 the text is written from templates straight from the search's
ids and providers (a large answer is thousands of small containers the
encoder would otherwise walk); it is byte-identical to ``json.dumps`` of
:func:`serialize` (unit and functional tests).
"""

import json
from json import encoder as json_encoder


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
    data = {'resources': summary.resources}
    if want >= (1, 17):
        data['traits'] = summary.traits
    if want >= (1, 29):
        data['parent_provider_uuid'] = summary.parent_uuid
        data['root_provider_uuid'] = summary.root_uuid
    return data


def serialize(candidates, want):
    """The answer as plain data (json.dumps of it is the body): the
    list shape before 1.12, and the reference the templates are tested
    against."""
    return {
        'allocation_requests': [
            _serialize_request(allocations, mapping, want)
            for allocations, mapping in candidates.allocation_requests],
        'provider_summaries': _serialize_summaries(candidates, want),
    }


def _serialize_summaries(candidates, want):
    return {uuid: _serialize_summary(summary, want)
            for uuid, summary in candidates.summaries.items()}


def _dumps(data):
    # NOTE(nova_lite): compact separators: the body is the largest
    # placement sends (hundreds of KB at 1,000 providers). No cycle
    # check: the tree is built here from fresh dicts and lists (the
    # shared ones are leaves), and its bookkeeping per container is a
    # noticeable share of the encoding time.
    return json.dumps(data, separators=(',', ':'), check_circular=False)


# json.dumps of one string, without the encoder object json.dumps builds
# per call (a thousand uuids per answer at 1,000 providers).
_quote = json_encoder.encode_basestring_ascii


class _Cached(dict):
    """JSON text of strings, encoded once each."""

    def __missing__(self, value):
        text = self[value] = _quote(value)
        return text


def _encode_requests(requests, want):
    """The 1.12+ ``allocation_requests`` array as JSON text.

    Every candidate's body is the same template around a few values: the
    provider uuids, the suffixes and the amounts, where one dict of
    amounts (a group's) is shared by many candidates. Each of those is
    encoded once (uuids and suffixes by value, amounts by identity), so a
    candidate costs a few string joins instead of a walk of four fresh
    containers by the encoder. The text is the one json.dumps gives.
    """
    strings = _Cached()
    amounts = {}
    mappings = want >= (1, 34)
    parts = []
    for allocations, mapping in requests:
        allocated = []
        for uuid, resources in allocations.items():
            entry = amounts.get(id(resources))
            if entry is None:
                entry = amounts[id(resources)] = (resources,
                                                  _dumps(resources))
            allocated.append('%s:{"resources":%s}'
                             % (strings[uuid], entry[1]))
        if mappings:
            mapped = ','.join(
                '%s:[%s]' % (strings[suffix],
                             ','.join(strings[u] for u in uuids))
                for suffix, uuids in mapping.items())
            parts.append('{"allocations":{%s},"mappings":{%s}}'
                         % (','.join(allocated), mapped))
        else:
            parts.append('{"allocations":{%s}}' % ','.join(allocated))
    return '[%s]' % ','.join(parts)


class _UuidTexts(dict):
    """{rp id: JSON text of its uuid}, each quoted once and shared by the
    requests and the summaries of one answer."""

    def __init__(self, uuids):
        super().__init__()
        self.uuids = uuids

    def __missing__(self, rp_id):
        text = self[rp_id] = _quote(self.uuids[rp_id])
        return text


def _encode_found_requests(candidates, want, texts):
    """``_encode_requests`` of a search's own results (ids): each provider's
    uuid and each shared amounts dict named and encoded once, each
    candidate then a few joins of those texts, without the named dicts of
    :attr:`Candidates.allocation_requests` in between. The text is the
    one json.dumps gives (functional test in
    ``tests/functional/placement/test_candidates_encode_found.py``).

    The common candidate (one provider serving the one group: a flat
    compute node) is one format of three texts; the group's amounts dict
    and suffix are the same objects from one candidate to the next, so an
    identity check finds their text."""
    rc_names = candidates.rc_names
    strings = _Cached()
    amounts = {}
    mappings = want >= (1, 34)
    parts = []
    append = parts.append
    last = last_text = None

    for allocation, mapping in candidates.results:
        if len(allocation) == 1 and len(mapping) == 1:
            [(rp_id, resources)] = allocation.items()
            if resources is not last:
                last = resources
                last_text = amounts.get(id(resources))
                if last_text is None:
                    last_text = amounts[id(resources)] = _dumps(
                        {rc_names[rc]: n for rc, n in resources.items()})
            uuid = texts[rp_id]
            if not mappings:
                append('{"allocations":{%s:{"resources":%s}}}'
                       % (uuid, last_text))
                continue
            [(suffix, rp_ids)] = mapping.items()
            if len(rp_ids) == 1 and rp_ids[0] == rp_id:
                append('{"allocations":{%s:{"resources":%s}},'
                       '"mappings":{%s:[%s]}}'
                       % (uuid, last_text, strings[suffix], uuid))
                continue
        allocated = []
        for rp_id, resources in allocation.items():
            text = amounts.get(id(resources))
            if text is None:
                text = amounts[id(resources)] = _dumps(
                    {rc_names[rc]: n for rc, n in resources.items()})
            allocated.append('%s:{"resources":%s}' % (texts[rp_id], text))
        if mappings:
            mapped = ','.join(
                '%s:[%s]' % (strings[suffix],
                             ','.join([texts[rp_id] for rp_id in rp_ids]))
                for suffix, rp_ids in mapping.items())
            append('{"allocations":{%s},"mappings":{%s}}'
                   % (','.join(allocated), mapped))
        else:
            append('{"allocations":{%s}}' % ','.join(allocated))
    return '[%s]' % ','.join(parts)


def _encode_summaries(summaries, want):
    """The 1.12+ ``provider_summaries`` object as JSON text, one template
    per provider: no intermediate dict per summary and per class for the
    encoder to walk. Names and uuids are quoted by the encoder's own
    string function, a list of traits (shared by the providers with the
    same traits) encoded once; the text is the one json.dumps gives."""
    strings = _Cached()
    traits_text = {}
    with_traits = want >= (1, 17)
    with_tree = want >= (1, 29)
    parts = []
    for uuid, summary in summaries.items():
        resources = ','.join([
            '%s:{"capacity":%d,"used":%d}' % (
                strings[name], amounts['capacity'], amounts['used'])
            for name, amounts in summary.resources.items()])
        text = '%s:{"resources":{%s}' % (strings[uuid], resources)
        if with_traits:
            traits = traits_text.get(id(summary.traits))
            if traits is None:
                traits = traits_text[id(summary.traits)] = (
                    summary.traits, _dumps(summary.traits))
            text += ',"traits":' + traits[1]
        if with_tree:
            parent = summary.parent_uuid
            text += ',"parent_provider_uuid":%s,"root_provider_uuid":%s' % (
                'null' if parent is None else strings[parent],
                strings[summary.root_uuid])
        parts.append(text + '}')
    return '{%s}' % ','.join(parts)


class _EntryTexts(dict):
    """{(rc id, inventory tuple): its summary entry as JSON text}."""

    def __init__(self, rc_texts):
        super().__init__()
        self.rc_texts = rc_texts

    def __missing__(self, item):
        rc, inv = item
        text = self[item] = '%s:{"capacity":%d,"used":%d}' % (
            self.rc_texts[rc], inv[0], inv[4])
        return text


def _encode_found_summaries(source, want, texts):
    """``_encode_summaries`` straight from a search's providers
    (:class:`candidate_answer.SummarySource`): no :class:`Summary`,
    resources dict and dict per class built for the encoder to walk. Same
    text. A root (no parent) needs no lookup for its tree's uuids, and
    providers without traits share the empty list's text.

    A class's entry is formatted once per distinct (class, inventory row
    with usage) pair: providers of the same hardware and usage share it
    (formatting the capacity, a float, was most of a summary's cost)."""
    rc_texts = {rc: _quote(name) for rc, name in source.rc_names.items()}
    entries = _EntryTexts(rc_texts)
    traits_text = {frozenset(): '[]'}
    with_traits = want >= (1, 17)
    with_tree = want >= (1, 29)
    wanted = source.wanted
    by_id = source.by_id
    parts = []
    append = parts.append
    for rp_id in source.ids:
        provider = by_id[rp_id]
        if wanted is None:
            resources = ','.join([entries[item]
                                  for item in provider.inv.items()])
        else:
            resources = ','.join([entries[item]
                                  for item in provider.inv.items()
                                  if item[0] in wanted])
        uuid = texts[rp_id]
        if not with_traits:
            append('%s:{"resources":{%s}}' % (uuid, resources))
            continue
        traits = provider.traits
        if traits:
            key = frozenset(traits)
            traits = traits_text.get(key)
            if traits is None:
                traits = traits_text[key] = _dumps(source.trait_list(key))
        else:
            traits = '[]'
        if not with_tree:
            append('%s:{"resources":{%s},"traits":%s}'
                   % (uuid, resources, traits))
            continue
        if provider.parent_id is None:
            append('%s:{"resources":{%s},"traits":%s,'
                   '"parent_provider_uuid":null,"root_provider_uuid":%s}'
                   % (uuid, resources, traits, uuid))
            continue
        parent, root = source.tree_uuids(provider)
        append('%s:{"resources":{%s},"traits":%s,'
               '"parent_provider_uuid":%s,"root_provider_uuid":%s}'
               % (uuid, resources, traits,
                  'null' if parent is None else _quote(parent),
                  _quote(root)))
    return '{%s}' % ','.join(parts)


def encode(candidates, want):
    """The response body: the allocation requests and the summaries from
    templates from 1.12 (the list shape before is rare and left to the
    encoder)."""
    if want < (1, 12):
        return _dumps(serialize(candidates, want))
    texts = _UuidTexts(candidates.uuids)
    source = candidates.summary_source
    if source is not None:
        # NOTE(nova_lite): the summarised providers include every one a
        # request allocates from: quote them in one pass, not one
        # __missing__ call (and its uuid lookup) each.
        by_id = source.by_id
        texts.update({rp_id: _quote(by_id[rp_id].uuid)
                      for rp_id in source.ids})
    if candidates.results is not None:
        requests = _encode_found_requests(candidates, want, texts)
    else:
        requests = _encode_requests(candidates.allocation_requests, want)
    if candidates.summary_source is not None:
        summaries = _encode_found_summaries(candidates.summary_source, want,
                                            texts)
    else:
        summaries = _encode_summaries(candidates.summaries, want)
    return '{"allocation_requests":%s,"provider_summaries":%s}' % (
        requests, summaries)
