"""Random requests on providers, inventories, traits, aggregates,
resource classes, allocations and usages.

Each operation is a generator over one :class:`~model.World`: it yields
requests and is sent the reference's response to each. Most requests are
meant to succeed (a sequence has to build something to be interesting);
a few in each operation are deliberately wrong (stale generations, bad
fields, unknown names, microversions too old for the feature) because the
error paths are where implementations drift apart.
"""

from tests.compat.differential import model
from tests.compat.differential.model import Request


def minor(version):
    return int(version.split('.')[1])


def generation(w, rp):
    """The reference's generation of ``rp`` (read by a compared GET)."""
    resp = yield Request('GET', '/resource_providers/%s' % rp.uuid, '1.14')
    return model.field(resp, 'generation', 0)


def maybe_stale(w, gen):
    """``gen``, or now and then a wrong one (a 409 to compare)."""
    return gen + w.rng.choice((-1, 1)) if w.rng.random() < 0.08 else gen


# Providers.

def create_provider(w):
    r = w.rng
    version = w.version()
    rp_uuid = w.new_uuid()
    body = {'name': w.new_name(), 'uuid': rp_uuid}
    parent = None
    if w.providers and r.random() < 0.5:
        parent = r.choice(sorted(w.providers))
        body['parent_provider_uuid'] = parent
    if r.random() < 0.1:
        del body['uuid']
    bad = r.random()
    if bad < 0.04 and w.providers:
        body['name'] = r.choice(list(w.providers.values())).name
    elif bad < 0.06:
        body['name'] = 'x' * 201
    elif bad < 0.08:
        del body['name']
    elif bad < 0.10:
        body['parent_provider_uuid'] = w.new_uuid()
    elif bad < 0.12 and w.providers:
        body['uuid'] = r.choice(sorted(w.providers))
    resp = yield Request('POST', '/resource_providers', version, body)
    if resp.status in (200, 201) and body.get('uuid') == rp_uuid:
        w.providers[rp_uuid] = model.Provider(
            rp_uuid, body['name'], parent if minor(version) >= 14 else None)


def show_provider(w):
    rp = w.pick_provider()
    rp_uuid = rp.uuid if rp and w.rng.random() < 0.9 else w.new_uuid()
    yield Request('GET', '/resource_providers/%s' % rp_uuid, w.version())


def list_providers(w):
    r = w.rng
    version = w.version()
    m = minor(version)
    filters = []
    rp = w.pick_provider()
    if rp and r.random() < 0.3:
        filters.append(r.choice(('name=%s' % rp.name, 'uuid=%s' % rp.uuid)))
    if r.random() < 0.3:
        aggs = r.sample(w.aggregates, r.randint(1, 2))
        value = 'in:' + ','.join(aggs) if len(aggs) > 1 or m >= 32 and \
            r.random() < 0.5 else aggs[0]
        if m >= 32 and r.random() < 0.3:
            value = '!' + aggs[0]
        filters.append('member_of=%s' % value)
    if r.random() < 0.3:
        rc = r.choice(model.STANDARD_CLASSES[:3])
        filters.append('resources=%s:%d' % (rc, r.randint(1, 8)))
    if rp and r.random() < 0.2:
        filters.append('in_tree=%s' % rp.uuid)
    if r.random() < 0.2:
        trait = r.choice(model.STANDARD_TRAITS + model.CUSTOM_TRAITS)
        filters.append('required=%s%s' % (
            '!' if m >= 22 and r.random() < 0.3 else '', trait))
    query = '?' + '&'.join(filters) if filters else ''
    yield Request('GET', '/resource_providers' + query, version)


def update_provider(w):
    r = w.rng
    rp = w.pick_provider()
    if not rp:
        return
    version = w.version()
    body = {'name': rp.name if r.random() < 0.3 else w.new_name()}
    new_parent = rp.parent
    if minor(version) >= 14 and r.random() < 0.4:
        choices = [u for u in w.providers if u != rp.uuid] + [None]
        new_parent = r.choice(choices)
        body['parent_provider_uuid'] = new_parent
    resp = yield Request('PUT', '/resource_providers/%s' % rp.uuid, version,
                         body)
    if resp.status == 200:
        rp.name = body['name']
        rp.parent = new_parent


