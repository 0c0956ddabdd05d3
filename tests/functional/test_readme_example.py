"""The functional-test example of the README runs as printed."""

import os
import re

import testtools

README = os.path.join(os.path.dirname(__file__), '..', '..', 'README.md')


def _readme_example():
    with open(README) as f:
        text = f.read()
    return re.search(r'```python\n(.*?)```', text, re.S).group(1)


class TestReadmeExample(testtools.TestCase):

    def test_example_boots_a_server(self):
        namespace = {}
        exec(compile(_readme_example(), 'README.md', 'exec'), namespace)
        result = testtools.TestResult()
        namespace['MyFilterTest']('test_boot').run(result)
        self.assertEqual([], [str(e) for _, e in result.errors])
        self.assertEqual([], [str(e) for _, e in result.failures])
        self.assertEqual(1, result.testsRun)
