"""Placement microversions: the list, its table and the version guard.

Clients ask for a version with ``OpenStack-API-Version: placement X.Y``
(``latest`` means the maximum); without the header they get 1.0. Every
response echoes the version served and carries ``Vary`` on the header.

``VERSIONS`` has one line per version saying what it added. To add one:
append it here, gate the new behaviour with ``want >= (1, N)`` or
:func:`require`, add gabbi tests at both sides of the boundary.
"""

import webob.exc

from nova_lite.placement import errors
from nova_lite.wsgi import microversion as wsgi_microversion

SERVICE_TYPE = 'placement'
ENVIRON_KEY = 'placement.microversion'

VERSIONS = [
    '1.0',   # initial: providers, inventories, usages, allocations
    '1.1',   # resource provider aggregates
    '1.2',   # custom resource classes
    '1.3',   # member_of on GET /resource_providers
    '1.4',   # resources filter on GET /resource_providers
    '1.5',   # DELETE all inventories of a provider
    '1.6',   # traits
    '1.7',   # PUT /resource_classes/{name} is create-or-validate
    '1.8',   # project_id/user_id required on PUT /allocations
    '1.9',   # GET /usages
    '1.10',  # GET /allocation_candidates
    '1.11',  # allocations link in provider representation
    '1.12',  # PUT /allocations takes a dict keyed by provider
    '1.13',  # POST /allocations for several consumers
    '1.14',  # nested providers: parent/root uuid, in_tree
    '1.15',  # Last-Modified and Cache-Control on GETs
    '1.16',  # limit on allocation candidates
    '1.17',  # required traits on allocation candidates
    '1.18',  # required traits on GET /resource_providers
    '1.19',  # provider aggregates carry the provider generation
    '1.20',  # POST /resource_providers returns the provider
    '1.21',  # member_of on allocation candidates
    '1.22',  # forbidden traits
    '1.23',  # placement.undefined_code on every error
    '1.24',  # several member_of
    '1.25',  # granular request groups
    '1.26',  # reserved may equal total
    '1.27',  # provider summaries list every resource class
    '1.28',  # consumer generations
    '1.29',  # nested allocation candidates
    '1.30',  # POST /reshaper
    '1.31',  # in_tree on allocation candidates
    '1.32',  # forbidden aggregates (member_of=!)
    '1.33',  # arbitrary request group suffixes
    '1.34',  # request group mappings
    '1.35',  # root_required
    '1.36',  # same_subtree
    '1.37',  # re-parenting providers
    '1.38',  # consumer_type
    '1.39',  # in: in required traits
]

MIN_VERSION = wsgi_microversion.parse(VERSIONS[0])
MAX_VERSION = wsgi_microversion.parse(VERSIONS[-1])

TABLE = wsgi_microversion.VersionTable(
    SERVICE_TYPE, MIN_VERSION, MAX_VERSION, ENVIRON_KEY,
    wsgi_microversion.Messages(
        bad_header='Invalid microversion: {text}',
        bad_format='Invalid microversion: {error}',
        unsupported='Invalid microversion: Unacceptable version header: '
                    '{text}'),
    vary=wsgi_microversion.HEADER.lower(), headers_on_bad_version=False)


def of(req):
    """The microversion served for ``req`` (set by the middleware)."""
    return TABLE.of(req)


def require(min_version, status_code=404):
    """Handler decorator: below ``min_version`` answer 404 (a URL that does
    not exist yet) or 405 (a method the URL did not take yet)."""
    wanted = wsgi_microversion.parse(min_version)

    def decorate(handler):
        def guarded(req):
            if of(req) < wanted:
                # NOTE(nova_lite): as Placement, the bare status: webob's
                # explanation and no message.
                if status_code == 405:
                    raise webob.exc.HTTPMethodNotAllowed(
                        comment=errors.DEFAULT)
                raise webob.exc.HTTPNotFound(comment=errors.DEFAULT)
            return handler(req)
        guarded.__name__ = handler.__name__
        guarded.__doc__ = handler.__doc__
        guarded.min_version = min_version
        return guarded
    return decorate
