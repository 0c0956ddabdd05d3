"""The tree names no issue, session or branch, and the check catches each.

The checker is loaded from its file, as test_import_rules does, so this
module runs in the pep8 environment (``python -m unittest``, nothing
installed) and under stestr alike. The offending samples are built from
pieces so that this file does not offend itself.
"""

import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_checker():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_work_refs', os.path.join(HERE, 'work_refs.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


work_refs = _load_checker()


def _w(*words):
    """Words joined by spaces: a sample that is not one in this file."""
    return ' '.join(words)


def _found(text):
    return [f.text for f in work_refs.check_text(text)]


class TestTreeHasNoReference(unittest.TestCase):
    def test_tree_is_clean(self):
        found = work_refs.check_paths(work_refs.DEFAULT_PATHS)
        self.assertEqual([], ['%s:%d %r' % (f.path, f.line, f.text)
                              for f in found])


class TestEachKindIsCaught(unittest.TestCase):
    def test_issue_numbers(self):
        for text in (_w('see', 'issue', '14'), _w('(Issue', '#3)'),
                     _w('the', 'issues', '5 and 6')):
            self.assertEqual(1, len(_found(text)), text)

    def test_session_numbers(self):
        sample = _w('measured in', 'session', "9's run")
        self.assertEqual(1, len(_found(sample)))
        self.assertEqual(1, len(_found(_w('sessions', '13 and 14'))))
        self.assertEqual(1, len(_found('the S' + '14 machine')))
        self.assertEqual(1, len(_found('run s' + '13')))

    def test_numbers_in_names(self):
        for text in ('def test_iss' + 'ue16_ghost(self):',
                     'class Session' + '9Regression:', 'issue-' + '14.md'):
            self.assertEqual(1, len(_found(text)), text)

    def test_periods_of_work(self):
        self.assertEqual(1, len(_found(_w('in this', 'work', 'period'))))
        self.assertEqual(1, len(_found(_w('renamed during', 'wave', '2'))))

    def test_branch_names(self):
        for text in (_w('on', 'branch', 'boot' + '19'), 'plc' + '19 merged',
                     'after ' + 'cand' + '22', 'c' + '15 final',
                     'between ' + 'n' + '15 and main'):
            self.assertEqual(1, len(_found(text)), text)

    def test_line_numbers_and_file_names(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, 'notes.md'), 'w') as f:
                f.write('clean\nalso clean\n' + _w('fixed in', 'issue', '7\n'))
            with open(os.path.join(tmp, 'plc' + '21.txt'), 'w') as f:
                f.write('clean\n')
            with open(os.path.join(tmp, 'image.png'), 'wb') as f:
                f.write(b'\x89PNG\0 ' + _w('issue', '9').encode())
            found = work_refs.check_paths(['.'], base=tmp)
        self.assertEqual(
            [('notes.md', 3), ('plc' + '21.txt', 0)],
            sorted((f.path, f.line) for f in found))

    def test_main_fails_naming_file_and_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'a.py')
            with open(path, 'w') as f:
                f.write(_w('#', 'session', '6 measured\n'))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(1, work_refs.main([path]))
                self.assertEqual(
                    0, work_refs.main([os.path.join(tmp, 'none')]))
        self.assertIn('a.py:1: a work session number', out.getvalue())


class TestWhatIsNotAReference(unittest.TestCase):
    def test_ordinary_text(self):
        for text in ('p50 / p99 latency', 'aarch64 and base64', 'py3',
                     "unannounced={'s1': 'ERROR'}", 'IPv6 and utf8',
                     'one database session per request',
                     'the branch of the tree', 'sha1 of the body',
                     'def v21(req):', 'a12-rp1', 'x86_64'):
            self.assertEqual([], _found(text), text)


if __name__ == '__main__':
    unittest.main()
