"""Register the nova_lite lab in Keystone: projects, users, catalog.

Run by devstack/lib/keystone.sh with the Keystone virtualenv's Python,
after ``keystone-manage bootstrap`` made the admin user and project, the
admin/member/reader roles, the region and the identity endpoints.

It makes the ``service`` project with the ``nova_lite`` service user
(admin there: the services validate tokens and call placement with it),
the ``demo`` project with the ``demo`` member user, and the compute, image
and placement services with their public, internal and admin endpoints.

Idempotent: what exists is kept (users keep their passwords, so running
services keep their tokens); an endpoint whose URL changed (another port)
is updated in place.

usage: keystone_register.py AUTH_URL PASSWORD REGION COMPUTE_URL
       IMAGE_URL PLACEMENT_URL
"""

import sys

from keystoneauth1.identity import v3
from keystoneauth1 import session as ksa_session

INTERFACES = ('public', 'internal', 'admin')


class Registrar:
    def __init__(self, auth_url, password, region):
        self.base = auth_url.rstrip('/')
        self.region = region
        auth = v3.Password(
            auth_url=self.base, username='admin', password=password,
            project_name='admin', user_domain_id='default',
            project_domain_id='default')
        self.session = ksa_session.Session(auth=auth)

    def _get(self, path, key, **query):
        return self.session.get(self.base + path, params=query).json()[key]

    def _create(self, path, key, body):
        return self.session.post(self.base + path,
                                 json={key: body}).json()[key]

    def ensure(self, path, key, name, body):
        """The entity ``name`` at ``path`` (/projects, ...), made if
        missing; True as second value when it was made."""
        found = self._get(path, key + 's', name=name)
        if found:
            return found[0], False
        return self._create(path, key, dict(body, name=name)), True

    def role_id(self, name):
        return self._get('/roles', 'roles', name=name)[0]['id']

    def project(self, name, description):
        project, made = self.ensure('/projects', 'project', name, {
            'domain_id': 'default', 'description': description})
        if made:
            print('[nova-lite] keystone: project %s' % name)
        return project['id']

    def user(self, name, password, project_id, role):
        user, made = self.ensure('/users', 'user', name, {
            'domain_id': 'default', 'password': password,
            'default_project_id': project_id})
        # PUT of a role assignment is idempotent.
        self.session.put('%s/projects/%s/users/%s/roles/%s' % (
            self.base, project_id, user['id'], self.role_id(role)))
        if made:
            print('[nova-lite] keystone: user %s (%s)' % (name, role))

    def service(self, service_type, name, description, url):
        service, made = self.ensure('/services', 'service', name, {
            'type': service_type, 'description': description})
        endpoints = self._get('/endpoints', 'endpoints',
                              service_id=service['id'])
        by_interface = {e['interface']: e for e in endpoints
                        if e.get('region_id') == self.region}
        for interface in INTERFACES:
            endpoint = by_interface.get(interface)
            if endpoint is None:
                self._create('/endpoints', 'endpoint', {
                    'service_id': service['id'], 'interface': interface,
                    'url': url, 'region_id': self.region})
            elif endpoint['url'] != url:
                self.session.patch(
                    '%s/endpoints/%s' % (self.base, endpoint['id']),
                    json={'endpoint': {'url': url}})
            else:
                continue
            made = True
        if made:
            print('[nova-lite] keystone: %s endpoint %s' % (service_type,
                                                            url))


def main(argv):
    auth_url, password, region, compute, image, placement = argv[:6]
    network = argv[6] if len(argv) > 6 else None
    reg = Registrar(auth_url, password, region)
    service_project = reg.project('service', 'nova_lite service users')
    demo_project = reg.project('demo', 'nova_lite demo project')
    reg.user('nova_lite', password, service_project, 'admin')
    reg.user('demo', password, demo_project, 'member')
    reg.service('compute', 'nova', 'nova_lite compute API', compute)
    reg.service('image', 'nova-lite-image',
                'nova_lite image catalog (Image API v2, read-only)', image)
    reg.service('placement', 'placement', 'nova_lite placement', placement)
    if network:
        reg.service('network', 'neutron',
                    'nova_lite network service (Networking API v2.0)',
                    network)
    print('[nova-lite] keystone: projects, users and catalog registered')


if __name__ == '__main__':
    main(sys.argv[1:])
