"""The worked example of doc/chaos.md runs as printed."""

import os
import re

import testtools

DOC = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'doc',
                   'chaos.md')


def _example():
    with open(DOC) as f:
        text = f.read()
    return re.search(r'```python\n(.*?)```', text, re.S).group(1)


class TestChaosDocExample(testtools.TestCase):

    def test_example_passes(self):
        namespace = {}
        exec(compile(_example(), 'doc/chaos.md', 'exec'), namespace)
        result = testtools.TestResult()
        namespace['DeleteDuringBuildTest']('test_no_ghost').run(result)
        self.assertEqual([], [str(e) for _, e in result.errors])
        self.assertEqual([], [str(e) for _, e in result.failures])
        self.assertEqual(1, result.testsRun)
