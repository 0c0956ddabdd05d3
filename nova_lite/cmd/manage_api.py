"""nova-lite-manage api openapi --service NAME: a service's OpenAPI 3.1
document on stdout.

The same document the service serves (compute at ``/v2.1/openapi.json``,
image at ``/image/openapi.json``, network at ``/network/openapi.json``,
placement at ``/openapi.json``), made from the code installed here, with
no database or configuration needed: to publish, diff between releases or
feed a client generator (doc/openapi.md). ``--missing`` lists instead what
the document does not describe yet, one ``METHOD path: what`` a line.
"""

from oslo_serialization import jsonutils

from nova_lite.api import deploy
from nova_lite.placement import handler as placement_handler
from nova_lite.placement import openapi as placement_openapi
from nova_lite.wsgi import openapi


def _documents():
    documents = dict(deploy.OPENAPI_DOCUMENTS)
    documents['placement'] = lambda: placement_openapi.document(
        placement_handler.ROUTE_DECLARATIONS)
    return documents


SERVICES = ('compute', 'image', 'network', 'placement')


def show_openapi(args):
    document = _documents()[args.service]()
    if args.missing:
        for path, method, what in openapi.missing(document):
            print('%s %s: %s' % (method, path, what))
        return 0
    print(jsonutils.dumps(document, indent=2, sort_keys=True))
    return 0


def build_parser(categories):
    api = categories.add_parser('api', help='the REST services\' APIs')
    acts = api.add_subparsers(dest='action', required=True, metavar='ACTION')
    show = acts.add_parser('openapi', help="print a service's OpenAPI 3.1 "
                           'document')
    show.add_argument('--service', required=True, choices=SERVICES,
                      help='which service')
    show.add_argument('--missing', action='store_true',
                      help='list what the document does not describe yet')
    show.set_defaults(func=show_openapi)
