"""How a killed process's command line is read back to start it again."""

import testtools

from nova_lite.scenario import processes


class TestCommandLine(testtools.TestCase):

    def test_plain_and_renamed_command_lines(self):
        self.assertEqual(['/v/bin/nova-lite-compute', '--config-file', 'a'],
                         processes.command_line(
                             b'/v/bin/nova-lite-compute\0--config-file\0a\0'))
        self.assertEqual(
            ['/v/bin/nova-lite-compute', '--config-file', 'a'],
            processes.command_line(
                b'nova-lite-compute: master process '
                b'[/v/bin/nova-lite-compute --config-file a]\0'))
