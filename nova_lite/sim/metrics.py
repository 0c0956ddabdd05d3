"""Figures of one run: utilisation per resource class and its spread.

A host's utilisation of a resource class is what is allocated on its own
(root) provider over what placement lets be allocated there,
``(total - reserved) * allocation_ratio``. Over the hosts of the snapshot
that have the class: the mean, the population standard deviation (the
*spread*: high when some hosts are full and others empty - packing -, low
when every host carries about the same share - spreading), min, max, and
the number of hosts with nothing of it allocated.
"""

import math


def _capacity(inv):
    return max(0.0, (inv['total'] - inv.get('reserved', 0)) *
               inv.get('allocation_ratio', 1.0))


def summarize(values):
    if not values:
        return {'hosts': 0}
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return {'hosts': len(values), 'mean': round(mean, 4),
            'stdev': round(math.sqrt(var), 4),
            'min': round(min(values), 4), 'max': round(max(values), 4),
            'empty': sum(1 for v in values if v == 0)}


def utilisation(providers, host_uuids):
    """``{rc: summary}`` over the hosts among ``providers`` (the
    ``GET /nova_lite/capacity`` shape)."""
    per_rc = {}
    for prov in providers:
        if prov['uuid'] not in host_uuids:
            continue
        usages = prov.get('usages') or {}
        for rc, inv in (prov.get('inventories') or {}).items():
            cap = _capacity(inv)
            if cap > 0:
                per_rc.setdefault(rc, []).append(usages.get(rc, 0) / cap)
    return {rc: summarize(values) for rc, values in sorted(per_rc.items())}


def sample(until, providers, host_uuids):
    return {'until': round(until, 3),
            'utilisation': utilisation(providers, host_uuids)}


def timeline(results, samples):
    """Placed and NoValidHost counts up to each sample's time (cumulative),
    with the sample's utilisation."""
    rows, index, placed, failed = [], 0, 0, 0
    ordered = sorted(results, key=lambda r: r['time'])
    for snap in samples:
        while index < len(ordered) and ordered[index]['time'] <= \
                snap['until']:
            if ordered[index]['result'] == 'placed':
                placed += 1
            else:
                failed += 1
            index += 1
        rows.append({'until': snap['until'], 'placed': placed,
                     'no_valid_host': failed,
                     'utilisation': snap['utilisation']})
    return rows


def spread_over_time(samples):
    """Per resource class, the mean over the samples of the spread
    (stdev) and of the mean utilisation: the run's typical state, where
    the last sample may come after most servers were deleted."""
    per_rc = {}
    for snap in samples:
        for rc, summary in snap['utilisation'].items():
            if summary.get('hosts'):
                per_rc.setdefault(rc, []).append(summary)
    return {rc: {'mean': round(sum(s['mean'] for s in rows) / len(rows), 4),
                 'stdev': round(sum(s['stdev'] for s in rows) / len(rows),
                                4),
                 'empty': round(sum(s['empty'] for s in rows) / len(rows),
                                1)}
            for rc, rows in sorted(per_rc.items())}
