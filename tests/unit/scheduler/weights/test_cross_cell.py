from nova_lite import objects
from nova_lite.scheduler.weights import cross_cell
from tests.unit.scheduler import fakes


class TestCrossCellWeigher(fakes.WeigherTestCase):
    WEIGHER = cross_cell.CrossCellWeigher

    def _hosts(self):
        return [fakes.fake_host('other', cell_uuid=fakes.CELL2),
                fakes.fake_host('same', cell_uuid=fakes.CELL1)]

    def test_build_weighs_nothing(self):
        weighed = self.weigh(self._hosts())
        self.assertEqual([0.0, 0.0], [w.weight for w in weighed])

    def test_move_prefers_source_cell(self):
        spec = fakes.fake_spec(
            source_cell_uuid=fakes.CELL1,
            requested_destination=objects.RequestSpecDestination(
                allow_cross_cell_move=True))
        weighed = self.weigh(self._hosts(), spec)
        self.assertEqual('same', weighed[0].obj.host)
        self.assertEqual(1000000.0, weighed[0].weight)

    def test_negative_multiplier_prefers_other_cells(self):
        self.flags(group='filter_scheduler',
                   cross_cell_move_weight_multiplier=-1.0)
        spec = fakes.fake_spec(source_cell_uuid=fakes.CELL1)
        self.assertEqual('other', self.best(self._hosts(), spec))
