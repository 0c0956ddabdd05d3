"""os-availability-zone: the zones of the compute services (and, in
detail for admins, the internal zone and every zone's hosts).

A zone is available when one of its compute services is enabled. Hosts
in no aggregate with an ``availability_zone`` are in the default zone.
"""

from nova_lite.api import host_info
from nova_lite.api import policy
from nova_lite.api import util


def _zones(context, include_internal):
    """{zone: {host: {binary: service}}} plus zone availability."""
    services, _down = host_info.all_services(context)
    zones_by_host = host_info.zones_by_host(context)
    zones, available = {}, {}
    for entry in services:
        service = entry.item
        zone = host_info.zone_of_service(service, zones_by_host)
        if zone == host_info.INTERNAL_ZONE and not include_internal:
            continue
        zones.setdefault(zone, {}).setdefault(service.host, {})[
            host_info.public_binary(service.binary)] = service
        if zone == host_info.INTERNAL_ZONE or not service.disabled:
            available[zone] = True
        else:
            available.setdefault(zone, False)
    return zones, available


def list_zones(req):
    """GET /os-availability-zone."""
    context = util.context(req)
    policy.authorize(context, 'os-availability-zone:list')
    zones, available = _zones(context, include_internal=False)
    info = [{'zoneName': zone, 'zoneState': {'available': available[zone]},
             'hosts': None} for zone in sorted(zones)]
    return util.json_response({'availabilityZoneInfo': info})


def _host_view(binaries):
    return {binary: {'available': (not service.disabled and
                                   host_info.is_up(service)),
                     'active': not service.disabled,
                     'updated_at': util.isotime_micro(service.updated_at)}
            for binary, service in binaries.items()}


def list_zones_detail(req):
    """GET /os-availability-zone/detail (admins)."""
    context = util.context(req)
    policy.authorize(context, 'os-availability-zone:detail')
    zones, available = _zones(context, include_internal=True)
    info = [{'zoneName': zone, 'zoneState': {'available': available[zone]},
             'hosts': {host: _host_view(binaries)
                       for host, binaries in sorted(zones[zone].items())}}
            for zone in sorted(zones)]
    return util.json_response({'availabilityZoneInfo': info})
