"""The generator's picture of one sequence's data, and the request type.

Generators are Python generators: they yield a :class:`Request` and are
sent back the *reference's* response to it, which is how they learn
generations and what exists (the target's answer never steers a sequence,
so both servers get exactly the same requests). The :class:`World` is what
the generator meant to create, kept in step with the reference's 2xx
answers; it need not be exact, only good enough to make most requests
meaningful.
"""

import uuid as uuid_mod

STANDARD_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF',
                    'IPV4_ADDRESS', 'NET_BW_EGR_KILOBIT_PER_SEC')
CUSTOM_CLASSES = ('CUSTOM_MAGIC', 'CUSTOM_GOLD', 'CUSTOM_FPGA')
STANDARD_TRAITS = ('HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE', 'STORAGE_DISK_SSD',
                   'HW_NIC_SRIOV', 'COMPUTE_VOLUME_MULTI_ATTACH')
CUSTOM_TRAITS = ('CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B', 'CUSTOM_FAST')
SHARES = 'MISC_SHARES_VIA_AGGREGATE'
LATEST = 39


class Request:
    """One request, sent unchanged to both servers.

    ``kind`` names what it exercises (used to count candidate queries);
    ``subset_of`` is set on a limited allocation-candidates query to the
    reference's answer to the same query without the limit.
    """

    def __init__(self, method, path, version, body=None, headers=None,
                 kind='api', raw=None):
        self.method = method
        self.path = path
        self.version = version
        self.body = body
        self.raw = raw
        self.headers = headers or {}
        self.kind = kind
        self.subset_of = None

    def describe(self):
        text = '%s %s (%s)' % (self.method, self.path,
                               self.version or 'no version')
        if self.headers:
            text += ' headers=%s' % self.headers
        if self.body is not None:
            text += ' body=%s' % _json(self.body)
        elif self.raw is not None:
            text += ' raw=%r' % self.raw
        return text


def field(resp, key, default=None):
    """``key`` of a 2xx JSON answer, else ``default``."""
    if 200 <= resp.status < 300 and isinstance(resp.body, dict):
        return resp.body.get(key, default)
    return default


def _json(value):
    import json
    return json.dumps(value, sort_keys=True)


class Provider:
    def __init__(self, uuid, name, parent=None):
        self.uuid = uuid
        self.name = name
        self.parent = parent
        self.inventory = {}
        self.traits = set()
        self.aggregates = set()


class World:
    """Providers, consumers, aggregates and names of one sequence."""

    def __init__(self, rng):
        self.rng = rng
        self.known = set()
        self.providers = {}
        self.consumers = {}
        self.aggregates = [self.new_uuid() for _ in range(4)]
        self.projects = [self.new_uuid() for _ in range(2)]
        self.users = [self.new_uuid() for _ in range(2)]
        self.classes = set()
        self.traits = set()
        self.counter = 0

    def new_uuid(self):
        value = str(uuid_mod.UUID(int=self.rng.getrandbits(128), version=4))
        self.known.add(value)
        return value

    def new_name(self, prefix='rp'):
        self.counter += 1
        return '%s-%d' % (prefix, self.counter)

    def pick_provider(self, with_inventory=False):
        pool = [p for p in self.providers.values()
                if p.inventory or not with_inventory]
        return self.rng.choice(pool) if pool else None

    def root_of(self, provider):
        while provider.parent and provider.parent in self.providers:
            provider = self.providers[provider.parent]
        return provider

    def children(self, rp_uuid):
        return [p for p in self.providers.values() if p.parent == rp_uuid]

    def remove_provider(self, rp_uuid):
        self.providers.pop(rp_uuid, None)

    def version(self, low=0, high=LATEST):
        """A microversion in [1.low, 1.high], the newest half the time."""
        if self.rng.random() < 0.5:
            return '1.%d' % high
        return '1.%d' % self.rng.randint(low, high)
