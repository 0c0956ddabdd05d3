"""A snapshot read from a running cloud's public APIs.

Placement is read at one microversion, ``PLACEMENT_VERSION`` (1.14: the
first with nested providers' parent and root; traits, aggregates and
usages are older), which nova_lite's placement and every OpenStack
Placement since Queens serve, through public routes only::

    GET /resource_providers
    GET /resource_providers/{uuid}/inventories | traits | aggregates | usages

The compute API, when its URL is given, is read at ``COMPUTE_VERSION``
(2.53: hypervisor ids are the provider uuids, and the hypervisor's
sizes are still shown): ``/flavors/detail`` with each flavor's
``os-extra_specs``, ``/os-aggregates`` and ``/os-hypervisors/detail``,
following ``*_links`` ``next`` pages.

Credentials are given as the OpenStack client takes them (``--os-token``,
or ``--os-auth-url`` with user, password and project; each defaults to
its ``OS_*`` environment variable): a Keystone password login yields a
token put in ``X-Auth-Token``; without either, the token ``admin`` is sent
(what a nova_lite lab with ``noauth2`` accepts).
"""

import requests

from nova_lite.sim import snapshot

PLACEMENT_VERSION = '1.14'
COMPUTE_VERSION = '2.53'


class SourceError(Exception):
    """A read failed (says which URL and what came back)."""


def keystone_token(auth_url, username, password, project_name,
                   user_domain_name='Default',
                   project_domain_name='Default'):
    """A token from Keystone's password login (keystoneauth1)."""
    from keystoneauth1 import exceptions as ksa_exceptions
    from keystoneauth1 import loading
    from keystoneauth1 import session as ksa_session
    plugin = loading.get_plugin_loader('password').load_from_options(
        auth_url=auth_url, username=username, password=password,
        project_name=project_name, user_domain_name=user_domain_name,
        project_domain_name=project_domain_name)
    try:
        return plugin.get_token(ksa_session.Session(auth=plugin))
    except ksa_exceptions.ClientException as err:
        raise SourceError('no Keystone token: %s' % err)


class _Reader:
    """GETs of one API at one microversion, with the token."""

    def __init__(self, base_url, token, version_header, session=None):
        self.base = base_url.rstrip('/')
        self.session = session or requests.Session()
        self.headers = {'X-Auth-Token': token,
                        'Accept': 'application/json'}
        self.headers.update(version_header)

    def get(self, path_or_url):
        url = (path_or_url if path_or_url.startswith('http')
               else self.base + path_or_url)
        try:
            resp = self.session.get(url, headers=self.headers, timeout=60)
        except requests.RequestException as err:
            raise SourceError('GET %s: %s' % (url, err))
        if resp.status_code != 200:
            raise SourceError('GET %s: %d %s' % (url, resp.status_code,
                                                  resp.text[:200]))
        return resp.json()

    def pages(self, path, key):
        """Every item of a list that may come in pages (``key_links``)."""
        items, url = [], path
        while url:
            body = self.get(url)
            items.extend(body.get(key) or [])
            url = next((link['href'] for link in
                        body.get(key + '_links') or []
                        if link.get('rel') == 'next'), None)
        return items


def placement_reader(url, token, session=None):
    return _Reader(url, token, {
        'OpenStack-API-Version': 'placement %s' % PLACEMENT_VERSION},
        session)


def compute_reader(url, token, session=None):
    return _Reader(url, token, {
        'OpenStack-API-Version': 'compute %s' % COMPUTE_VERSION,
        'X-OpenStack-Nova-API-Version': COMPUTE_VERSION}, session)


def read_providers(reader):
    """The providers with inventories, traits, aggregates and usages."""
    providers = []
    for prov in reader.get('/resource_providers')['resource_providers']:
        base = '/resource_providers/%s' % prov['uuid']
        providers.append({
            'uuid': prov['uuid'], 'name': prov['name'],
            'parent_provider_uuid': prov.get('parent_provider_uuid'),
            'root_provider_uuid': prov.get('root_provider_uuid'),
            'inventories': reader.get(base + '/inventories')['inventories'],
            'traits': reader.get(base + '/traits')['traits'],
            'aggregates': reader.get(base + '/aggregates')['aggregates'],
            'usages': reader.get(base + '/usages')['usages'],
        })
    return providers


def read_compute(reader):
    """``{'flavors', 'aggregates', 'hypervisors'}`` from the compute API."""
    flavors = reader.pages('/flavors/detail', 'flavors')
    for flavor in flavors:
        flavor['extra_specs'] = reader.get(
            '/flavors/%s/os-extra_specs' % flavor['id'])['extra_specs']
    return {'flavors': flavors,
            'aggregates': reader.get('/os-aggregates')['aggregates'],
            'hypervisors': reader.pages('/os-hypervisors/detail',
                                        'hypervisors')}


def import_cloud(placement_url, token, compute_url=None, session=None):
    """A validated snapshot of the cloud behind ``placement_url`` (and
    ``compute_url``, when given)."""
    doc = {'source': {'placement_url': placement_url,
                      'placement_microversion': PLACEMENT_VERSION},
           'providers': read_providers(
               placement_reader(placement_url, token, session))}
    if compute_url:
        doc['source'].update(compute_url=compute_url,
                             compute_microversion=COMPUTE_VERSION)
        doc.update(read_compute(compute_reader(compute_url, token,
                                               session)))
    return snapshot.validate(doc)
