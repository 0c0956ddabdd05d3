"""Neutron's ``service-type``: ``GET /v2.0/service-providers``.

The lab serves routers (the L3 service), so it lists the L3 flavors'
providers Neutron's router plugin registers (``single_node`` the
default, ``ha``, ``dvr``, ``dvrha``); it runs no other service drivers
(load balancers, VPNs).
"""

from nova_lite.network import common
from nova_lite.wsgi import util

L3 = 'L3_ROUTER_NAT'
_DRIVERS = 'neutron.services.l3_router.service_providers.'
PROVIDERS = (
    ('single_node', 'single_node.SingleNodeDriver', True),
    ('ha', 'ha.HaDriver', False),
    ('dvr', 'dvr.DvrDriver', False),
    ('dvrha', 'dvrha.DvrHaDriver', False),
)


def list_providers(req):
    providers = [{'service_type': L3, 'name': name,
                  'driver': _DRIVERS + driver, 'default': default}
                 for name, driver, default in PROVIDERS]
    return util.json_response({'service_providers': common.filtered(
        req, providers)})


def routes(prefix):
    return {prefix + '/v2.0/service-providers': {'GET': list_providers}}
