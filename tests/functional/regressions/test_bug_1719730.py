"""Bug 1719730: rescheduling a member of a server group.

A build of a server-group member fails on the first host and is
rescheduled to an alternate; the server must end ACTIVE there and stay a
member of its group (NOVA_FACTS §8.3 scenario 10).
"""

from nova_lite import context as nl_context
from nova_lite.db.api import group_api
from tests.functional import test_servers


class TestRescheduleWithServerGroup(test_servers.ServersTestBase):

    def test_reschedule_with_server_group(self):
        """10: a member of an affinity group rescheduled within the group
        ends ACTIVE and stays a member."""
        context = nl_context.RequestContext(user_id='demo',
                                            project_id='demo-project')
        group = group_api.instance_group_create(
            context, {'name': 'g1', 'user_id': 'demo',
                      'project_id': 'demo-project'}, policy='affinity')
        failed = self.fail_first_spawn()
        server = self.boot('ACTIVE', scheduler_hints={'group': group.uuid})
        self.assertNotEqual(failed[0],
                            server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual([server['id']], group_api.instance_group_get(
            context, group.uuid).members)
