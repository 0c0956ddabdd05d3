"""``tempest.conf`` for a running lab, from what the lab itself reports.

Nothing here names a port, an image or a flavor: the identity URL and the
passwords come from the :class:`tests.integration.lab.Lab`, the rest from
the lab's APIs (:func:`discover`). What nova_lite cannot offer is switched
off, each switch with its reason; no test is excluded by name.
"""

import configparser
import io
import os

from keystoneauth1.identity import v3
from keystoneauth1 import session as ksa_session

from nova_lite.conf import filter_scheduler


def admin_session(lab):
    auth = v3.Password(
        auth_url=lab.keystone, username='admin',
        password=lab.keystone_password, project_name='admin',
        user_domain_name='Default', project_domain_name='Default')
    return ksa_session.Session(auth=auth)


def discover(lab):
    """What tempest.conf needs to know about the lab, asked of its APIs."""
    sess = admin_session(lab)
    compute = {'service_type': 'compute', 'interface': 'public'}
    # The catalog's compute endpoint is the v2.1 root: its version document.
    current = sess.get('/', endpoint_filter=compute).json()['version']
    flavors = sess.get('/flavors/detail', endpoint_filter=compute).json()
    images = sess.get('/v2/images', endpoint_filter={
        'service_type': 'image', 'interface': 'public'}).json()
    hypervisors = sess.get('/os-hypervisors', endpoint_filter=compute).json()
    services = sess.get('/os-services', endpoint_filter=compute).json()
    by_size = sorted(flavors['flavors'],
                     key=lambda f: (f['ram'], f['vcpus'], f['disk']))
    active = sorted((i for i in images['images'] if i['status'] == 'active'),
                    key=lambda i: i['name'])
    computes = {s['host'] for s in services['services']
                if s['binary'] in ('nova-compute', 'nova-lite-compute')}
    return {
        'max_microversion': current['version'],
        'min_microversion': current['min_version'],
        'flavor_ref': by_size[0]['id'],
        'flavor_ref_alt': by_size[1]['id'],
        'image_ref': active[0]['id'],
        'image_ref_alt': active[-1]['id'],
        'compute_hosts': len(computes),
        'hypervisors': len(hypervisors['hypervisors']),
    }


def enabled_filters(lab):
    """The scheduler filters the lab runs (its api-level.conf), so Tempest
    skips the tests of filters it does not."""
    conf = configparser.ConfigParser(interpolation=None, strict=False)
    conf.read(os.path.join(lab.state, 'etc', 'api-level.conf'))
    value = conf.get('filter_scheduler', 'enabled_filters', fallback=None)
    if value is None:
        value = ','.join(next(
            opt.default for opt in filter_scheduler.filter_scheduler_opts
            if opt.name == 'enabled_filters'))
    return ','.join(name.strip() for name in value.split(','))


# --neutron: what the lab's network service gets before Tempest runs, as a
# devstack cloud has them: a shared network every test project's servers
# go on (Tempest's [compute] fixed_network_name), an external network
# floating IPs come from ([network] public_network_id) and a router
# joining the two, without which no floating IP reaches a server.
SHARED_NETWORK = ('nl-shared', '192.168.0.0/16')
PUBLIC_NETWORK = ('public', '172.24.4.0/24')
ROUTER = 'nl-router'


def make_networks(lab):
    """Create the --neutron networks through the lab's network API (as
    its admin); returns what tempest.conf needs to know of them."""
    sess = admin_session(lab)
    network = {'service_type': 'network', 'interface': 'public'}

    def post(key, body):
        return sess.post('/v2.0/%ss' % key, endpoint_filter=network,
                         json={key: body}).json()[key]

    made, subnets = {}, {}
    for (name, cidr), extra in ((SHARED_NETWORK, {'shared': True}),
                                (PUBLIC_NETWORK, {'router:external': True})):
        made[name] = post('network', dict(name=name, **extra))['id']
        subnets[name] = post('subnet', {
            'network_id': made[name], 'cidr': cidr, 'ip_version': 4,
            'name': name + '-subnet'})['id']
    router = post('router', {'name': ROUTER, 'external_gateway_info': {
        'network_id': made[PUBLIC_NETWORK[0]]}})
    sess.put('/v2.0/routers/%s/add_router_interface' % router['id'],
             endpoint_filter=network,
             json={'subnet_id': subnets[SHARED_NETWORK[0]]})
    extensions = sess.get('/v2.0/extensions', endpoint_filter=network)
    return {'fixed_network_name': SHARED_NETWORK[0],
            'public_network_id': made[PUBLIC_NETWORK[0]],
            'floating_network_name': PUBLIC_NETWORK[0],
            'api_extensions': ','.join(sorted(
                e['alias'] for e in extensions.json()['extensions']))}


