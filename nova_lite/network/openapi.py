"""The network service's OpenAPI 3.1 document, made from its route table.

Paths and methods come from ``router.ROUTES``. The network service checks
its bodies in code (as Neutron does, attribute by attribute) and has no
JSON schemas yet, so its operations are marked missing, bodies and
answers alike (doc/openapi.md); the document still names every route,
its parameters and its error format. Served at ``/network/openapi.json``
without credentials.
"""

from nova_lite.network import handlers
from nova_lite.wsgi import openapi

PATH = '/network/openapi.json'
Op = openapi.Operation

ERROR = {
    'type': 'object',
    'properties': {'NeutronError': {
        'type': 'object',
        'properties': {'type': {'type': 'string'},
                       'message': {'type': 'string'},
                       'detail': {'type': 'string'}},
        'required': ['type', 'message', 'detail']}},
    'required': ['NeutronError']}

OPERATIONS = {
    handlers.delete_resource: Op(responses={'204': None}),
}


def service(routes):
    """The network service as :mod:`nova_lite.wsgi.openapi` describes
    it."""
    return openapi.Service(
        name='network', title='nova_lite network service',
        description='The Networking API v2.0 (Neutron\'s shapes) as '
                    'nova-lite-api serves it under /network.',
        routes=routes, operations=OPERATIONS, error_schema=ERROR,
        public=frozenset([PATH]), tag_depth=2)


def document(routes):
    """The network service's document for its route table."""
    return openapi.document(service(routes))
