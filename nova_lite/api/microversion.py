"""Compute API microversions: the supported range, its table and guards.

Clients ask with ``OpenStack-API-Version: compute 2.N`` or the legacy
``X-OpenStack-Nova-API-Version: 2.N`` (``latest`` means the maximum);
without either they get 2.1. Out of range is a 406. Every response echoes
the version served in both headers plus ``Vary``.

nova_lite serves 2.1 to 2.100. Versions that change behaviour nova_lite
implements are gated in the handlers with ``want >= (2, N)`` (see
:func:`of`) or :func:`require`; the versions that concern services
nova_lite does not have (volumes, networks, consoles) are accepted and
their features answer as Nova does when the service is absent (see
``doc/api-microversions.md``).
"""

import webob.exc

from nova_lite.wsgi import microversion as wsgi_microversion

SERVICE_TYPE = 'compute'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
ENVIRON_KEY = 'nova.api_version'

MIN_VERSION = wsgi_microversion.parse('2.1')
MAX_VERSION = wsgi_microversion.parse('2.100')

# The microversions whose behaviour the non-server resources of nova_lite
# change (servers: see handlers/servers.py). The others between 2.1 and
# 2.100 are accepted and behave as their predecessor here.
IMPLEMENTED = [
    ('2.2', 'keypair type (ssh, x509); keypair create 201, delete 204'),
    ('2.7', 'addTenantAccess on a public flavor is a 409'),
    ('2.10', 'keypairs: admins may name user_id'),
    ('2.11', 'os-services force-down and forced_down'),
    ('2.13', 'server groups show project_id and user_id'),
    ('2.15', 'soft-affinity and soft-anti-affinity server groups'),
    ('2.23', 'os-migrations shows migration_type'),
    ('2.26', 'server tags; tag filters of the server list'),
    ('2.28', 'hypervisor cpu_info is an object'),
    ('2.33', 'os-hypervisors paging (limit, marker)'),
    ('2.35', 'os-keypairs paging (limit, marker)'),
    ('2.36', 'network quotas and limits hidden; image proxy gone (404)'),
    ('2.39', 'maxImageMeta gone from limits; image metadata proxy gone'),
    ('2.40', 'os-simple-tenant-usage paging (limit, marker)'),
    ('2.41', 'aggregates show their uuid'),
    ('2.43', 'os-hosts removed (404)'),
    ('2.48', 'standardized server diagnostics'),
    ('2.50', 'quota classes: server groups shown, network quotas gone'),
    ('2.51', 'external event volume-extended accepted'),
    ('2.53', 'services and hypervisors by uuid; PUT /os-services/{uuid}; '
             'hypervisor_hostname_pattern, with_servers'),
    ('2.55', 'flavor description, PUT /flavors/{id}'),
    ('2.57', 'file-injection quotas and limits hidden'),
    ('2.58', 'instance actions show updated_at'),
    ('2.59', 'os-migrations uuid, paging, changes-since'),
    ('2.61', 'flavors show extra_specs'),
    ('2.62', 'instance action events show host and hostId'),
    ('2.64', 'server groups: policy and rules (max_server_per_host)'),
    ('2.69', 'down cells: minimal UNKNOWN records (os-services here)'),
    ('2.75', 'unknown query parameters of flavors, limits and server '
             'groups are a 400; flavor swap 0 is 0, not ""'),
    ('2.76', 'external event power-update accepted'),
    ('2.78', 'GET /servers/{id}/topology (no NUMA: no nodes)'),
    ('2.80', 'os-migrations user_id, project_id'),
    ('2.82', 'external event accelerator-request-bound accepted'),
    ('2.84', 'instance action events show details'),
    ('2.88', 'hypervisor usage fields and /statistics gone; uptime'),
    ('2.92', 'keypair import only (public_key required); wider names'),
    ('2.93', 'external event volume-reimaged accepted'),
]

# Microversions about services nova_lite does not have: accepted, and the
# APIs they concern answer as a deployment without that service would.
ABSENT_SERVICES = [
    ('2.4', 'os-fixed-ips reserved (network)', 'route not served: 404'),
    ('2.6', 'remote consoles (console)', 'route not served: 404'),
    ('2.8', 'MKS consoles (console)', 'route not served: 404'),
    ('2.12', 'virtual interfaces net_id (network)', 'not served: 404'),
    ('2.20', 'volume attach on shelved servers (volume)', 'not served'),
    ('2.31', 'serial console URLs (console)', 'not served: 404'),
    ('2.32', 'device tags on networks/volumes at boot', 'see servers'),
    ('2.36', 'network/volume proxy APIs removed', 'never served'),
    ('2.37', 'networks auto/none required at boot',
     'auto, none and [] accepted, no network is built (see servers)'),
    ('2.44', 'fixed/floating IP actions, virtual interfaces removed',
     'never served'),
    ('2.49', 'tagged volume attach (volume)', 'not served'),
    ('2.67', 'volume_type in block device mappings (volume)',
     'see servers'),
    ('2.79', 'delete_on_termination of volume attachments', 'not served'),
    ('2.85', 'volume attachment update (volume)', 'not served'),
    ('2.89', 'volume attachment ids (volume)', 'not served'),
    ('2.97', 'shares (manila)', 'not served: 404'),
]


TABLE = wsgi_microversion.VersionTable(
    SERVICE_TYPE, MIN_VERSION, MAX_VERSION, ENVIRON_KEY,
    wsgi_microversion.Messages(
        bad_header='Invalid API version: {text}',
        bad_format='API Version String {text} is of invalid format. Must '
                   'be of format MajorNum.MinorNum.',
        unsupported='Version {text} is not supported by the API. Minimum '
                    'is {min} and maximum is {max}.'),
    legacy_header=LEGACY_HEADER,
    vary='%s, %s' % (wsgi_microversion.HEADER, LEGACY_HEADER))


def of(req):
    """The microversion served for ``req`` (set by the middleware)."""
    return TABLE.of(req)


def at_least(req, text):
    """True when ``req`` asked for version ``text`` or later."""
    return of(req) >= wsgi_microversion.parse(text)


def require(min_version=None, max_version=None):
    """Handler decorator: outside [min, max] the URL does not exist (404)."""
    parse = wsgi_microversion.parse
    low = parse(min_version) if min_version else MIN_VERSION
    high = parse(max_version) if max_version else MAX_VERSION

    def decorate(handler):
        def guarded(req):
            if not low <= of(req) <= high:
                raise webob.exc.HTTPNotFound(
                    'The resource could not be found.')
            return handler(req)
        guarded.__name__ = handler.__name__
        guarded.__doc__ = handler.__doc__
        guarded.__wrapped__ = handler
        # Read by the OpenAPI document (nova_lite.wsgi.openapi).
        guarded.min_version = min_version
        guarded.max_version = max_version
        return guarded
    return decorate