def delete_provider(w):
    rp = w.pick_provider()
    if not rp:
        return
    resp = yield Request('DELETE', '/resource_providers/%s' % rp.uuid,
                         w.version())
    if resp.status == 204:
        w.remove_provider(rp.uuid)


# Inventories and resource classes.

def inventory_record(w):
    r = w.rng
    total = r.randint(1, 64)
    rec = {'total': total}
    if r.random() < 0.4:
        rec['reserved'] = r.randint(0, total)
    if r.random() < 0.3:
        rec['max_unit'] = r.randint(1, total)
    if r.random() < 0.2:
        rec['min_unit'] = r.randint(1, 2)
    if r.random() < 0.2:
        rec['step_size'] = r.choice((1, 2))
    if r.random() < 0.3:
        rec['allocation_ratio'] = r.choice((1.0, 1.5, 16.0))
    bad = r.random()
    if bad < 0.03:
        rec['total'] = 0
    elif bad < 0.05:
        rec['min_unit'] = total + 1
    elif bad < 0.07:
        rec['reserved'] = -1
    elif bad < 0.08:
        rec['allocation_ratio'] = 'lots'
    return rec


def pick_class(w, unknown_ok=True):
    r = w.rng
    if unknown_ok and r.random() < 0.04:
        return r.choice(('CUSTOM_NEVER_MADE', 'NOT_A_CLASS'))
    return r.choice(model.STANDARD_CLASSES + model.CUSTOM_CLASSES)


def ensure_class(w, rc):
    if rc.startswith('CUSTOM_') and rc != 'CUSTOM_NEVER_MADE' and \
            rc not in w.classes:
        resp = yield Request('PUT', '/resource_classes/%s' % rc, '1.7')
        if resp.status in (201, 204):
            w.classes.add(rc)


def set_inventories(w):
    r = w.rng
    rp = w.pick_provider()
    if not rp:
        return
    classes = sorted({pick_class(w) for _ in range(r.randint(0, 3))})
    for rc in classes:
        yield from ensure_class(w, rc)
    gen = yield from generation(w, rp)
    inventories = {rc: inventory_record(w) for rc in classes}
    body = {'resource_provider_generation': maybe_stale(w, gen),
            'inventories': inventories}
    resp = yield Request('PUT', '/resource_providers/%s/inventories' % rp.uuid,
                         w.version(), body)
    if resp.status == 200:
        rp.inventory = inventories


def post_inventory(w):
    rp = w.pick_provider()
    if not rp:
        return
    rc = pick_class(w)
    yield from ensure_class(w, rc)
    gen = yield from generation(w, rp)
    body = dict(inventory_record(w), resource_class=rc)
    if w.rng.random() < 0.9:
        body['resource_provider_generation'] = maybe_stale(w, gen)
    resp = yield Request('POST', '/resource_providers/%s/inventories'
                         % rp.uuid, w.version(), body)
    if resp.status == 201:
        rp.inventory[rc] = body


def update_inventory(w):
    rp = w.pick_provider()
    if not rp:
        return
    rc = w.rng.choice(sorted(rp.inventory)) if rp.inventory and \
        w.rng.random() < 0.8 else pick_class(w)
    gen = yield from generation(w, rp)
    body = dict(inventory_record(w),
                resource_provider_generation=maybe_stale(w, gen))
    resp = yield Request('PUT', '/resource_providers/%s/inventories/%s'
                         % (rp.uuid, rc), w.version(), body)
    if resp.status == 200:
        rp.inventory[rc] = body


