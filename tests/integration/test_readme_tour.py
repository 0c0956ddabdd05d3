"""The README's tour, typed as printed, on a new default lab.

The command blocks of the README's section "Booting a server in the lab"
run in order in one bash (variables carry over; ``set -e -o pipefail``:
the first command that fails fails the test). The lab is the one
``devstack/stack.sh`` stacks with no settings (its ports, vhost and
database prefix aside), and the tour runs with HOME a new directory whose
``.nova-lite/lab`` is the lab's state directory, with this virtualenv as
its ``venv``, so that the README's paths hold as printed. The README's
functional-test example is tests/functional/test_readme_example.py's.
"""

import filecmp
import os
import re
import subprocess
import sys

import fixtures
import testtools

from tests.integration import lab as lab_mod
from tests.integration import test_services as base

README = os.path.join(base.REPO_ROOT, 'README.md')
SECTION = 'Booting a server in the lab'
TOUR_TIMEOUT = 900


def readme_section(text, title):
    """The body of the ``## title`` section of markdown ``text``."""
    match = re.search(r'^## %s\n(.*?)(?=^#{1,2} |\Z)' % re.escape(title),
                      text, re.M | re.S)
    if match is None:
        raise LookupError('README.md has no section "## %s"' % title)
    return match.group(1)


def code_blocks(text):
    """The code blocks of markdown ``text`` (indented by four spaces, or
    fenced), each as one string."""
    blocks, current, fenced = [], [], False
    for line in text.splitlines() + ['']:
        if line.startswith('```'):
            if fenced:
                blocks.append(current)
            current, fenced = [], not fenced
        elif fenced:
            current.append(line)
        elif line.startswith('    '):
            current.append(line[4:])
        elif line.strip():
            if current:
                blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return ['\n'.join(block).strip('\n') for block in blocks]


def tour_blocks():
    with open(README) as f:
        return code_blocks(readme_section(f.read(), SECTION))


class TestTourText(testtools.TestCase):
    """What the lab test below reads of the README (no lab needed)."""

    def test_the_tour_is_found_in_blocks_of_commands(self):
        script = '\n'.join(tour_blocks())
        for command in ('server create', 'server resize',
                        'server migrate --live-migration',
                        'server image create', 'image create --file'):
            self.assertIn('openstack --os-cloud ', script)
            self.assertIn(command, script)

    def test_code_blocks_indented_and_fenced(self):
        text = ('Run:\n\n    a one\n    b two\n\nthen\n\n'
                '```sh\nc three\n```\n\n    d four\n')
        self.assertEqual(['a one\nb two', 'c three', 'd four'],
                         code_blocks(text))


class TestReadmeTour(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=None, computes_per_cell=None,
                      nodes_per_compute=None, database=None,
                      name_prefix='nl_tour')

    @classmethod
    def prepare_lab(cls, lab):
        # The lab runs from this virtualenv (NOVA_LITE_VENV): it stands
        # where stack.sh would have made one.
        os.symlink(sys.prefix, os.path.join(lab.state, 'venv'))

    def run_tour(self, workdir):
        home = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(home, '.nova-lite'))
        os.symlink(self.lab.state, os.path.join(home, '.nova-lite', 'lab'))
        # What a reader's shell has: no OS_* of the test's, the README
        # exports its own.
        env = {key: value for key, value in self.lab.env.items()
               if not key.startswith('OS_')}
        env['HOME'] = home
        script = 'set -e -o pipefail -x\n%s\n' % '\n'.join(tour_blocks())
        result = subprocess.run(['bash', '-c', script], cwd=workdir,
                                env=env, capture_output=True, text=True,
                                timeout=TOUR_TIMEOUT)
        self.addDetail('tour-output', testtools.content.text_content(
            result.stdout[-20000:] + '\n--- stderr\n'
            + result.stderr[-20000:]))
        if result.returncode != 0:
            traced = [line for line in result.stderr.splitlines()
                      if line.startswith('+')]
            self.fail('the README tour failed (exit %d) at: %s\n%s'
                      % (result.returncode,
                         traced[-1] if traced else '(before any command)',
                         result.stderr[-3000:]))

    def test_tour_runs_as_printed(self):
        lab = self.lab
        self.assertEqual(['cell1'], lab.cells)
        self.assertEqual(2, len(lab.computes['cell1']))
        workdir = self.useFixture(fixtures.TempDir()).path
        self.run_tour(workdir)

        # What the commands did, beyond their exit codes: the live
        # migration went to the other compute (a failed one also ends
        # with an ACTIVE server), the downloaded image is the upload,
        # and the clean-up left no server, image or allocation.
        status, body = lab.compute('GET', '/os-migrations')
        self.assertEqual(200, status, body)
        done = {(m['migration_type'], m['status'])
                for m in body['migrations']}
        self.assertIn(('resize', 'confirmed'), done)
        self.assertIn(('live-migration', 'completed'), done)
        live = [m for m in body['migrations']
                if m['migration_type'] == 'live-migration']
        self.assertNotEqual(live[0]['source_compute'],
                            live[0]['dest_compute'])
        self.assertTrue(filecmp.cmp(os.path.join(workdir, 'disk.raw'),
                                    os.path.join(workdir, 'copy.raw'),
                                    shallow=False))
        self.assertEqual([], lab.servers())
        self.assertEqual({}, lab.usages_in_use())
        status, body = lab.request(
            'GET', lab.api + '/image/v2/images',
            headers={'X-Auth-Token': lab_mod.MEMBER_PROJECT})
        self.assertEqual(200, status, body)
        self.assertEqual([lab_mod.IMAGE],
                         [image['name'] for image in body['images']])
