"""Random provider trees and random allocation-candidates queries on them.

A candidates sequence builds a world through the API (compute trees with
NUMA and NIC children, sharing providers with
``MISC_SHARES_VIA_AGGREGATE``, aggregates, traits, some allocations), then
asks ``GET /allocation_candidates`` questions about it at microversions
from 1.10 to 1.39: unsuffixed and granular resources, required, forbidden
and any-of traits, ``member_of`` (also negative and repeated), ``in_tree``,
``group_policy``, ``same_subtree``, ``root_required`` and ``limit``. Each
feature is used mostly where its microversion allows it and sometimes just
below, where Placement refuses it.

A query with a ``limit`` is preceded by the same query without it, and
the limited answer is compared against that full set (see
:func:`compare.compare`).
"""

import urllib.parse

from tests.compat.differential import model
from tests.compat.differential.model import Request

# (low, high, step) of a random amount per class.
AMOUNTS = {
    'VCPU': (1, 6, 1), 'MEMORY_MB': (256, 4096, 256),
    'DISK_GB': (10, 400, 10), 'SRIOV_NET_VF': (1, 4, 1),
    'NET_BW_EGR_KILOBIT_PER_SEC': (500, 6000, 500),
    'IPV4_ADDRESS': (1, 4, 1), 'CUSTOM_MAGIC': (1, 2, 1),
}
TOTALS = {
    'VCPU': (2, 16), 'MEMORY_MB': (2048, 8192), 'DISK_GB': (100, 1000),
    'SRIOV_NET_VF': (1, 8), 'NET_BW_EGR_KILOBIT_PER_SEC': (1000, 10000),
    'IPV4_ADDRESS': (2, 16), 'CUSTOM_MAGIC': (1, 4),
}
TRAITS = ('HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE', 'STORAGE_DISK_SSD',
          'HW_NIC_SRIOV', 'CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B',
          'CUSTOM_FAST')


def amount(rng, rc):
    low, high, step = AMOUNTS[rc]
    return rng.randrange(low, high + 1, step)


