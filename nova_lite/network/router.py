"""The network service's route table: Neutron v2.0 under ``/network``.

Path -> {method: handler} (:mod:`.handlers`); nova-lite-api's deploy
mounts it next to the compute API's, with :data:`ERRORS` rendering every
error under ``/network`` as Neutron does. A known path asked with
another method is a 405 and a trailing slash is ignored, as in Neutron.
"""

from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import handlers
from nova_lite.network import networks
from nova_lite.network import ports
from nova_lite.network import quotas
from nova_lite.network import secgroups
from nova_lite.network import tags

PREFIX = '/network'

ROUTES = handlers.routes(PREFIX)
ERRORS = errors.ERRORS

# -- standard-attr-tag: the taggable collections (a module serving another
# collection registers it before the tag routes are made).
tags.register('networks', 'network', networks.get_network)
tags.register('subnets', 'subnet', networks.get_subnet)
tags.register('ports', 'port', ports.get_port)
tags.register('security-groups', secgroups.SG,
              lambda context, uuid: common.get(context, secgroups.SG, uuid))
tags.register('floatingips', 'floatingip', ports.get_floatingip)
ROUTES.update(tags.routes(PREFIX))

# -- quotas and quota_details.
ROUTES.update(quotas.routes(PREFIX))
