"""Neutron's ``service-type``: ``GET /v2.0/service-providers``.

The lab runs no service drivers (load balancers, VPNs), so the list is
empty, as a Neutron without them answers.
"""

from nova_lite.network import common
from nova_lite.wsgi import util


def list_providers(req):
    return util.json_response({'service_providers': common.filtered(
        req, [])})


def routes(prefix):
    return {prefix + '/v2.0/service-providers': {'GET': list_providers}}
