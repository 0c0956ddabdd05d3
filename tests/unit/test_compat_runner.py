"""The compat runner's own logic (tests/compat): grouping, wipe order,
failure reasons. The runs themselves need a live server: tox -e compat."""

import os

import fixtures
import testtools

from tests.compat import client
from tests.compat import gabbi_fixtures
from tests.compat import osc_placement
from tests.compat import placement_gabbits


class TestGroups(testtools.TestCase):

    def test_group_of(self):
        cases = {
            'inventory': 'core', 'non-cors': 'core', 'microversion': 'core',
            'granular': 'candidates', 'reshaper': 'candidates',
            'shared-resources': 'candidates',
            'allocation-candidates-member-of': 'candidates',
            'traits-legacy-rbac': 'rbac-legacy',
            'allocation-candidates-legacy-rbac': 'rbac-legacy',
            'usage-secure-rbac': 'rbac-secure',
            'allocation-candidates-policy': 'open-policy', 'cors': 'cors',
        }
        self.assertEqual(cases, {name: placement_gabbits.group_of(name)
                                 for name in cases})

    def test_select_files(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        for name in ('cors', 'granular', 'inventory', 'traits-policy'):
            open(os.path.join(tmp, name + '.yaml'), 'w').close()
        self.assertEqual(['granular', 'inventory'],
                         placement_gabbits.select_files(
                             tmp, ['core', 'candidates']))
        self.assertEqual(['cors'], placement_gabbits.select_files(
            tmp, ['core'], ['cors']))
        self.assertRaises(SystemExit, placement_gabbits.select_files,
                          tmp, ['core'], ['nope'])


class TestWipeOrder(testtools.TestCase):

    def test_leaves_before_parents(self):
        parents = {'root': None, 'child': 'root', 'leaf': 'child',
                   'other': None}
        order = sorted(parents, key=lambda u: -client._depth(u, parents))
        self.assertLess(order.index('leaf'), order.index('child'))
        self.assertLess(order.index('child'), order.index('root'))


class TestFixtureNames(testtools.TestCase):

    def test_bound_fixtures_share_the_client(self):
        marker = object()
        module = gabbi_fixtures.bind(marker)
        for cls in gabbi_fixtures.FIXTURES:
            bound = getattr(module, cls.__name__)
            self.assertTrue(issubclass(bound, cls))
            self.assertIs(marker, bound.client)


class TestReasons(testtools.TestCase):

    def test_gabbi_status(self):
        text = ("Traceback (most recent call last):\n  File \"x\"\n"
                "AssertionError: '404' not found in ['400'], response:\n")
        self.assertEqual("status 404, expected '400'",
                         placement_gabbits._reason(text))

    def test_gabbi_missing_string(self):
        text = "AssertionError: 'No such thing' not found in {\n \"e\": 1\n"
        self.assertEqual("response lacks 'No such thing'",
                         placement_gabbits._reason(text))

    def test_osc_command_dropped(self):
        text = ('testtools.matchers._impl.MismatchError: \'x\' not in '
                '\'Command: "--os-endpoint http://h --os-token admin '
                '--os-auth-type admin_token resource class delete VCPU"'
                '\\noutput: nope\'')
        self.assertEqual(
            "testtools.matchers._impl.MismatchError: 'x' not in "
            "'`resource class delete VCPU` output: nope'",
            osc_placement._reason(text))
