"""The snapshot file: a cloud's inventory as the simulator replays it.

One JSON document (``FORMAT``, ``VERSION`` 1)::

    {"format": "nova-lite-sim-snapshot", "version": 1,
     "source": {"placement_url": "...", "microversion": "1.14"},
     "providers": [
        {"uuid": "...", "name": "node1",
         "parent_provider_uuid": null, "root_provider_uuid": "...",
         "inventories": {"VCPU": {"total": 64, "reserved": 0,
                                  "min_unit": 1, "max_unit": 64,
                                  "step_size": 1, "allocation_ratio": 4.0}},
         "traits": ["HW_CPU_X86_AVX2"], "aggregates": ["<uuid>"],
         "usages": {"VCPU": 8}}],
     "flavors": [{"name": "m1.small", "vcpus": 1, "ram": 2048, "disk": 20,
                  "ephemeral": 0, "swap": 0, "extra_specs": {}}],
     "aggregates": [{"name": "az1", "hosts": ["host1"],
                     "metadata": {"availability_zone": "az1"}}],
     "hypervisors": [{"id": "<provider uuid>", "hypervisor_hostname":
                      "node1", "service": {"host": "host1"},
                      "hypervisor_type": "QEMU",
                      "supported_instances": [["x86_64", "QEMU", "hvm"]]}]}

Field names are the public APIs' own (placement's for providers, the
compute API's for flavors, aggregates and hypervisors), so a snapshot can
be written by hand or by any script from those APIs' answers. Only
``providers`` is required. :func:`validate` checks the shape and returns
the document with every optional field filled, so the rest of the
simulator reads one form.

A hypervisor's ``supported_instances`` (``[arch, hypervisor type, vm
mode]`` triples, what ImagePropertiesFilter matches an image's
``hw_architecture`` against) is not in the compute API: when the file
does not give it, it is ``[[cpu_info.arch, hypervisor_type, "hvm"]]``
(the API shows both), or nothing without an architecture.

A *host* of the simulation is a root provider with ``VCPU`` or
``MEMORY_MB`` inventory (a compute node); its compute host name comes from
the hypervisor whose ``id`` (2.53 and later: the provider uuid) or
``hypervisor_hostname`` matches it, else it is the provider's name.
"""

import json

FORMAT = 'nova-lite-sim-snapshot'
VERSION = 1
COMPUTE_CLASSES = ('VCPU', 'MEMORY_MB')
_INVENTORY_DEFAULTS = {'reserved': 0, 'min_unit': 1, 'step_size': 1,
                       'allocation_ratio': 1.0}


class SnapshotError(ValueError):
    """The snapshot does not have the documented shape (says where)."""


def _require(cond, where, what):
    if not cond:
        raise SnapshotError('%s: %s' % (where, what))


def _inventory(where, rc, inv):
    _require(isinstance(inv, dict), where, 'inventory %s is not an object'
             % rc)
    _require(isinstance(inv.get('total'), int) and inv['total'] >= 0,
             where, 'inventory %s needs an integer total' % rc)
    out = dict(_INVENTORY_DEFAULTS, max_unit=inv['total'])
    out.update({k: v for k, v in inv.items() if v is not None})
    return out


def _provider(index, prov):
    where = 'providers[%d]' % index
    _require(isinstance(prov, dict), where, 'not an object')
    _require(isinstance(prov.get('uuid'), str) and prov['uuid'], where,
             'needs a uuid')
    invs = prov.get('inventories') or {}
    _require(isinstance(invs, dict), where, 'inventories is not an object')
    usages = prov.get('usages') or {}
    _require(isinstance(usages, dict) and
             all(isinstance(v, int) for v in usages.values()), where,
             'usages must map resource classes to integers')
    return {
        'uuid': prov['uuid'],
        'name': prov.get('name') or prov['uuid'],
        'parent_provider_uuid': prov.get('parent_provider_uuid'),
        'root_provider_uuid': (prov.get('root_provider_uuid') or
                               prov['uuid']),
        'inventories': {rc: _inventory(where, rc, inv)
                        for rc, inv in invs.items()},
        'traits': sorted(prov.get('traits') or []),
        'aggregates': sorted(prov.get('aggregates') or []),
        'usages': {rc: n for rc, n in usages.items() if n},
    }


def _flavor(index, flavor):
    where = 'flavors[%d]' % index
    _require(isinstance(flavor, dict) and flavor.get('name'), where,
             'needs a name')
    out = {'name': flavor['name'], 'vcpus': 1, 'ram': 512, 'disk': 0,
           'ephemeral': 0, 'swap': 0, 'extra_specs': {}}
    for key in ('vcpus', 'ram', 'disk', 'swap'):
        if flavor.get(key) not in (None, ''):
            out[key] = flavor[key]
    ephemeral = flavor.get('OS-FLV-EXT-DATA:ephemeral',
                           flavor.get('ephemeral'))
    out['ephemeral'] = ephemeral or 0
    for key in ('vcpus', 'ram', 'disk', 'ephemeral', 'swap'):
        _require(isinstance(out[key], int) and out[key] >= 0, where,
                 '%s must be a non-negative integer' % key)
    out['extra_specs'] = {str(k): str(v) for k, v in
                          (flavor.get('extra_specs') or {}).items()}
    return out


