"""The functional-test example of the README runs as printed."""

import testtools

from tests.functional import doc_examples


class TestReadmeExample(testtools.TestCase):

    def test_example_boots_a_server(self):
        doc_examples.assert_example_passes(self, 'README.md', 'MyFilterTest',
                                           'test_boot')
