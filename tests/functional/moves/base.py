"""Shared base of the move-operation scenarios (NOVA_FACTS §5, §8.3).

Every scenario checks the allocation matrix of §5.7 at each step: what the
instance consumer and the migration consumer hold on which node. The
helpers here read placement and the cell database the way a user (or an
operator with placement access) would.
"""

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite import objects
from tests.functional import test_servers

FLAVOR_1 = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
ZERO = {'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0}


class MovesTestBase(test_servers.ServersTestBase):
    """A cloud with computes host1..hostN in cell1 (COMPUTES)."""

    def node_of(self, host):
        """The single node name of a fake compute ``host``."""
        server_hosts = {}
        for rp in self.cloud.placement.client.list_providers():
            server_hosts.setdefault(rp['name'], rp['uuid'])
        nodes = [name for name in server_hosts if name.startswith(host)]
        return sorted(nodes)[0]

    def allocation_by_node(self, consumer_uuid):
        """{node name: {rc: amount}} that ``consumer_uuid`` holds."""
        names = {rp['uuid']: rp['name']
                 for rp in self.cloud.placement.client.list_providers()}
        return {names[rp]: dict(entry['resources'])
                for rp, entry in self.cloud.allocations(
                    consumer_uuid).items()}

    def migrations(self, instance_uuid, cell='cell1'):
        """The instance's migrations, newest first."""
        context = nl_context.get_admin_context()
        with cells.target_cell(context,
                               self.cloud.dbs.cells[cell]) as cctxt:
            return objects.MigrationList.get_by_filters(
                cctxt, {'instance_uuid': instance_uuid}).objects

    def assert_usage(self, node, expected):
        """The usage of ``node`` equals ``expected`` for VCPU/RAM/disk."""
        self.assertEqual(expected, self.usage(node),
                         'usage of %s' % node)

    def post_action(self, server_id, body, api=None, status=202):
        response = (api or self.admin_api).post(
            '/servers/%s/action' % server_id, body)
        self.assertEqual(status, response.status, response)
        self.cloud.wait_for_builds()
        return response
