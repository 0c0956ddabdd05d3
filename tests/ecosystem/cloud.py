"""A lab made to look like the devstack cloud both suites expect.

openstacksdk's functional base reads the clouds ``devstack`` (a member of
the demo project), ``devstack-alt`` (a member of another project),
``devstack-admin`` and ``devstack-system-admin`` (the admin, project and
system scoped); python-openstackclient's reads ``devstack-admin``. The
lab's Keystone has the admin and the demo user (devstack/lib/
keystone_register.py); this adds devstack's ``alt_demo`` project and user
and, through the lab's network API, devstack's initial networks: an
external ``public`` network (floating IPs, and the network
``cloud/test_inventory.py`` boots on) and the demo project's ``private``
network. Nothing names a port: the URLs and the password come from the
:class:`tests.integration.lab.Lab`, the flavor and the image from the
lab's APIs.
"""

from keystoneauth1.identity import v3
from keystoneauth1 import session as ksa_session

from tests.tempest import conf as tempest_conf

ALT = 'alt_demo'
REGION = 'RegionOne'
# devstack's defaults (lib/neutron: PUBLIC_NETWORK_NAME and
# FLOATING_RANGE, PRIVATE_NETWORK_NAME and FIXED_RANGE).
PUBLIC_NETWORK = ('public', '172.24.4.0/24')
PRIVATE_NETWORK = ('private', '10.0.0.0/26')
NETWORK = {'service_type': 'network', 'interface': 'public'}


def user_session(lab, user, project):
    auth = v3.Password(
        auth_url=lab.keystone, username=user,
        password=lab.keystone_password, project_name=project,
        user_domain_name='Default', project_domain_name='Default')
    return ksa_session.Session(auth=auth)


def _one(sess, url, key, name):
    found = sess.get(url, params={'name': name}).json()[key]
    return found[0] if found else None


def ensure_alt_user(lab):
    """devstack's ``alt_demo`` project and its member ``alt_demo``."""
    sess = tempest_conf.admin_session(lab)
    base = lab.keystone.rstrip('/')
    project = _one(sess, base + '/projects', 'projects', ALT) or sess.post(
        base + '/projects', json={'project': {
            'name': ALT, 'domain_id': 'default',
            'description': "devstack's alt_demo project"}}).json()['project']
    user = _one(sess, base + '/users', 'users', ALT) or sess.post(
        base + '/users', json={'user': {
            'name': ALT, 'domain_id': 'default',
            'password': lab.keystone_password,
            'default_project_id': project['id']}}).json()['user']
    role = _one(sess, base + '/roles', 'roles', 'member')
    sess.put('%s/projects/%s/users/%s/roles/%s'
             % (base, project['id'], user['id'], role['id']))
    return project['id']


def _network(sess, name, cidr, **extra):
    net = sess.post('/v2.0/networks', endpoint_filter=NETWORK, json={
        'network': dict(name=name, **extra)}).json()['network']
    subnet = sess.post('/v2.0/subnets', endpoint_filter=NETWORK, json={
        'subnet': {'network_id': net['id'], 'cidr': cidr,
                   'ip_version': 4, 'name': name + '-subnet'}}).json()
    return net['id'], subnet['subnet']['id']


def make_networks(lab):
    """devstack's initial networks: ``public`` (external, the admin's),
    ``private`` (the demo project's, made by its member) and ``router1``
    joining them, through which a floating IP from ``public`` reaches a
    port on ``private`` (openstacksdk's create_server adds one)."""
    public, _ = _network(tempest_conf.admin_session(lab), *PUBLIC_NETWORK,
                         **{'router:external': True})
    demo = user_session(lab, 'demo', 'demo')
    private, private_subnet = _network(demo, *PRIVATE_NETWORK)
    router = demo.post('/v2.0/routers', endpoint_filter=NETWORK, json={
        'router': {'name': 'router1',
                   'external_gateway_info': {'network_id': public}}}).json()
    router_id = router['router']['id']
    demo.put('/v2.0/routers/%s/add_router_interface' % router_id,
             endpoint_filter=NETWORK, json={'subnet_id': private_subnet})
    return {PUBLIC_NETWORK[0]: public, PRIVATE_NETWORK[0]: private,
            'router1': router_id}


def discover(lab):
    """The flavor and image the suites boot with: the smallest flavor
    with a disk (what openstacksdk's base would pick) and the active
    cirros image."""
    sess = tempest_conf.admin_session(lab)
    compute = {'service_type': 'compute', 'interface': 'public'}
    flavors = sess.get('/flavors/detail', endpoint_filter=compute).json()
    images = sess.get('/v2/images', endpoint_filter={
        'service_type': 'image', 'interface': 'public'}).json()
    flavor = min((f for f in flavors['flavors'] if f['disk']),
                 key=lambda f: (f['ram'], f['vcpus'], f['disk']))
    active = sorted(i['name'] for i in images['images']
                    if i['status'] == 'active')
    cirros = [name for name in active if name.startswith('cirros')]
    return {'flavor_name': flavor['name'],
            'image_name': (cirros or active)[0]}


def _cloud(lab, name, user, project=None, system=False):
    lines = ['  %s:' % name, '    auth:',
             '      auth_url: %s' % lab.keystone,
             '      username: %s' % user,
             '      password: %s' % lab.keystone_password,
             '      user_domain_name: Default']
    if system:
        lines.append('      system_scope: all')
    else:
        lines += ['      project_name: %s' % project,
                  '      project_domain_name: Default']
    lines += ['    region_name: %s' % REGION,
              '    identity_api_version: "3"']
    return lines


def clouds_yaml(lab, functional):
    """The text of the clouds.yaml both suites read; ``functional`` is
    openstacksdk's ``functional`` section (flavor and image names)."""
    lines = ['# Written by tests/ecosystem for the lab %s: the clouds of a'
             % lab.name, '# devstack, for the suites run against it.',
             'clouds:']
    lines += _cloud(lab, 'devstack', 'demo', 'demo')
    # NOTE: devstack's demo project has one network, so openstacksdk's
    # create_server lets Nova choose it. The suites run two workers at
    # once, and the network tests make more networks in that project
    # meanwhile (Nova then answers 409 'Multiple possible networks', as
    # it should): the cloud names the network a server goes on by
    # default and its floating IPs reach, as clouds.yaml lets a cloud
    # with several do.
    lines += ['    networks:', '      - name: %s' % PRIVATE_NETWORK[0],
              '        default_interface: true',
              '        nat_destination: true']
    lines += _cloud(lab, 'devstack-alt', ALT, ALT)
    lines += _cloud(lab, 'devstack-admin', 'admin', 'admin')
    lines += _cloud(lab, 'devstack-system-admin', 'admin', system=True)
    lines.append('functional:')
    lines += ['  %s: %s' % item for item in sorted(functional.items())]
    return '\n'.join(lines) + '\n'
