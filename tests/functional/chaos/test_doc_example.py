"""The worked example of doc/chaos.md runs as printed."""

import testtools

from tests.functional import doc_examples


class TestChaosDocExample(testtools.TestCase):

    def test_example_passes(self):
        doc_examples.assert_example_passes(
            self, 'doc/chaos.md', 'DeleteDuringBuildTest', 'test_no_ghost')
