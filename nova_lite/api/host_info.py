"""Services, compute nodes and zones of every cell, for the admin APIs.

os-services, os-hypervisors, os-hosts and os-availability-zone all need
the same reads: the services and compute nodes of each cell (read in
parallel, see :mod:`nova_lite.cells`), each tagged with its cell, and
the availability zone of each host (aggregate metadata in the API DB;
hosts in no zone are in the default zone, services other than computes
in the internal zone).
"""

import collections

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.objects import service as service_obj
from nova_lite import servicegroup

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

INTERNAL_ZONE = 'internal'
COMPUTE_BINARY = 'nova-lite-compute'
# The API speaks Nova's binary names (users script against them: Tempest
# filters on binary=nova-compute); the processes and the service records
# keep their nova-lite-* names.
BINARY_ALIASES = {'nova-compute': COMPUTE_BINARY,
                  'nova-conductor': 'nova-lite-conductor',
                  'nova-scheduler': 'nova-lite-scheduler'}
_PUBLIC_BINARIES = {ours: nova for nova, ours in BINARY_ALIASES.items()}

CellItem = collections.namedtuple('CellItem', 'cell_uuid item')


def default_zone():
    return CONF.default_availability_zone


def zones_by_host(context):
    return aggregate_obj.availability_zones_by_host(context)


def zone_of_service(service, zones):
    if service.binary != COMPUTE_BINARY:
        return INTERNAL_ZONE
    return zones.get(service.host, default_zone())


def normalize_binary(binary):
    """The service records' binary for a name the API was given."""
    return BINARY_ALIASES.get(binary, binary)


def public_binary(binary):
    """The binary name the API shows (Nova's) for a service record's."""
    return _PUBLIC_BINARIES.get(binary, binary)


def _gather(context, fn, include_cell0=False, **kwargs):
    results = cells.scatter_gather_all(context, fn,
                                       include_cell0=include_cell0,
                                       **kwargs)
    items, down = [], []
    for cell_uuid, result in results.items():
        if cells.is_failure(result):
            down.append(cell_uuid)
            continue
        items.extend(CellItem(cell_uuid, row) for row in result)
    return items, down


def all_services(context, binary=None, host=None):
    """([CellItem(service)], [uuids of cells that did not answer])."""
    return _gather(context, service_obj.ServiceList.get_all,
                   binary=normalize_binary(binary) if binary else None,
                   host=host)


def is_up(service):
    return servicegroup.is_up(service)


def uptime(service):
    """What ``uptime`` prints on a host, as the libvirt driver reports it
    (Nova's fake driver has none): the fake host is up since its compute
    service first reported; None for a down or unknown service (an
    object or a dict of its columns)."""
    if service is None or not is_up(service):
        return None
    now = timeutils.utcnow()
    created = (service['created_at'] if isinstance(service, dict)
               else service.created_at)
    seconds = max(0, int((now - timeutils.normalize_time(
        created)).total_seconds()))
    days, rest = divmod(seconds, 86400)
    return ' %s up %d days, %d:%02d,  0 users,  load average: 0.00, 0.00, ' \
        '0.00' % (now.strftime('%H:%M:%S'), days, rest // 3600,
                  rest % 3600 // 60)


def compute_services_by_host(context):
    """{host: CellItem(compute service)} over every cell."""
    services, _down = all_services(context, binary=COMPUTE_BINARY)
    return {entry.item.host: entry for entry in services}
