"""No reference to how the work was organised, anywhere in the tree.

Docs, code, comments and test names describe the project as it is now and
say why; they do not point at the numbered issues, sessions of work or
branches a change came from (those live in git's history, and a reader of
the tree cannot look them up). This check keeps it so: ``tox -e pep8``
runs it over the tree and it names ``file:line`` for every reference it
finds, for instance an issue or session number, a branch name such as a
short prefix with a two-digit number, or a named period of work.

Standard library only (the pep8 environment installs no dependencies).
Run it as::

    python tests/hacking/work_refs.py [PATH ...]

With no path it checks the tree's docs, code, tests and deployment files.
"""

import collections
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

DEFAULT_PATHS = ('README.md', 'setup.py', 'tox.ini', 'requirements.txt',
                 'test-requirements.txt', '.ci', 'devstack', 'doc', 'etc',
                 'nova_lite', 'tests')

SKIP_DIRS = {'.git', '.tox', '__pycache__', '.stestr', '.venv',
             '.hypothesis', 'bench-results'}

# (pattern, what it is). Numbers after these words are work items; the
# names are the branch names the work used (a few letters and a two-digit
# number), which mean nothing to a reader of the tree.
PATTERNS = (
    (re.compile(r'\bissues?\s+#?\d+', re.I), 'an issue number'),
    (re.compile(r'\bsessions?\s+\d+', re.I), 'a work session number'),
    (re.compile(r'(?<![a-z])(?:issue|session)[_-]?\d+', re.I),
     'an issue or session number in a name'),
    (re.compile(r'\bwork[ -]periods?\b', re.I), 'a period of work'),
    (re.compile(r'\bwaves?\s+\d+', re.I), 'a work wave number'),
    (re.compile(r'\bbranch\s+[a-z]+\d+\b', re.I), 'a branch name'),
    (re.compile(r'\b(?:api|boot|cand|db|del|hyp|ldr|mdb|plc|reg|rev|sch'
                r'|sched)\d{2}\b', re.I), 'a branch name'),
    (re.compile(r'\b[cns]\d{2}\b'), 'a branch or session name'),
    (re.compile(r'\bS\d{1,2}\b'), 'a session name'),
)

Finding = collections.namedtuple('Finding', 'path line text what')


def check_text(text, path='<text>'):
    """Every line of ``text`` with a reference: one Finding per line, for
    the first kind found in it."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, what in PATTERNS:
            match = pattern.search(line)
            if match:
                found.append(Finding(path, number, match.group(0), what))
                break
    return found


def _read(path):
    """The file's text, or None for a binary or undecodable file."""
    with open(path, 'rb') as f:
        data = f.read()
    if b'\0' in data:
        return None
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError:
        return None


def _files(path):
    if os.path.isfile(path):
        yield path
        return
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                         and not d.endswith('.egg-info'))
        for name in sorted(names):
            yield os.path.join(root, name)


def check_paths(paths, base=REPO):
    """Findings in every text file under ``paths`` (relative to ``base``),
    in their names too."""
    found = []
    for top in paths:
        full = os.path.join(base, top)
        if not os.path.exists(full):
            continue
        for path in _files(full):
            rel = os.path.relpath(path, base)
            # The file's name itself (reported as line 0).
            found.extend(f._replace(line=0) for f in check_text(rel, rel))
            text = _read(path)
            if text is not None:
                found.extend(check_text(text, rel))
    return found


def main(argv):
    found = check_paths(argv or DEFAULT_PATHS)
    for f in found:
        print('%s:%d: %s (%r): say what is true and why instead'
              % (f.path, f.line, f.what, f.text))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