def _aggregate(index, agg):
    where = 'aggregates[%d]' % index
    _require(isinstance(agg, dict) and agg.get('name'), where,
             'needs a name')
    metadata = {str(k): str(v) for k, v in
                (agg.get('metadata') or {}).items()}
    if agg.get('availability_zone'):
        metadata.setdefault('availability_zone', agg['availability_zone'])
    return {'name': agg['name'], 'uuid': agg.get('uuid'),
            'hosts': sorted(agg.get('hosts') or []), 'metadata': metadata}


def _supported(hyp):
    """``supported_instances`` of a hypervisor: given, or what its CPU
    architecture and type say (``[[arch, type, "hvm"]]``), or none."""
    given = hyp.get('supported_instances')
    if given is not None:
        return [list(triple) for triple in given]
    cpu = hyp.get('cpu_info')
    if isinstance(cpu, str):
        try:
            cpu = json.loads(cpu)
        except ValueError:
            cpu = None
    arch = cpu.get('arch') if isinstance(cpu, dict) else None
    if not arch:
        return []
    return [[arch, hyp.get('hypervisor_type') or 'fake', 'hvm']]


def _hypervisor(index, hyp):
    where = 'hypervisors[%d]' % index
    _require(isinstance(hyp, dict) and hyp.get('hypervisor_hostname'),
             where, 'needs a hypervisor_hostname')
    service = hyp.get('service') or {}
    out = {'id': str(hyp.get('id') or ''),
           'hypervisor_hostname': hyp['hypervisor_hostname'],
           'service': {'host': service.get('host') or
                       hyp['hypervisor_hostname']},
           'status': hyp.get('status') or 'enabled',
           'state': hyp.get('state') or 'up',
           'supported_instances': _supported(hyp)}
    for key in ('hypervisor_type', 'hypervisor_version'):
        if hyp.get(key) is not None:
            out[key] = hyp[key]
    return out


def validate(doc):
    """The snapshot ``doc`` with its optional fields filled.

    :raises SnapshotError: naming the first field that is wrong.
    """
    _require(isinstance(doc, dict), 'snapshot', 'not a JSON object')
    if 'format' in doc:
        _require(doc['format'] == FORMAT, 'format', 'expected %s' % FORMAT)
    _require(doc.get('version', VERSION) == VERSION, 'version',
             'only version %d is known' % VERSION)
    providers = doc.get('providers')
    _require(isinstance(providers, list), 'providers', 'a list is needed')
    out = {
        'format': FORMAT, 'version': VERSION,
        'source': dict(doc.get('source') or {}),
        'providers': [_provider(i, p) for i, p in enumerate(providers)],
        'flavors': [_flavor(i, f) for i, f in
                    enumerate(doc.get('flavors') or [])],
        'aggregates': [_aggregate(i, a) for i, a in
                       enumerate(doc.get('aggregates') or [])],
        'hypervisors': [_hypervisor(i, h) for i, h in
                        enumerate(doc.get('hypervisors') or [])],
    }
    uuids = {p['uuid'] for p in out['providers']}
    _require(len(uuids) == len(out['providers']), 'providers',
             'provider uuids must be unique')
    for index, prov in enumerate(out['providers']):
        parent = prov['parent_provider_uuid']
        _require(parent is None or parent in uuids,
                 'providers[%d]' % index,
                 'parent %s is not in the snapshot' % parent)
    return out


def load(path):
    """The validated snapshot in the file at ``path``."""
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as err:
            raise SnapshotError('%s: not JSON: %s' % (path, err))
    return validate(doc)


def save(doc, path):
    with open(path, 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write('\n')


def ordered_providers(doc):
    """Providers parents first (the order they can be created in)."""
    by_uuid = {p['uuid']: p for p in doc['providers']}
    done, order = set(), []

    def visit(prov, depth=0):
        if prov['uuid'] in done:
            return
        if depth > len(by_uuid):
            raise SnapshotError('providers: the parent links form a cycle')
        parent = prov['parent_provider_uuid']
        if parent is not None:
            visit(by_uuid[parent], depth + 1)
        done.add(prov['uuid'])
        order.append(prov)

    for prov in doc['providers']:
        visit(prov)
    return order


def hosts(doc):
    """``[(provider, host name)]`` of the compute nodes (roots with VCPU
    or MEMORY_MB inventory), in snapshot order."""
    by_id, by_name = {}, {}
    for hyp in doc['hypervisors']:
        if hyp['id']:
            by_id[hyp['id']] = hyp
        by_name[hyp['hypervisor_hostname']] = hyp
    found = []
    for prov in doc['providers']:
        if prov['parent_provider_uuid'] is not None:
            continue
        if not any(rc in prov['inventories'] for rc in COMPUTE_CLASSES):
            continue
        hyp = by_id.get(prov['uuid']) or by_name.get(prov['name'])
        found.append((prov, hyp['service']['host'] if hyp else
                      prov['name']))
    return found
