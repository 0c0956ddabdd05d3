"""Options in [cors]: oslo.middleware's CORS filter in front of placement.

The options are oslo.middleware's own (``oslo_middleware.cors``), so a
configuration written for Placement works unchanged; the filter is in the
pipeline only when ``allowed_origin`` is set. The defaults of the headers
and methods are Placement's: its API headers are allowed and exposed.
The sample configuration lists them under oslo.middleware's namespace, so
:func:`list_opts` does not repeat them.
"""

from oslo_middleware import cors

ALLOW_HEADERS = ['X-Auth-Token', 'X-Openstack-Request-Id',
                 'X-Identity-Status', 'X-Roles', 'X-Service-Catalog',
                 'X-User-Id', 'X-Tenant-Id', 'OpenStack-API-Version']
EXPOSE_HEADERS = ['X-Auth-Token', 'X-Openstack-Request-Id',
                  'X-Subject-Token', 'X-Service-Token',
                  'OpenStack-API-Version']
ALLOW_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH']


def register_opts(conf):
    cors.set_defaults(allow_headers=ALLOW_HEADERS,
                      expose_headers=EXPOSE_HEADERS,
                      allow_methods=ALLOW_METHODS)
    conf.register_opts(cors.CORS_OPTS, group='cors')


def list_opts():
    return []