def make_provider(w, parent, classes, traits=(), aggregates=()):
    """Create a provider with inventory, traits and aggregates (four
    compared requests at most); returns its model."""
    r = w.rng
    rp = model.Provider(w.new_uuid(), w.new_name(), parent)
    body = {'name': rp.name, 'uuid': rp.uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    resp = yield Request('POST', '/resource_providers', '1.20', body)
    if resp.status != 200:
        return None
    w.providers[rp.uuid] = rp
    gen = model.field(resp, 'generation', 0)
    if classes:
        for rc in classes:
            low, high = TOTALS[rc]
            rp.inventory[rc] = {'total': r.randint(low, high)}
            if r.random() < 0.2:
                rp.inventory[rc]['reserved'] = r.randint(0, low)
            if r.random() < 0.2:
                rp.inventory[rc]['max_unit'] = max(
                    1, rp.inventory[rc]['total'] // 2)
            if r.random() < 0.2:
                rp.inventory[rc]['allocation_ratio'] = 2.0
        resp = yield Request(
            'PUT', '/resource_providers/%s/inventories' % rp.uuid, '1.26',
            {'resource_provider_generation': gen,
             'inventories': rp.inventory})
        gen = model.field(resp, 'resource_provider_generation', gen)
    if traits:
        rp.traits = set(traits)
        resp = yield Request(
            'PUT', '/resource_providers/%s/traits' % rp.uuid, '1.6',
            {'resource_provider_generation': gen, 'traits': sorted(traits)})
        gen = model.field(resp, 'resource_provider_generation', gen)
    if aggregates:
        rp.aggregates = set(aggregates)
        yield Request('PUT', '/resource_providers/%s/aggregates' % rp.uuid,
                      '1.19', {'resource_provider_generation': gen,
                               'aggregates': sorted(aggregates)})
    return rp


def some_traits(w, at_most=2):
    return w.rng.sample(TRAITS, w.rng.randint(0, at_most))


def build(w):
    """The world: 1-3 compute trees, 0-2 sharing providers, allocations."""
    r = w.rng
    for name in model.CUSTOM_TRAITS:
        yield Request('PUT', '/traits/%s' % name, '1.6')
    yield Request('PUT', '/resource_classes/CUSTOM_MAGIC', '1.7')
    for _ in range(r.randint(1, 3)):
        classes = ['VCPU', 'MEMORY_MB'] + (['DISK_GB'] if r.random() < 0.5
                                           else [])
        if r.random() < 0.15:
            classes.append('CUSTOM_MAGIC')
        aggs = r.sample(w.aggregates[:3], r.randint(0, 2))
        root = yield from make_provider(w, None, classes, some_traits(w),
                                        aggs)
        if root is None:
            continue
        for _ in range(r.randint(0, 2)):
            numa_classes = r.choice((['VCPU', 'MEMORY_MB'], ['VCPU'], []))
            numa = yield from make_provider(w, root.uuid, numa_classes,
                                            some_traits(w, 1))
            for _ in range(r.randint(0, 2) if numa else 0):
                nic = ['SRIOV_NET_VF'] + (
                    ['NET_BW_EGR_KILOBIT_PER_SEC'] if r.random() < 0.5
                    else [])
                yield from make_provider(
                    w, numa.uuid, nic,
                    [r.choice(('CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B'))])
    for _ in range(r.randint(0, 2)):
        classes = [r.choice(('DISK_GB', 'IPV4_ADDRESS'))]
        traits = [model.SHARES] if r.random() < 0.85 else []
        traits += some_traits(w, 1)
        yield from make_provider(w, None, classes, traits,
                                 r.sample(w.aggregates[:3], r.randint(1, 2)))
    for _ in range(r.randint(0, 2)):
        yield from allocate(w)


def allocate(w):
    """A consumer using a little of one root's first class."""
    pool = [p for p in w.providers.values() if p.inventory]
    if not pool:
        return
    rp = w.rng.choice(pool)
    rc = sorted(rp.inventory)[0]
    consumer = w.new_uuid()
    body = {'allocations': {rp.uuid: {'resources': {
        rc: AMOUNTS[rc][0]}}}, 'project_id': w.projects[0],
        'user_id': w.users[0], 'consumer_generation': None}
    yield Request('PUT', '/allocations/%s' % consumer, '1.28', body)


def query_version(r):
    choice = r.random()
    if choice < 0.35:
        return 39
    if choice < 0.75:
        return r.randint(29, 38)
    return r.randint(10, 28)


def world_classes(w):
    return sorted({rc for p in w.providers.values() for rc in p.inventory})


def resources_param(w, at_most=3):
    classes = world_classes(w) or ['VCPU']
    chosen = w.rng.sample(classes, w.rng.randint(1, min(at_most,
                                                        len(classes))))
    return ','.join('%s:%d' % (rc, amount(w.rng, rc)) for rc in chosen)


def traits_param(w, m):
    r = w.rng
    names = r.sample(TRAITS + (model.SHARES,), r.randint(1, 2))
    if m >= 22 and r.random() < 0.3:
        names[0] = '!' + names[0]
    if m >= 39 and r.random() < 0.3:
        names = ['in:' + ','.join(r.sample(TRAITS, 2))] + names[1:]
    return ','.join(names)


def member_of_params(w, m, key='member_of'):
    r = w.rng
    params = []
    for _ in range(2 if m >= 24 and r.random() < 0.2 else 1):
        aggs = r.sample(w.aggregates[:3], r.randint(1, 2))
        value = aggs[0] if len(aggs) == 1 else 'in:' + ','.join(aggs)
        if m >= 32 and r.random() < 0.25:
            value = '!' + value
        params.append((key, value))
    return params


def group_params(w, m, suffix, resourceless=False):
    r = w.rng
    params = []
    if not resourceless:
        params.append(('resources' + suffix, resources_param(w, 2)))
    if resourceless or r.random() < 0.3:
        params.append(('required' + suffix, traits_param(w, m)))
    if r.random() < 0.15:
        params.extend(member_of_params(w, m, 'member_of' + suffix))
    if m >= 31 and r.random() < 0.1 and w.providers:
        params.append(('in_tree' + suffix,
                       w.rng.choice(sorted(w.providers))))
    return params


def feature_version(r, m, needed):
    """Whether to use a feature needing 1.``needed`` at 1.``m``: always
    when allowed, now and then when not (to compare the refusal)."""
    return m >= needed or r.random() < 0.03


def query_params(w, m):
    r = w.rng
    params = []
    groups = []
    resourceless = []
    if feature_version(r, m, 25) and r.random() < 0.45:
        for i in range(r.randint(1, 3)):
            suffix = str(i + 1)
            if m >= 33 and r.random() < 0.4:
                suffix = r.choice(('_NET', '_ACCEL', '_DISK'))
                if suffix in groups:
                    continue
            groups.append(suffix)
            # A group without resources must be in same_subtree (1.36).
            if m >= 36 and len(groups) > 1 and r.random() < 0.2:
                resourceless.append(suffix)
            params.extend(group_params(w, m, suffix, suffix in resourceless))
    unsuffixed = not groups or r.random() < 0.6
    if unsuffixed:
        params.append(('resources', resources_param(w)))
    # Traits or aggregates without unsuffixed resources are refused (a
    # resourceless unsuffixed group); ask that only now and then.
    plain = unsuffixed or r.random() < 0.1
    if plain and feature_version(r, m, 17) and r.random() < 0.35:
        params.append(('required', traits_param(w, m)))
    if plain and feature_version(r, m, 21) and r.random() < 0.25:
        params.extend(member_of_params(w, m))
    if feature_version(r, m, 31) and r.random() < 0.15 and w.providers:
        params.append(('in_tree', r.choice(sorted(w.providers))))
    if len(groups) > 1 and r.random() < 0.95 or groups and r.random() < 0.3:
        params.append(('group_policy', r.choice(('none', 'isolate'))))
    if resourceless and r.random() < 0.9 or feature_version(
            r, m, 36) and len(groups) > 1 and r.random() < 0.4:
        subtree = set(resourceless) | set(r.sample(groups, r.randint(
            2, len(groups))))
        params.append(('same_subtree', ','.join(sorted(subtree))))
    if feature_version(r, m, 35) and r.random() < 0.12:
        trait = r.choice(TRAITS)
        params.append(('root_required',
                       ('!' if r.random() < 0.5 else '') + trait))
    return params


def query(w):
    """One random query (two if it has a limit: the full one first)."""
    r = w.rng
    m = query_version(r)
    params = query_params(w, m)
    version = '1.%d' % m
    path = '/allocation_candidates?' + urllib.parse.urlencode(params)
    if feature_version(r, m, 16) and r.random() < 0.2:
        full = yield Request('GET', path, version, kind='candidates')
        limited = Request('GET', path + '&limit=%d' % r.randint(1, 4),
                          version, kind='candidates')
        if full.status == 200:
            limited.subset_of = full
        yield limited
    else:
        yield Request('GET', path, version, kind='candidates')


def sequence(w):
    """Build a world, then queries for ever (the runner stops it after
    its share of queries), with an allocation now and then so that usage
    changes what fits."""
    yield from build(w)
    while True:
        if w.rng.random() < 0.08:
            yield from allocate(w)
        else:
            yield from query(w)
