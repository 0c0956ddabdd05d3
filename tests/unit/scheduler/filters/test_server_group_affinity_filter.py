from nova_lite.scheduler.filters import affinity_filter
from tests.unit.scheduler import fakes


class TestServerGroupAffinityFilter(fakes.FilterTestCase):
    FILTER = affinity_filter.ServerGroupAffinityFilter

    def test_no_group_passes(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec())

    def test_first_member_goes_anywhere(self):
        spec = fakes.fake_spec(instance_group=fakes.group('affinity'))
        self.assertPasses(fakes.fake_host('host2'), spec)

    def test_later_members_follow_the_group(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'affinity', members=['i1'], hosts=['host1']))
        self.assertPasses(fakes.fake_host('host1'), spec)
        self.assertFails(fakes.fake_host('host2'), spec)

    def test_other_policy_is_ignored(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1'], hosts=['host1']))
        self.assertPasses(fakes.fake_host('host2'), spec)