def delete_inventory(w):
    rp = w.pick_provider()
    if not rp:
        return
    version = w.version()
    if w.rng.random() < 0.3:
        resp = yield Request('DELETE', '/resource_providers/%s/inventories'
                             % rp.uuid, version)
        if resp.status == 204:
            rp.inventory = {}
        return
    rc = w.rng.choice(sorted(rp.inventory)) if rp.inventory else \
        pick_class(w)
    resp = yield Request('DELETE', '/resource_providers/%s/inventories/%s'
                         % (rp.uuid, rc), version)
    if resp.status == 204:
        rp.inventory.pop(rc, None)


def show_inventories(w):
    rp = w.pick_provider()
    if not rp:
        return
    path = '/resource_providers/%s/inventories' % rp.uuid
    if w.rng.random() < 0.5:
        path += '/%s' % (w.rng.choice(sorted(rp.inventory))
                         if rp.inventory else pick_class(w))
    yield Request('GET', path, w.version())


def resource_classes(w):
    r = w.rng
    choice = r.random()
    version = w.version()
    if choice < 0.3:
        yield Request('GET', '/resource_classes', version)
    elif choice < 0.5:
        yield Request('GET', '/resource_classes/%s' % pick_class(w), version)
    elif choice < 0.7:
        name = r.choice(model.CUSTOM_CLASSES + ('CUSTOM_lower', 'VCPU'))
        resp = yield Request('POST', '/resource_classes', version,
                             {'name': name})
        if resp.status == 201:
            w.classes.add(name)
    elif choice < 0.85:
        name = r.choice(model.CUSTOM_CLASSES + ('VCPU', 'CUSTOM_NEVER_MADE'))
        resp = yield Request('DELETE', '/resource_classes/%s' % name, version)
        if resp.status == 204:
            w.classes.discard(name)
    else:
        name = r.choice(model.CUSTOM_CLASSES + ('VCPU', 'BAD_NAME'))
        resp = yield Request('PUT', '/resource_classes/%s' % name, version)
        if resp.status in (201, 204):
            w.classes.add(name)


# Traits and aggregates.

def pick_trait(w):
    if w.rng.random() < 0.04:
        return 'CUSTOM_NEVER_MADE'
    return w.rng.choice(model.STANDARD_TRAITS + model.CUSTOM_TRAITS)


def ensure_trait(w, name):
    if name.startswith('CUSTOM_') and name != 'CUSTOM_NEVER_MADE' and \
            name not in w.traits:
        resp = yield Request('PUT', '/traits/%s' % name, '1.6')
        if resp.status in (201, 204):
            w.traits.add(name)


def set_provider_traits(w):
    rp = w.pick_provider()
    if not rp:
        return
    names = sorted({pick_trait(w) for _ in range(w.rng.randint(0, 3))})
    for name in names:
        yield from ensure_trait(w, name)
    gen = yield from generation(w, rp)
    body = {'traits': names,
            'resource_provider_generation': maybe_stale(w, gen)}
    resp = yield Request('PUT', '/resource_providers/%s/traits' % rp.uuid,
                         w.version(), body)
    if resp.status == 200:
        rp.traits = set(names)


def traits(w):
    r = w.rng
    version = w.version()
    choice = r.random()
    rp = w.pick_provider()
    if choice < 0.25:
        query = r.choice(('', '?name=startswith:CUSTOM_',
                          '?name=in:HW_CPU_X86_AVX2,CUSTOM_FAST,NOPE',
                          '?associated=true', '?associated=false',
                          '?name=bogus:X'))
        yield Request('GET', '/traits' + query, version)
    elif choice < 0.4:
        yield Request('GET', '/traits/%s' % pick_trait(w), version)
    elif choice < 0.55:
        name = r.choice(model.CUSTOM_TRAITS + ('HW_CPU_X86_AVX2', 'lower'))
        resp = yield Request('PUT', '/traits/%s' % name, version)
        if resp.status in (201, 204):
            w.traits.add(name)
    elif choice < 0.7:
        name = r.choice(model.CUSTOM_TRAITS + ('HW_CPU_X86_AVX2',))
        resp = yield Request('DELETE', '/traits/%s' % name, version)
        if resp.status == 204:
            w.traits.discard(name)
    elif rp and choice < 0.85:
        yield Request('GET', '/resource_providers/%s/traits' % rp.uuid,
                      version)
    elif rp:
        resp = yield Request('DELETE', '/resource_providers/%s/traits'
                             % rp.uuid, version)
        if resp.status == 204:
            rp.traits = set()


