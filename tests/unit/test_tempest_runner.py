"""The Tempest runner's reading of a subunit stream (tests/tempest)."""

import io
import os
import tempfile

import subunit
import testtools

from tests.tempest import __main__ as runner


def _stream(*tests):
    """A subunit v2 stream of ``(id, status, traceback or None)``."""
    out = io.BytesIO()
    writer = subunit.StreamResultToBytes(out)
    for test_id, status, traceback in tests:
        writer.status(test_id=test_id, test_status='inprogress')
        if traceback is not None:
            writer.status(test_id=test_id, file_name='traceback',
                          file_bytes=traceback.encode(),
                          mime_type='text/plain; charset=utf8')
        writer.status(test_id=test_id, test_status=status)
    return out.getvalue()


class _Lab:
    def __init__(self, state):
        self.state = state


class TestOutcomes(testtools.TestCase):

    def test_statuses_and_tracebacks(self):
        tracebacks = {}
        found = runner.outcomes(_stream(
            ('a.ok', 'success', None), ('a.skip', 'skip', None),
            ('a.bad', 'fail', 'Traceback\nAssertionError: 1 != 2')),
            tracebacks)
        self.assertEqual({'a.ok': 'passed', 'a.skip': 'skipped',
                          'a.bad': 'failed'}, found)
        self.assertEqual({'a.bad': 'Traceback\nAssertionError: 1 != 2'},
                         tracebacks)

    def test_details_name_the_failure_and_the_lab_errors(self):
        state = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__('shutil').rmtree(state))
        os.makedirs(os.path.join(state, 'logs'))
        with open(os.path.join(state, 'logs', 'conductor.log'), 'w') as f:
            f.write('2026 1 INFO x: fine\n2026 1 ERROR x: NoValidHost\n')
        lines = runner.failure_details(
            ['a.bad'], {'a.bad': 'Traceback\nAssertionError: boom'},
            _Lab(state))
        text = '\n'.join(lines)
        self.assertIn('a.bad', text)
        self.assertIn('AssertionError: boom', text)
        self.assertIn('conductor.log: 2026 1 ERROR x: NoValidHost', text)
        self.assertNotIn('fine', text)
        self.assertEqual([], runner.failure_details([], {}, _Lab(state)))
