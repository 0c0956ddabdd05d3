"""How the dashboard reads placement: nova_lite's capacity routes when
placement has them, Placement's public API when it does not.

nova_lite's placement answers ``GET /nova_lite/capacity`` (every
provider's inventories, usages, traits and aggregates in one answer),
``/nova_lite/capacity/usages`` and ``/nova_lite/capacity/fingerprint``.
OpenStack Placement has no such routes and answers them 404. The
dashboard then reads the same through Placement's public API: the list
of providers, and per provider its inventories, usages, traits and
aggregates, four requests each. Its fingerprint is the list of
providers with their generations and usages (a request per provider on
each refresh); a provider whose generation moved is read again in full.
The page works against any Placement, slower, and says so
(:attr:`CapacityReader.public`).
"""

import hashlib

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite.clients import placement as placement_client

LOG = logging.getLogger(__name__)

_INVENTORY_FIELDS = ('total', 'reserved', 'allocation_ratio', 'max_unit')


class PublicCapacity:
    """The answers of the capacity routes, built from Placement's public
    API (``/resource_providers`` and each provider's sub-resources)."""

    def __init__(self, client):
        self.client = client
        self._usages = None

    def get_capacity_fingerprint(self):
        """A digest of every provider's generation and usages (which the
        next :meth:`get_capacity_usages` answers without reading again).
        """
        self._usages = self._read_usages()
        return hashlib.sha1(jsonutils.dumps(
            self._usages, sort_keys=True).encode('utf-8')).hexdigest()

    def get_capacity_usages(self):
        usages, self._usages = self._usages, None
        return usages if usages is not None else self._read_usages()

    def _read_usages(self):
        usages = []
        for provider in self.client.list_providers():
            used = self._read(self.client.get_usages, provider['uuid'])
            if used is not None:
                usages.append([provider['uuid'], provider['generation'],
                               used['usages']])
        return usages

    def get_capacity(self, uuids=None):
        providers = self.client.list_providers()
        if uuids is not None:
            wanted = set(uuids)
            providers = [p for p in providers if p['uuid'] in wanted]
        read = (self._provider(p) for p in providers)
        return [p for p in read if p is not None]

    @staticmethod
    def _read(call, uuid):
        """``call(uuid)``, or None for a provider deleted meanwhile."""
        try:
            return call(uuid)
        except placement_client.PlacementNotFound:
            return None

    def _provider(self, listed):
        uuid = listed['uuid']
        reads = [self._read(call, uuid) for call in (
            self.client.get_inventories, self.client.get_usages,
            self.client.get_traits, self.client.get_aggregates)]
        if any(r is None for r in reads):
            return None
        inventories, usages, traits, aggregates = reads
        inventories = {rc: {k: inv[k] for k in _INVENTORY_FIELDS}
                       for rc, inv in inventories['inventories'].items()}
        used = dict.fromkeys(inventories, 0)
        used.update(usages['usages'])
        return {'uuid': uuid, 'name': listed['name'],
                'generation': listed['generation'],
                'parent_provider_uuid': listed.get('parent_provider_uuid'),
                'root_provider_uuid': listed.get('root_provider_uuid') or
                uuid,
                'inventories': inventories, 'usages': used,
                'traits': sorted(traits['traits']),
                'aggregates': sorted(aggregates['aggregates'])}


class CapacityReader:
    """The capacity reads of one placement client: its nova_lite routes,
    or (from the first 404 of one of them on) :class:`PublicCapacity`."""

    def __init__(self, client):
        self.client = client
        self.public = False
        self._source = client

    def _call(self, name, *args):
        try:
            return getattr(self._source, name)(*args)
        except placement_client.PlacementNotFound:
            if self.public:
                raise
            LOG.warning('Placement has no nova_lite capacity routes '
                        '(OpenStack Placement?): the dashboard reads its '
                        'public API instead, one request per provider '
                        'and resource')
            self.public = True
            self._source = PublicCapacity(self.client)
            return getattr(self._source, name)(*args)

    def get_capacity_fingerprint(self):
        return self._call('get_capacity_fingerprint')

    def get_capacity_usages(self):
        return self._call('get_capacity_usages')

    def get_capacity(self, uuids=None):
        return self._call('get_capacity', uuids)
