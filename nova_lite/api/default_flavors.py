"""The default flavors m1.tiny to m1.xlarge (ids 1 to 5).

Created on the API's first start when the API database has no flavor at
all (``[api] create_default_flavors``), so a fresh lab can boot servers
at once. Creating them twice is harmless: a taken name or id is skipped.
"""

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.objects import flavor_manage

LOG = logging.getLogger(__name__)

# (flavorid, name, memory_mb, vcpus, root_gb)
DEFAULT_FLAVORS = (
    ('1', 'm1.tiny', 512, 1, 1),
    ('2', 'm1.small', 2048, 1, 20),
    ('3', 'm1.medium', 4096, 2, 40),
    ('4', 'm1.large', 8192, 4, 80),
    ('5', 'm1.xlarge', 16384, 8, 160),
)


def ensure_default_flavors(context, force=False):
    """Create the default flavors if there is no flavor (or ``force``).

    Returns the names created.
    """
    if not force and flavor_manage.get_all(context):
        return []
    created = []
    for flavorid, name, memory_mb, vcpus, root_gb in DEFAULT_FLAVORS:
        try:
            flavor_manage.create(context, {
                'flavorid': flavorid, 'name': name, 'memory_mb': memory_mb,
                'vcpus': vcpus, 'root_gb': root_gb, 'ephemeral_gb': 0,
                'swap': 0, 'rxtx_factor': 1.0, 'is_public': True})
        except exception.FlavorExists:
            continue
        created.append(name)
    if created:
        LOG.info('Created default flavors: %s', ', '.join(created))
    return created