def aggregates(w):
    r = w.rng
    rp = w.pick_provider()
    if not rp:
        return
    version = w.version()
    path = '/resource_providers/%s/aggregates' % rp.uuid
    if r.random() < 0.4:
        yield Request('GET', path, version)
        return
    aggs = r.sample(w.aggregates, r.randint(0, 3))
    if r.random() < 0.05:
        aggs.append('not-a-uuid')
    if minor(version) >= 19:
        gen = yield from generation(w, rp)
        body = {'aggregates': aggs,
                'resource_provider_generation': maybe_stale(w, gen)}
    else:
        body = aggs
    resp = yield Request('PUT', path, version, body)
    if resp.status == 200:
        rp.aggregates = set(aggs)


# Allocations and usages.

def amount_for(w, inv):
    r = w.rng
    low = max(inv.get('min_unit', 1), inv.get('step_size', 1))
    choice = r.random()
    if choice < 0.04:
        return 0
    if choice < 0.08:
        return inv.get('total', 1) * 100
    return low * r.randint(1, 2)


def allocation_resources(w):
    """{provider uuid: {class: amount}} over one or two providers."""
    r = w.rng
    pool = [p for p in w.providers.values() if p.inventory]
    chosen = r.sample(pool, min(len(pool), r.randint(1, 2))) if pool else []
    result = {}
    for rp in chosen:
        classes = r.sample(sorted(rp.inventory),
                           r.randint(1, len(rp.inventory)))
        result[rp.uuid] = {rc: amount_for(w, rp.inventory[rc])
                           for rc in classes}
        if r.random() < 0.04:
            missing = sorted(set(model.STANDARD_CLASSES) - set(rp.inventory))
            if missing:
                result[rp.uuid][r.choice(missing)] = 1
    if not result or r.random() < 0.03:
        result[w.new_uuid()] = {'VCPU': 1}
    return result


def consumer_body(w, consumer, version, resources, generation):
    m = minor(version)
    if m < 12:
        allocs = [{'resource_provider': {'uuid': rp}, 'resources': res}
                  for rp, res in sorted(resources.items())]
    else:
        allocs = {rp: {'resources': res} for rp, res in resources.items()}
    body = {'allocations': allocs}
    owner = w.consumers.get(consumer) or {
        'project_id': w.rng.choice(w.projects),
        'user_id': w.rng.choice(w.users)}
    if m >= 8 or w.rng.random() < 0.3:
        body.update(project_id=owner['project_id'], user_id=owner['user_id'])
    if m >= 28:
        body['consumer_generation'] = generation
    if m >= 38:
        body['consumer_type'] = w.rng.choice(('INSTANCE', 'MIGRATION'))
    return body


def consumer_generation(w, consumer):
    if consumer not in w.consumers:
        return None
    resp = yield Request('GET', '/allocations/%s' % consumer, '1.28')
    gen = model.field(resp, 'consumer_generation')
    if gen is not None and w.rng.random() < 0.08:
        gen += 1
    elif gen is None and w.rng.random() < 0.03:
        gen = 0
    return gen


def pick_consumer(w):
    if w.consumers and w.rng.random() < 0.4:
        return w.rng.choice(sorted(w.consumers))
    return w.new_uuid()


def put_allocations(w):
    consumer = pick_consumer(w)
    version = w.version()
    gen = None
    if minor(version) >= 28:
        gen = yield from consumer_generation(w, consumer)
    resources = allocation_resources(w)
    if minor(version) >= 28 and w.rng.random() < 0.05:
        resources = {}
    body = consumer_body(w, consumer, version, resources, gen)
    resp = yield Request('PUT', '/allocations/%s' % consumer, version, body)
    if resp.status == 204:
        w.consumers[consumer] = {'project_id': body.get('project_id'),
                                 'user_id': body.get('user_id')}


