"""The claim loop of ``select_destinations``: claim, release, answer.

Once the filters and weighers have ordered the hosts of one instance, the
manager hands them here (NOVA_FACTS 1.4, 2.7):

* :func:`claim_first` walks the hosts in weighed order and claims each
  host's first allocation candidate in placement until one claim is
  accepted; a refused claim (another build took the room) moves on to the
  next host, a consumer that already has allocations ends the request.
  A request without instance uuids claims nothing and takes the first
  host that has a candidate;
* :func:`release` deletes the claims of a request that failed part way
  (instance k found no host: the instances before it must not keep
  theirs);
* :func:`selections` answers the request: per instance the chosen host
  first, then up to ``max_attempts - 1`` alternates of the same cell, in
  weighed order, not chosen for any instance of the request, each with
  its own (unclaimed) allocation request.

The request (``manager._Request``) carries what the loop reads and
records: the spec, whether to claim, the instances claimed so far, the
picks, the timings and the decision recorder.
"""

from nova_lite.scheduler import claims
from nova_lite.scheduler import deadline
from nova_lite.scheduler import explain
from nova_lite import objects


def claim_first(placement, request, ordered, instance_uuid, stats=None,
                evacuation=False):
    """The first host of ``ordered`` whose claim succeeds, and its
    allocation request; (None, None) when none does.

    :param evacuation: the instance keeps its allocation on the dead
        source: the claim is merged into it and never released here
        (releasing it would delete the source allocation too).
    :raises NoValidHost: the instance already has allocations.
    """
    claim = (claims.claim_on_top_of_existing if evacuation
             else claims.claim_resources)
    spec = request.spec
    for state in ordered:
        if not state.allocation_candidates:
            continue
        alloc_req = state.allocation_candidates[0]
        if not request.claim:
            return state, alloc_req
        deadline.check(request.context, 'claiming')
        with request.timings.phase('claims'):
            try:
                outcome = claim(placement, instance_uuid, alloc_req,
                                spec.project_id, spec.user_id, stats=stats)
            except Exception:
                # NOTE(nova_lite): no answer (placement timed out) may
                # still be a claim: released with the others.
                if not evacuation:
                    request.claimed.append(instance_uuid)
                raise
        if outcome == claims.CLAIMED:
            if not evacuation:
                request.claimed.append(instance_uuid)
            return state, alloc_req
        if outcome == claims.CONSUMER_EXISTS:
            raise explain.no_valid_host(
                'Instance %s already has allocations in placement.'
                % instance_uuid)
        request.recorder.claim_failed(state)
    return None, None


def release(placement, request):
    """Delete the allocations the request claimed so far."""
    if request.claimed:
        claims.release(placement, request.claimed)
        request.claimed = []


def selections(request, last_sorted, num_alts):
    """Per instance, its Selections: the chosen host, then alternates
    taken from ``last_sorted`` (the weighed hosts of the last pick)."""
    chosen_keys = {(s.host, s.nodename) for s, _r in request.chosen}
    result = []
    for state, alloc_req in request.chosen:
        items = [selection(state, alloc_req, request.version)]
        for alt in last_sorted:
            if len(items) > num_alts:
                break
            if (alt.cell_uuid != state.cell_uuid or
                    (alt.host, alt.nodename) in chosen_keys or
                    not alt.allocation_candidates):
                continue
            items.append(selection(alt, alt.allocation_candidates[0],
                                   request.version))
        result.append(items)
    request.attempts = [
        request.recorder.attempt_for(index, [
            '%s/%s' % (s.service_host, s.nodename) for s in items[1:]])
        for index, items in enumerate(result)]
    return result


def selection(state, alloc_req, version):
    """The Selection of ``state`` carrying ``alloc_req`` (None: none)."""
    return objects.Selection.from_allocation_request(
        state.host, state.nodename, state.uuid, state.cell_uuid, alloc_req,
        version, availability_zone=state.availability_zone)
