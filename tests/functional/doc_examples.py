"""Run the Python example a markdown page prints, as printed."""

import os
import re

import testtools

REPO = os.path.join(os.path.dirname(__file__), '..', '..')


def python_example(page):
    """The first ```python block of ``page`` (a path from the repo)."""
    with open(os.path.join(REPO, page)) as f:
        return re.search(r'```python\n(.*?)```', f.read(), re.S).group(1)


def assert_example_passes(case, page, class_name, test_name):
    """Run ``class_name.test_name`` of ``page``'s example; ``case`` fails
    on its errors and failures."""
    namespace = {}
    exec(compile(python_example(page), page, 'exec'), namespace)
    result = testtools.TestResult()
    namespace[class_name](test_name).run(result)
    case.assertEqual([], [str(e) for _, e in result.errors])
    case.assertEqual([], [str(e) for _, e in result.failures])
    case.assertEqual(1, result.testsRun)
