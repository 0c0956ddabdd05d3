"""Filters and weighers whose answer is the request's, not the host's,
decide once per request: a build with no zone, no server group and no
cross-cell move costs them nothing per host (a request has up to
~1,000 candidate hosts)."""

from unittest import mock

from nova_lite.scheduler.filters import affinity_filter
from nova_lite.scheduler.filters import availability_zone_filter
from nova_lite.scheduler.weights import affinity
from nova_lite.scheduler.weights import cross_cell
from tests.unit.scheduler import fakes


class RequestLevelPluginsTestCase(fakes.TestCase):

    def setUp(self):
        super().setUp()
        self.hosts = [fakes.fake_host('h%d' % i, cell_uuid=cell)
                      for i, cell in enumerate((fakes.CELL1, fakes.CELL2))]
        self.spec = fakes.fake_spec()

    def test_filters_do_not_look_at_hosts(self):
        for cls in (availability_zone_filter.AvailabilityZoneFilter,
                    affinity_filter.ServerGroupAffinityFilter,
                    affinity_filter.ServerGroupAntiAffinityFilter):
            with mock.patch.object(cls, 'host_passes') as per_host:
                self.assertEqual(self.hosts,
                                 cls().filter_all(self.hosts, self.spec))
            per_host.assert_not_called()

    def test_zone_asked_is_checked_per_host(self):
        self.spec.availability_zone = 'az9'
        self.assertEqual([], availability_zone_filter.AvailabilityZoneFilter(
        ).filter_all(self.hosts, self.spec))

    def test_weighers_do_not_look_at_hosts(self):
        for cls in (affinity.ServerGroupSoftAffinityWeigher,
                    affinity.ServerGroupSoftAntiAffinityWeigher,
                    cross_cell.CrossCellWeigher):
            with mock.patch.object(cls, '_weigh_object') as per_host:
                self.assertEqual([0, 0],
                                 cls().weigh_objects(self.hosts, self.spec))
            per_host.assert_not_called()

    def test_cross_cell_move_weighs_the_source_cell_first(self):
        self.spec.source_cell_uuid = fakes.CELL2
        self.assertEqual([-1, 1], cross_cell.CrossCellWeigher().weigh_objects(
            self.hosts, self.spec))
