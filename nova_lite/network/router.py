"""The network service's route table: Neutron v2.0 under ``/network``.

Path -> {method: handler} (:mod:`.handlers`); nova-lite-api's deploy
mounts it next to the compute API's, with :data:`ERRORS` rendering every
error under ``/network`` as Neutron does. A known path asked with
another method is a 405 and a trailing slash is ignored, as in Neutron.
"""

from nova_lite.network import errors
from nova_lite.network import handlers

PREFIX = '/network'

ROUTES = handlers.routes(PREFIX)

# Routers' interface actions (the L3 extension).
for _action in ('add_router_interface', 'remove_router_interface'):
    ROUTES['%s/v2.0/routers/{id}/%s' % (PREFIX, _action)] = {
        'PUT': handlers.router_interface}
ERRORS = errors.ERRORS