def post_allocations(w):
    version = w.version(13)
    body = {}
    for _ in range(w.rng.randint(1, 2)):
        consumer = pick_consumer(w)
        gen = None
        if minor(version) >= 28:
            gen = yield from consumer_generation(w, consumer)
        body[consumer] = consumer_body(w, consumer, version,
                                       allocation_resources(w), gen)
    resp = yield Request('POST', '/allocations', version, body)
    if resp.status == 204:
        for consumer, item in body.items():
            w.consumers[consumer] = {'project_id': item.get('project_id'),
                                     'user_id': item.get('user_id')}


def delete_allocations(w):
    consumer = pick_consumer(w)
    resp = yield Request('DELETE', '/allocations/%s' % consumer, w.version())
    if resp.status == 204:
        w.consumers.pop(consumer, None)


def show_allocations(w):
    r = w.rng
    rp = w.pick_provider()
    if rp and r.random() < 0.4:
        yield Request('GET', '/resource_providers/%s/allocations' % rp.uuid,
                      w.version())
    else:
        yield Request('GET', '/allocations/%s' % pick_consumer(w),
                      w.version())


def usages(w):
    r = w.rng
    rp = w.pick_provider()
    version = w.version()
    if rp and r.random() < 0.4:
        yield Request('GET', '/resource_providers/%s/usages' % rp.uuid,
                      version)
        return
    params = []
    if r.random() < 0.95:
        params.append('project_id=%s' % (r.choice(w.projects)
                                         if r.random() < 0.95 else 'p' * 256))
    if r.random() < 0.5:
        params.append('user_id=%s' % r.choice(w.users))
    if r.random() < 0.3:
        params.append('consumer_type=%s' % r.choice(
            ('INSTANCE', 'MIGRATION', 'all', 'unknown')))
    yield Request('GET', '/usages?' + '&'.join(params), version)


# The HTTP edges no data is needed for.

def edges(w):
    r = w.rng
    choice = r.randint(0, 6)
    if choice == 0:
        yield Request('GET', '/', r.choice((None, '1.0', '1.39')))
    elif choice == 1:
        yield Request('GET', '/resource_providers',
                      r.choice(('1.99', 'latest', '2.0', 'bogus')))
    elif choice == 2:
        yield Request('GET', '/resource_providers', w.version(),
                      headers={'accept': 'application/xml'})
    elif choice == 3:
        yield Request('POST', '/resource_providers', w.version(),
                      raw='{"name": ', headers={
                          'content-type': 'application/json'})
    elif choice == 4:
        yield Request('DELETE', '/resource_providers', w.version())
    elif choice == 5:
        yield Request('GET', '/resource_providers/%s/nowhere'
                      % w.new_uuid(), w.version())
    else:
        yield Request('PUT', '/resource_providers/%s' % w.new_uuid(),
                      w.version(), {'name': 'ghost'})


# (operation, weight); create_provider's weight rises while few exist.
OPERATIONS = (
    (create_provider, 8), (show_provider, 3), (list_providers, 5),
    (update_provider, 3), (delete_provider, 2), (set_inventories, 8),
    (post_inventory, 3), (update_inventory, 3), (delete_inventory, 2),
    (show_inventories, 3), (resource_classes, 3), (set_provider_traits, 4),
    (traits, 4), (aggregates, 4), (put_allocations, 10),
    (post_allocations, 3), (delete_allocations, 2), (show_allocations, 4),
    (usages, 4), (edges, 2),
)


def sequence(w):
    """Random operations, for ever (the runner stops it)."""
    ops = [op for op, _ in OPERATIONS]
    weights = [weight for _, weight in OPERATIONS]
    while True:
        if len(w.providers) < 3:
            op = create_provider
        else:
            op = w.rng.choices(ops, weights)[0]
        yield from op(w)
