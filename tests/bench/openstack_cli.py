"""``openstack hypervisor list`` as a user types it (default table
output), timed from outside: wall seconds, the client's CPU-seconds, the
rows it printed, and its start-up cost apart from its per-row cost.

The target is this command's wall time at 10,000 nodes. Most of it
is the client's own CPU (openstacksdk builds a ``Hypervisor`` resource per
row), so the CPU-seconds are reported with the wall time: they do not
move with the machine's load. The start-up run (``--max-items 1``: the
client's imports, plugins, version discovery and one one-row page)
separates what the client pays once from what it pays per row.

With ``NOVA_LITE_BENCH_PYSPY=1`` and py-spy installed next to the
client, one more run is sampled and its samples are shared out by what
the client was doing (:func:`profile_shares`).
"""

import collections
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ARGS = ('hypervisor', 'list')
# Fewer rows than this and the per-row CPU is left out: the two runs'
# start-up costs differ by tens of ms, more than a few rows cost (a 2-row
# listing once gave a negative cost per row).
PER_ROW_MIN_ROWS = 100
# A sample's share: the first of these with a frame anywhere in its stack
# (a JSON decode, inside a page fetch, inside the table's row loop, is
# "json_decode", not "table_output").
SHARES = (
    ('json_decode', ('JSONDecoder.', 'Response.json')),
    ('http', ('Session.request (keystoneauth1',)),
    ('sdk_resources', ('Resource.existing (openstack',
                       'Resource.__init__ (openstack')),
    ('table_output', ('TableFormatter.emit_list',)),
    ('imports', ('_find_and_load',)),
)


def command():
    """The ``openstack`` next to this interpreter, else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), 'openstack')
    return here if os.path.exists(here) else shutil.which('openstack')


def table_ids(stdout):
    """The first column of each row of a table printed by the client
    (header and rules left out)."""
    rows = [line for line in stdout.splitlines() if line.startswith('| ')]
    return [row.split('|')[1].strip() for row in rows[1:]]


def _timed(argv, env, timeout=600):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    out = subprocess.run(argv, env=env, capture_output=True, text=True,
                         timeout=timeout)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime -
           before.ru_stime)
    return out, round(wall, 2), round(cpu, 2)


def per_row_ms(cpu, startup_cpu, rows):
    """The client's CPU-ms a row past the first, or None when ``rows``
    are too few to tell from the start-up run's noise."""
    if rows < PER_ROW_MIN_ROWS:
        return None
    return round((cpu - startup_cpu) * 1000 / (rows - 1), 3)


def hypervisor_list(auth_args, env, expected_ids, after_listing=None):
    """Run the command, then its one-row start-up run; a result row.

    :param auth_args: the client's options naming the cloud
        (``--os-cloud NAME`` or endpoint and token).
    :param expected_ids: the ids (or their count) the rows should show.
    :param after_listing: called once the command has exited, before the
        start-up run (e.g. to read what the server saw of it).
    """
    openstack = command()
    if openstack is None:
        return {'skipped': 'python-openstackclient not installed'}
    argv = [openstack, *auth_args, *ARGS]
    out, wall, cpu = _timed(argv, env)
    listed = table_ids(out.stdout)
    if after_listing is not None:
        after_listing()
    _, startup_wall, startup_cpu = _timed(argv + ['--max-items', '1'], env)
    if isinstance(expected_ids, int):
        all_listed = len(listed) == expected_ids
    else:
        all_listed = sorted(listed) == sorted(expected_ids)
    row = {'command': 'openstack %s' % ' '.join(ARGS), 'rc': out.returncode,
           'listed': len(listed), 'all_listed': all_listed,
           'seconds': wall, 'client_cpu_s': cpu,
           'startup_seconds': startup_wall,
           'startup_client_cpu_s': startup_cpu,
           'client_cpu_ms_per_row': per_row_ms(cpu, startup_cpu,
                                               len(listed)),
           'stderr_tail': out.stderr[-300:] if out.returncode else ''}
    if os.environ.get('NOVA_LITE_BENCH_PYSPY') == '1':
        row['profile_shares'] = profile_shares(argv, env)
    return row


def profile_shares(argv, env):
    """py-spy samples of one run, shared out by :data:`SHARES` ("other":
    the client's own start-up and command code), in percent."""
    pyspy = os.path.join(os.path.dirname(sys.executable), 'py-spy')
    if not os.path.exists(pyspy):
        return {'skipped': 'py-spy not installed'}
    with tempfile.NamedTemporaryFile(suffix='.raw') as raw:
        subprocess.run([pyspy, 'record', '-r', '200', '-f', 'raw', '-o',
                        raw.name, '--', sys.executable, *argv], env=env,
                       capture_output=True, timeout=600, check=True)
        with open(raw.name) as f:
            return shares(f)


def shares(raw_lines):
    """``{share: percent}`` of py-spy "raw" lines (``a;b;c count``)."""
    counts = collections.Counter()
    for line in raw_lines:
        stack, _, count = line.rstrip().rpartition(' ')
        if stack:
            counts[_share(stack)] += int(count)
    total = sum(counts.values()) or 1
    return {name: round(100.0 * n / total, 1)
            for name, n in counts.most_common()}


def _share(stack):
    for name, markers in SHARES:
        if any(marker in stack for marker in markers):
            return name
    return 'other'
