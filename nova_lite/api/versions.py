"""Version documents of the compute API: ``GET /`` and ``GET /v2.1``.

Clients (openstacksdk, python-novaclient) start here: the root lists the
API versions with their microversion range, ``/v2.1`` describes the
current one. The range comes from :mod:`nova_lite.api.microversion`.
"""

from nova_lite.api import microversion
from nova_lite.wsgi import microversion as wsgi_microversion

MIN_MICROVERSION = wsgi_microversion.format_version(microversion.MIN_VERSION)
MAX_MICROVERSION = wsgi_microversion.format_version(microversion.MAX_VERSION)

MEDIA_TYPE = 'application/vnd.openstack.compute+json;version=2.1'
_MEDIA_TYPES = {'v2.0': 'application/vnd.openstack.compute+json;version=2',
                'v2.1': MEDIA_TYPE}

_VERSIONS = {
    'v2.0': {'status': 'DEPRECATED', 'version': '', 'min_version': '',
             'updated': '2025-07-04T12:00:00Z'},
    'v2.1': {'status': 'CURRENT', 'version': MAX_MICROVERSION,
             'min_version': MIN_MICROVERSION,
             'updated': '2013-07-23T11:33:21Z'},
}


def _version(version_id, href):
    doc = {'id': version_id}
    doc.update(_VERSIONS[version_id])
    doc['links'] = [{'rel': 'self', 'href': href}]
    return doc


def root_document(base_url):
    """The document at ``/``: every API version, linking to its root."""
    base_url = base_url.rstrip('/')
    return {'versions': [
        _version(vid, '%s/%s/' % (base_url, vid.replace('v2.0', 'v2')))
        for vid in sorted(_VERSIONS)]}


def v21_document(base_url, version_id='v2.1'):
    """The document at ``/v2.1`` (or, ``v2.0``, at the legacy ``/v2``):
    that version in detail."""
    base_url = base_url.rstrip('/')
    doc = _version(version_id, '%s/%s/' % (
        base_url, version_id.replace('v2.0', 'v2')))
    doc['links'].append({
        'rel': 'describedby', 'type': 'text/html',
        'href': 'https://docs.openstack.org/'})
    doc['media-types'] = [{'base': 'application/json',
                           'type': _MEDIA_TYPES[version_id]}]
    return {'version': doc}
