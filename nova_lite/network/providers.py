"""Neutron's ``service-type``: ``GET /v2.0/service-providers``.

The lab's one advanced service is the L3 router, and its providers are
Neutron's legacy L3 ones, one per kind of router an admin may make (the
``distributed`` and ``ha`` flags): ``single_node`` (the default),
``ha``, ``dvr`` and ``dvrha``. A service profile (:mod:`.flavors`) may
name their drivers; the lab runs no load balancer or VPN drivers.
"""

from nova_lite.network import common
from nova_lite.wsgi import util

L3 = 'L3_ROUTER_NAT'
_DRIVERS = 'neutron.services.l3_router.service_providers.'
# (service type, name, driver, default)
PROVIDERS = (
    (L3, 'single_node', _DRIVERS + 'single_node.SingleNodeDriver', True),
    (L3, 'ha', _DRIVERS + 'ha.HaDriver', False),
    (L3, 'dvr', _DRIVERS + 'dvr.DvrDriver', False),
    (L3, 'dvrha', _DRIVERS + 'dvrha.DvrHaDriver', False),
)


def drivers():
    return {driver for _type, _name, driver, _default in PROVIDERS}


def list_providers(req):
    return util.json_response({'service_providers': common.filtered(
        req, [{'service_type': kind, 'name': name, 'default': default}
              for kind, name, _driver, default in PROVIDERS])})


def routes(prefix):
    return {prefix + '/v2.0/service-providers': {'GET': list_providers}}
