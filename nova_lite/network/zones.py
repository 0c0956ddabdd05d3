"""Neutron's ``availability_zone``: the one zone, ``nova``.

The lab has no network agents, so networks and routers are in the one
zone Neutron names by default; ``GET /v2.0/availability_zones`` lists it
for each (with Neutron's filters on name, resource and state).
"""

from nova_lite.network import common
from nova_lite.wsgi import util

ZONE = 'nova'
RESOURCES = ('network', 'router')


def list_zones(req):
    zones = [{'name': ZONE, 'resource': resource, 'state': 'available'}
             for resource in RESOURCES]
    return util.json_response({'availability_zones': common.filtered(
        req, zones)})


def routes(prefix):
    return {prefix + '/v2.0/availability_zones': {'GET': list_zones}}