def build(lab, facts, log_dir, neutron=None):
    """The text of tempest.conf. ``neutron`` (what :func:`make_networks`
    returned) marks networking available (so Tempest runs the
    tests it skips without a network service), names the lab's
    networks and lets test classes have isolated networks."""
    conf = configparser.ConfigParser(interpolation=None)
    conf.optionxform = str
    sections = {
        'DEFAULT': {'log_dir': log_dir, 'log_file': 'tempest.log',
                    'debug': 'True'},
        'auth': {
            # Tempest makes a project and users per test class.
            'use_dynamic_credentials': 'True',
            'admin_username': 'admin',
            'admin_password': lab.keystone_password,
            'admin_project_name': 'admin',
            'admin_domain_name': 'Default',
            # With networking, a test class that asks for its own
            # network, subnet and router gets them (the router's gateway
            # on the public network); the others share one network.
            'create_isolated_networks': 'True' if neutron else 'False',
        },
        'identity': {
            'uri_v3': lab.keystone, 'auth_version': 'v3',
            'region': 'RegionOne', 'v3_endpoint_type': 'public',
        },
        'identity-feature-enabled': {'api_v2': 'False'},
        'compute': {
            'image_ref': facts['image_ref'],
            'image_ref_alt': facts['image_ref_alt'],
            'flavor_ref': facts['flavor_ref'],
            'flavor_ref_alt': facts['flavor_ref_alt'],
            'min_compute_nodes': str(facts['compute_hosts']),
            'min_microversion': facts['min_microversion'],
            'max_microversion': facts['max_microversion'],
            'region': 'RegionOne',
            'build_timeout': '120', 'build_interval': '1',
        },
        'compute-feature-enabled': {
            # Fake guests have no console of any kind.
            'console_output': 'False', 'vnc_console': 'False',
            'spice_console': 'False', 'serial_console': 'False',
            # No guest agent: nothing could set a password inside a guest.
            'change_password': 'False',
            # Rescue and unrescue, and the stable device rescue of an
            # image with hw_rescue_device/hw_rescue_bus, as Nova's fake
            # driver does them (the guest's disks stay where they are).
            'rescue': 'True', 'stable_rescue': 'True',
            # No volume service (cinder), so nothing to attach.
            'attach_encrypted_volume': 'False',
            'volume_multiattach': 'False', 'volume_backed_live_migration':
                'False', 'block_migrate_cinder_iscsi': 'False',
            # os-interface attach and detach after boot (Tempest runs
            # its tests only with validation, off below).
            'interface_attach': 'True',
            # No metadata service (no guest reads it). A config drive is
            # asked for and shown as in Nova; the tests reading one need
            # ssh (validation, off below).
            'metadata_service': 'False', 'config_drive': 'True',
            # Injected files (personality, below 2.57) reach no fake guest.
            'personality': 'False',
            'resize': 'True', 'cold_migration': 'True',
            'live_migration': 'True', 'block_migration_for_live_migration':
                'True',
            'pause': 'True', 'suspend': 'True', 'shelve': 'True',
            'shelve_migrate': 'True', 'snapshot': 'True',
            'swap_volume': 'False', 'hostname_fqdn_sanitization': 'True',
            'scheduler_enabled_filters': enabled_filters(lab),
            # OS-DCF:diskConfig is kept and shown as Nova's fake driver
            # does (create, update, rebuild, resize).
            'disk_config': 'True',
        },
        'service_available': {
            'nova': 'True', 'glance': 'True', 'placement': 'True',
            'neutron': 'True' if neutron else 'False',
            # Not part of nova_lite.
            'cinder': 'False', 'swift': 'False', 'horizon': 'False',
            'ironic': 'False',
        },
        'image-feature-enabled': {'api_v1': 'False', 'api_v2': 'True'},
        # The image service has Glance's cache API over a cache of its
        # own ([image_catalog] cache_path).
        'image': {'image_caching_enabled': 'True'},
        # Guests are fake: nothing to ssh into.
        'validation': {'run_validation': 'False'},
        # The network service has IPv6 subnets (SLAAC and DHCPv6 modes).
        'network-feature-enabled': {'ipv6': 'True'},
    }
    if neutron:
        # Servers go on the shared network, floating IPs come from the
        # external one through the router; Tempest asks only for the
        # extensions the lab's network service lists (a test project
        # without an isolated network uses the shared one, see above).
        sections['compute']['fixed_network_name'] = \
            neutron['fixed_network_name']
        sections['network'] = {
            'public_network_id': neutron['public_network_id'],
            'floating_network_name': neutron['floating_network_name'],
            'project_network_cidr': '10.100.0.0/16'}
        sections['network-feature-enabled']['api_extensions'] = \
            neutron['api_extensions']
    for name, options in sections.items():
        if name != 'DEFAULT':
            conf.add_section(name)
        for key, value in options.items():
            conf.set(name, key, value)
    out = io.StringIO()
    out.write('# Written by tests/tempest from the running lab %s; every\n'
              '# switched-off feature and its reason: doc/tempest.md.\n'
              % lab.name)
    conf.write(out)
    return out.getvalue()
