"""The standard OpenStack clients against a stacked lab, unchanged.

Every command the compute API issue lists, through the real ``openstack``
CLI and the lab's own clouds.yaml, as a project member (``nova-lite``,
``auth_type: none``) and as an admin (``nova-lite-admin``,
keystoneauth's ``admin_token``). One small two-cell lab on SQLite.
"""

from tests.integration import lab as lab_mod

MEMBER, ADMIN = 'nova-lite', 'nova-lite-admin'
# The API speaks Nova's binary names (the process is nova-lite-compute).
COMPUTE_BINARY = 'nova-compute'


class TestClientsAgainstLab(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=2, computes_per_cell=1, nodes_per_compute=2,
                      database='sqlite', name_prefix='nl_cli')

    def os(self, cloud, *args, parse=True):
        return self.lab.openstack(cloud, *args, parse=parse)

    @property
    def compute_hosts(self):
        return [h for hosts in self.lab.computes.values() for h in hosts]

    def test_member_server_lifecycle_and_catalogs(self):
        flavors = {f['Name'] for f in self.os(MEMBER, 'flavor', 'list')}
        self.assertIn('m1.tiny', flavors)
        self.assertEqual(1, self.os(MEMBER, 'flavor', 'show',
                                    'm1.tiny')['vcpus'])
        images = {i['Name'] for i in self.os(MEMBER, 'image', 'list')}
        self.assertIn(lab_mod.IMAGE, images)

        group = self.os(MEMBER, 'server', 'group', 'create', '--policy',
                        'anti-affinity', 'cli-group')
        self.assertEqual('cli-group', group['name'])

        server = self.os(MEMBER, 'server', 'create', '--flavor', 'm1.tiny',
                         '--image', lab_mod.IMAGE, '--nic', 'none',
                         '--hint', 'group=%s' % group['id'], '--wait',
                         'cli-vm')
        self.assertEqual('ACTIVE', server['status'])
        listed = self.os(MEMBER, 'server', 'list')
        self.assertEqual(['cli-vm'], [s['Name'] for s in listed])
        shown = self.os(MEMBER, 'server', 'show', 'cli-vm')
        self.assertEqual(server['id'], shown['id'])
        self.assertEqual(lab_mod.IMAGE, shown['image'].split(' (')[0])
        # An admin sees where it runs.
        admin_view = self.os(ADMIN, 'server', 'show', server['id'])
        self.assertIn(admin_view['OS-EXT-SRV-ATTR:host'],
                      self.compute_hosts)

        self.os(MEMBER, 'server', 'delete', '--wait', 'cli-vm', parse=False)
        self.assertEqual([], self.os(MEMBER, 'server', 'list'))
        self.assertEqual({}, {rp: u for rp, u in
                              self.lab.usages_in_use().items() if u})

    def test_admin_flavors_hypervisors_services_aggregates_zones(self):
        flavor = self.os(ADMIN, 'flavor', 'create', '--ram', '256',
                         '--disk', '1', '--vcpus', '1', 'cli.small')
        self.assertEqual('cli.small', self.os(ADMIN, 'flavor', 'show',
                                               flavor['id'])['name'])

        hypervisors = self.os(ADMIN, 'hypervisor', 'list')
        self.assertEqual(len(self.compute_hosts) * 2, len(hypervisors))
        first = hypervisors[0]
        self.assertEqual(first['Hypervisor Hostname'], self.os(
            ADMIN, 'hypervisor', 'show', first['ID'])['hypervisor_hostname'])

        services = self.os(ADMIN, 'compute', 'service', 'list')
        computes = [s for s in services if s['Binary'] == COMPUTE_BINARY]
        self.assertEqual(sorted(self.compute_hosts),
                         sorted(s['Host'] for s in computes))
        self.assertEqual({'up'}, {s['State'] for s in computes})
        host = computes[0]['Host']
        self.os(ADMIN, 'compute', 'service', 'set', '--disable',
                '--disable-reason', 'cli test', host, COMPUTE_BINARY,
                parse=False)
        status = {s['Host']: s['Status'] for s in self.os(
            ADMIN, 'compute', 'service', 'list', '--service',
            COMPUTE_BINARY)}
        self.assertEqual('disabled', status[host])
        self.os(ADMIN, 'compute', 'service', 'set', '--enable', host,
                COMPUTE_BINARY, parse=False)

        aggregate = self.os(ADMIN, 'aggregate', 'create', 'cli-agg')
        self.os(ADMIN, 'aggregate', 'add', 'host', 'cli-agg', host)
        self.os(ADMIN, 'aggregate', 'set', '--property',
                'availability_zone=cli-az', 'cli-agg', parse=False)
        shown = self.os(ADMIN, 'aggregate', 'show', str(aggregate['id']))
        self.assertEqual([host], shown['hosts'])
        zones = {z['Zone Name'] for z in self.os(
            MEMBER, 'availability', 'zone', 'list', '--compute')}
        self.assertIn('cli-az', zones)
