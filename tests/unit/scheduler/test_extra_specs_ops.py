from nova_lite.scheduler.filters import extra_specs_ops as ops
from tests.unit.scheduler import fakes


class TestMatch(fakes.TestCase):

    def test_operators(self):
        cases = [
            ('abc', 'abc', True), ('abc', 'abd', False),
            ('4', '= 2', True), ('1', '= 2', False),
            ('2', '== 2', True), ('3', '!= 3', False),
            ('5', '>= 5', True), ('6', '<= 5', False),
            ('abc', 's== abc', True), ('abc', 's!= abc', False),
            ('abc', 's< abd', True), ('abc', 's> abd', False),
            ('abc', 's<= abc', True), ('abd', 's>= abc', True),
            ('hello world', '<in> lo wo', True), ('abc', '<in> x', False),
            (['a', 'b', 'c'], '<all-in> a c', True),
            ('a b', '<all-in> a c', False),
            ('x', '<or> x <or> y', True), ('z', '<or> x <or> y', False),
            ('abc', '= notanumber', False), (None, 'x', False),
        ]
        for value, requirement, expected in cases:
            self.assertEqual(expected, ops.match(value, requirement),
                             (value, requirement))
