"""Shared parts of the side-by-side benchmarks (nova_lite against the
reference OpenStack services measured in the same run).

Only ratios measured in one run count on a shared machine, so every row
carries both systems' numbers and the ratio, and every result carries the
load average at its start and end.
"""

import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Where the shared reference tools live by default: next to the checkout
# (``../shared/tools``), where the machine's setup puts them.
SHARED_TOOLS = os.path.normpath(os.path.join(REPO_ROOT, '..', 'shared',
                                             'tools'))


def tools_dir(env_var, default_name):
    """The reference tool directory: ``$env_var`` if set, else
    ``../shared/tools/<default_name>``; None when it does not exist."""
    path = os.environ.get(env_var) or os.path.join(SHARED_TOOLS,
                                                   default_name)
    return path if os.path.isdir(path) else None


def interpreter(python=None):
    """The base interpreter under ``python`` (a virtualenv's, or this
    process's): its path and version. Ratios compare like with like only
    when both sides run on the same one: a pyenv build without
    ``--enable-optimizations`` runs this code ~20% slower than a
    distribution's (doc/operators.md)."""
    try:
        out = subprocess.run(
            [python or sys.executable, '-c',
             'import os, platform, sys; '
             'print(os.path.realpath(getattr(sys, "_base_executable", '
             'sys.executable)), platform.python_version())'],
            capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    if out.returncode != 0:
        return None
    path, version = out.stdout.split()
    return {'executable': path, 'version': version}


def interpreters(reference_python):
    """Both sides' interpreters, and whether they are the same one."""
    ours = interpreter()
    theirs = interpreter(reference_python) if reference_python else None
    return {'nova_lite': ours, 'reference': theirs,
            'same': bool(theirs) and ours == theirs}


def load_average():
    """The 1, 5 and 15 minute load averages (the machine is shared)."""
    return [round(x, 2) for x in os.getloadavg()]


def ratio(reference, nova_lite, higher_is_better=False):
    """How many times better nova_lite is than the reference: reference /
    nova_lite for times, nova_lite / reference for rates; None when either
    number is missing or zero."""
    if not reference or not nova_lite:
        return None
    if higher_is_better:
        return round(nova_lite / reference, 2)
    return round(reference / nova_lite, 2)


def row(measure, reference, nova_lite, unit='', higher_is_better=False):
    return {'measure': measure, 'unit': unit, 'reference': reference,
            'nova_lite': nova_lite,
            'ratio': ratio(reference, nova_lite, higher_is_better)}


def _cell(value, unit):
    if value is None:
        return '-'
    return ('%s %s' % (value, unit)).strip()


def markdown_table(rows, reference_name):
    """The rows as a markdown table: measure, reference, nova_lite, ratio
    (nova_lite's advantage; '-' when a side has no number)."""
    lines = ['| measure | %s | nova_lite | ratio |' % reference_name,
             '|---|---|---|---|']
    for r in rows:
        ratio_text = '-' if r['ratio'] is None else '%.1fx' % r['ratio']
        lines.append('| %s | %s | %s | %s |' % (
            r['measure'], _cell(r['reference'], r['unit']),
            _cell(r['nova_lite'], r['unit']), ratio_text))
    return '\n'.join(lines)


# -- CPU of whole process trees (from /proc; nothing is signalled) ---------

CLK_TCK = os.sysconf('SC_CLK_TCK')


def _children(pid):
    kids = []
    try:
        for task in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/children' % (pid, task)) as f:
                kids += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return kids


def descendants(pid):
    """``pid`` and every process below it, with their depth below it."""
    found, todo = [], [(pid, 0)]
    while todo:
        current, depth = todo.pop()
        found.append((current, depth))
        todo.extend((kid, depth + 1) for kid in _children(current))
    return found


def pids_file_lines(services):
    """Lines ``name pid`` for the reference ``bench.py``, which adds each
    listed process's *direct* children to it: listing the processes at
    even depths of every tree covers each process of the tree exactly once
    (a nova_lite service may fork workers of workers)."""
    lines = []
    for name, pid in sorted(services.items()):
        for proc, depth in descendants(pid):
            if depth % 2 == 0:
                label = name if depth == 0 else '%s.%d' % (name, proc)
                lines.append('%s %d' % (label, proc))
    return lines


def cpu_seconds(pid):
    """utime + stime of ``pid`` and all its descendants, in seconds."""
    ticks = 0
    for proc, _ in descendants(pid):
        try:
            with open('/proc/%d/stat' % proc) as f:
                fields = f.read().rsplit(')', 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return ticks / CLK_TCK
