"""The network service's resources in the API database.

Read and written by the network service under ``/network`` (the compute
API and its network proxies through :mod:`.interface`), as plain dicts:
each resource is its Neutron v2.0 representation.
"""

from nova_lite.db.api import network_api


def _body(row):
    return dict(row.body or {})


def create(context, kind, resource, ips=()):
    """Store ``resource`` (a dict with ``id`` and ``project_id``) and the
    (network, subnet, address) it holds."""
    network_api.resource_create(context, kind, resource['id'],
                                resource.get('project_id'), resource, ips)
    return resource


def get(context, kind, uuid):
    return _body(network_api.resource_get(context, kind, uuid))


def get_all(context, kind, project_id=None):
    return [_body(r) for r in network_api.resource_get_all(
        context, kind, project_id)]


def get_by_devices(context, kind, device_ids):
    """The resources bound to any of ``device_ids`` (servers' ports)."""
    return [_body(r) for r in network_api.resource_get_by_devices(
        context, kind, device_ids)]


def update(context, kind, resource, ips=None):
    network_api.resource_update(context, kind, resource['id'], resource, ips)
    return resource


def destroy(context, kind, uuid):
    network_api.resource_destroy(context, kind, uuid)


def addresses_in_use(context, network_id):
    return network_api.addresses_in_use(context, network_id)
