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

    def test_details_bring_the_warnings_about_the_failed_tests_servers(self):
        state = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__('shutil').rmtree(state))
        os.makedirs(os.path.join(state, 'logs'))
        server = '12abcf43-17ca-4a5a-a69e-b2cffe9f1f18'
        other = '00000000-17ca-4a5a-a69e-b2cffe9f1f18'
        with open(os.path.join(state, 'logs', 'conductor.log'), 'w') as f:
            f.write('2026 1 INFO x: Unshelving instance %s\n'
                    '2026 1 WARNING x: Unshelve of instance %s failed\n'
                    '2026 1 WARNING x: Unshelve of instance %s failed\n'
                    % (server, server, other))
        lines = runner.failure_details(
            ['a.bad'], {'a.bad': 'TimeoutException: Server %s failed to '
                        'reach ACTIVE' % server}, _Lab(state))
        text = '\n'.join(lines)
        self.assertIn('WARNING x: Unshelve of instance %s failed' % server,
                      text)
        self.assertNotIn(other, text)
        self.assertNotIn('INFO', text)


class TestTempestConf(testtools.TestCase):
    """What tempest.conf turns on: every feature Nova's fake driver has,
    networking by default."""

    FACTS = {'image_ref': 'i1', 'image_ref_alt': 'i2', 'flavor_ref': '1',
             'flavor_ref_alt': '2', 'compute_hosts': 2,
             'min_microversion': '2.1', 'max_microversion': '2.100'}
    NETWORKS = {'fixed_network_name': 'nl-shared', 'public_network_id': 'p',
                'floating_network_name': 'public', 'api_extensions': 'a,b'}

    def _conf(self, neutron):
        import configparser
        lab = _Lab(tempfile.mkdtemp())
        self.addCleanup(lambda: __import__('shutil').rmtree(lab.state))
        lab.keystone, lab.keystone_password, lab.name = 'k', 'pw', 'lab'
        from tests.tempest import conf as tempest_conf
        conf = configparser.ConfigParser(interpolation=None)
        conf.read_string(tempest_conf.build(lab, self.FACTS, '/tmp/logs',
                                            neutron=neutron))
        return conf

    def test_fake_driver_features_on(self):
        conf = self._conf(self.NETWORKS)
        for option in ('rescue', 'stable_rescue', 'interface_attach',
                       'disk_config', 'config_drive'):
            self.assertEqual('True', conf['compute-feature-enabled'][option],
                             option)
        self.assertEqual('True', conf['network-feature-enabled']['ipv6'])
        self.assertEqual('True', conf['service_available']['neutron'])
        self.assertEqual('True', conf['auth']['create_isolated_networks'])

    def test_no_neutron_has_no_isolated_networks(self):
        conf = self._conf(None)
        self.assertEqual('False', conf['service_available']['neutron'])
        self.assertEqual('False', conf['auth']['create_isolated_networks'])

    def test_networking_is_the_default(self):
        self.assertTrue(runner.parse_args([]).neutron)
        self.assertFalse(runner.parse_args(['--no-neutron']).neutron)
