"""The fault suite's own logic (tests/faults): option environment,
placement arithmetic, audit parsing and the verdict of a run."""

import os
import socket
import socketserver
import sys
import threading
import types

import fixtures
import testtools

from tests.faults import faultlab
from tests.faults import galera
from tests.faults import runner
from tests.integration import lab as lab_mod
from tests import suite_results
from tests import summary


def _result(**overrides):
    result = {'burst': {'statuses': {'202': 25, '503': 5}},
              'stuck': 0, 'lost': 0, 'usage_mismatch': {},
              'wrong_claims': {}, 'audit_rc': 0, 'stray_allocations': {},
              'new_burst': {'ok': True, 'active': 10, 'sent': 10}}
    result.update(overrides)
    return result


class TestFaultSuite(testtools.TestCase):
    def test_options_become_oslo_config_environment(self):
        self.assertEqual(
            {'OS_COMPUTE__INSTANCE_BUILD_TIMEOUT': '30',
             'OS_DEFAULT__RPC_RESPONSE_TIMEOUT': '20'},
            faultlab.option_env({'compute.instance_build_timeout': 30,
                                 'DEFAULT.rpc_response_timeout': '20'}))

    def test_flavor_resources_count_swap_in_whole_gb(self):
        self.assertEqual(
            {'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 1 + 2 + 1},
            faultlab.flavor_resources({'vcpus': 2, 'ram': 512, 'disk': 1,
                                       'ephemeral': 2, 'swap': 512}))

    def test_audit_orphans_parsed_from_its_output(self):
        out = ('Allocations for consumer c1 on resource provider r1: '
               'orphaned {\'VCPU\': 1}\n'
               'Allocations for consumer c2 on resource provider r2: '
               'orphaned {}\n2 consumers have orphaned allocations; ...\n')
        self.assertEqual(['c1', 'c2'], faultlab.audit_orphans(out))
        self.assertEqual([], faultlab.audit_orphans(
            'No orphaned allocations were found.\n'))

    def test_lab_services_restart_with_stack_sh_commands(self):
        lab = types.SimpleNamespace(state='/s')
        command = faultlab.FaultLab.service_command
        bin_ = sys.prefix + '/bin/nova-lite-'
        self.assertEqual(
            [bin_ + 'conductor', '--config-file', '/s/etc/api-level.conf'],
            command(lab, 'conductor'))
        self.assertEqual(
            [bin_ + 'conductor', '--config-file', '/s/etc/cell1.conf',
             '--cell', 'cell1'], command(lab, 'conductor-cell1'))
        self.assertEqual(
            [bin_ + 'compute', '--config-file',
             '/s/etc/cell1-compute1.conf', '--config-dir',
             '/s/etc/cell1-compute1.conf.d'],
            command(lab, 'compute-cell1-compute1'))
        self.assertRaises(ValueError, command, lab, 'api')

    def test_log_problems_name_the_servers_then_the_last_errors(self):
        logs = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(logs, 'api.log'), 'w') as f:
            f.write('2026 1 INFO nova_lite.api started\n'
                    '2026 1 WARNING nova_lite.api slow\n'
                    '2026 1 INFO nova_lite.api accepted s-1\n')
        with open(os.path.join(logs, 'compute.log'), 'w') as f:
            f.write(''.join('2026 2 ERROR nova_lite.compute failed %d\n'
                            % i for i in range(3)))
        self.assertEqual(
            ['api.log: 2026 1 INFO nova_lite.api accepted s-1',
             'api.log: 2026 1 WARNING nova_lite.api slow',
             'compute.log: 2026 2 ERROR nova_lite.compute failed 1',
             'compute.log: 2026 2 ERROR nova_lite.compute failed 2'],
            runner.log_problems(logs, ['s-1'], last=2))

    def test_requests_answered_500_during_the_fault_fail_it(self):
        state = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(state, 'logs'))
        lab = types.SimpleNamespace(state=state)

        def log(name, *lines):
            with open(os.path.join(state, 'logs', name), 'a') as f:
                f.write(''.join(line + '\n' for line in lines))

        log('placement.log', '1 ERROR x Unexpected error serving GET /a')
        log('api.log', '1 INFO x accepted')
        before = lab_mod.served_500(lab)
        log('placement.log', '2 ERROR x Unexpected error serving GET /b',
            '2 ERROR x Traceback (most recent call last):')
        log('api.log', '2 ERROR x Unexpected error serving POST /servers')
        found = lab_mod.new_lines(lab_mod.served_500(lab), before)
        self.assertEqual(
            ['api.log: 2 ERROR x Unexpected error serving POST /servers',
             'placement.log: 2 ERROR x Unexpected error serving GET /b'],
            found)
        self.assertEqual(
            ['2 requests answered 500, first: api.log: 2 ERROR x '
             'Unexpected error serving POST /servers'],
            runner.failures(_result(served_500=found)))

    def test_a_lab_test_during_which_a_request_was_answered_500_fails(self):
        state = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(state, 'logs'))

        class LabTest(lab_mod.LabTestCase):
            lab = types.SimpleNamespace(state=state)

            def test_it(self):
                pass

        case = LabTest('test_it')
        before = lab_mod.served_500(LabTest.lab)
        case._check_no_500(before)
        with open(os.path.join(state, 'logs', 'api.log'), 'w') as f:
            f.write('1 ERROR x Unexpected error serving GET /servers\n')
        error = self.assertRaises(case.failureException,
                                  case._check_no_500, before)
        self.assertIn('1 requests answered 500 during the test:\napi.log: '
                      '1 ERROR x Unexpected error serving GET /servers',
                      str(error))

    def test_a_clean_run_passes(self):
        self.assertEqual([], runner.failures(_result()))

    def test_each_broken_invariant_is_named(self):
        why = runner.failures(_result(
            stuck=2, lost=1, usage_mismatch={'n0': {}},
            wrong_claims={'s': {}}, audit_rc=3,
            new_burst={'ok': False, 'active': 7, 'sent': 10},
            check_failed='POST took 30s',
            burst={'statuses': {'202': 20, '500': 3, 'timeout': 1}}))
        self.assertEqual(
            ['POST took 30s',
             "burst POSTs answered {'500': 3, 'timeout': 1} (want 202 or "
             "503)", '2 stuck', '1 lost',
             'usage != flavors on 1 providers',
             '1 servers hold the wrong claim', 'placement audit exit 3',
             'new burst: 7/10 ACTIVE'], why)

    def test_a_failed_new_burst_says_how_its_servers_ended(self):
        servers = {
            'a': {'status': 'ACTIVE'},
            'b': {'status': 'ERROR', 'fault': {'message': 'No valid host'}},
            'c': {'status': 'ERROR', 'fault': {'message': 'No valid host'}},
            'd': {'status': 'BUILD'}}
        reasons = runner.not_active_reasons(servers, ['a', 'b', 'c', 'd',
                                                      'e'])
        self.assertEqual({'ERROR: No valid host': 2, 'BUILD': 1, 'gone': 1},
                         reasons)
        why = runner.failures(_result(new_burst={
            'ok': False, 'active': 1, 'sent': 6, 'not_active': reasons,
            'statuses': {'202': 5, '503': 1}}))
        self.assertEqual(["new burst: 1/6 ACTIVE (POSTs answered "
                          "{'503': 1}) (1 BUILD) (2 ERROR: No valid host) "
                          "(1 gone)"], why)

    def test_servers_of_refused_creates_are_named(self):
        why = runner.failures(_result(unannounced={'s1': 'ERROR'}))
        self.assertEqual(['1 servers made by creates answered 503'], why)
        # A create whose client gave up may have made its server (the
        # hung POST is what fails then).
        self.assertEqual(
            ["burst POSTs answered {'timeout': 1} (want 202 or 503)"],
            runner.failures(_result(
                unannounced={'s1': 'ACTIVE'},
                burst={'statuses': {'202': 29, 'timeout': 1}})))

    def test_creates_the_outage_probe_gave_up_on_may_make_servers(self):
        why = runner.failures(_result(
            unannounced={'s1': 'ERROR', 's2': 'ACTIVE'},
            outage_probe={'post_statuses': ['503', 'timeout', 'timeout']}))
        self.assertEqual([], why)

    def test_an_error_is_the_only_reason(self):
        self.assertEqual(['error: LabError: stack.sh failed'],
                         runner.failures({'error': 'Traceback\n'
                                          'LabError: stack.sh failed'}))


class _Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while True:
            data = self.request.recv(1024)
            if not data:
                return
            self.request.sendall(self.server.name + b':' + data)


class _FakeNode:
    """A Galera node for the proxy: an echo server naming itself, and
    whether it is synced."""

    def __init__(self, test, index):
        self.index, self.is_synced = index, True
        server = socketserver.ThreadingTCPServer(('127.0.0.1', 0), _Echo)
        server.daemon_threads = True
        server.name = b'node%d' % index
        self.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        test.addCleanup(server.server_close)
        test.addCleanup(server.shutdown)

    def synced(self):
        return self.is_synced


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class TestGaleraProxy(testtools.TestCase):
    """The proxy in front of the suite's Galera nodes: each connection
    to the first synced node; a node no longer synced loses its
    connections and gets no new ones."""

    def setUp(self):
        super().setUp()
        self.nodes = [_FakeNode(self, i) for i in (1, 2, 3)]
        # Checked when the test says (no watcher in between).
        self.proxy = galera.Proxy(self.nodes, _free_port(), interval=3600)
        self.proxy.start()
        self.addCleanup(self.proxy.stop)

    def _connect(self):
        sock = socket.create_connection(('127.0.0.1', self.proxy.port),
                                        timeout=5)
        self.addCleanup(sock.close)
        return sock

    def _ask(self, sock):
        sock.sendall(b'x')
        return sock.recv(1024)

    def test_connections_go_to_the_first_synced_node(self):
        self.assertEqual(b'node1:x', self._ask(self._connect()))
        self.nodes[0].is_synced = False
        self.proxy.check()
        self.assertEqual(b'node2:x', self._ask(self._connect()))
        self.assertEqual([[1, 2, 3], [2, 3]],
                         [synced for _, synced in self.proxy.switches()])

    def test_a_node_no_longer_synced_loses_its_connections(self):
        on_first = self._connect()
        self.assertEqual(b'node1:x', self._ask(on_first))
        self.nodes[0].is_synced = False
        self.proxy.check()
        # closed by the proxy: end of stream (or a reset)
        try:
            answer = self._ask(on_first)
        except OSError:
            answer = b''
        self.assertEqual(b'', answer)

    def test_no_synced_node_refuses_by_closing(self):
        for node in self.nodes:
            node.is_synced = False
        self.proxy.check()
        sock = self._connect()
        try:
            answer = self._ask(sock)
        except OSError:
            answer = b''
        self.assertEqual(b'', answer)


class TestRetryCount(testtools.TestCase):
    def test_retry_warnings_counted_by_error(self):
        state = self.useFixture(fixtures.TempDir()).path
        os.makedirs(os.path.join(state, 'logs'))
        with open(os.path.join(state, 'logs', 'api.log'), 'w') as f:
            f.write(
                "2026-01-01 00:00:00.1 1 WARNING nova_lite.db.session [-] "
                "q failed ((pymysql.err.OperationalError) (2013, 'Lost "
                "connection to MySQL server during query')\n[SQL: select 1]"
                "\n(Background on this error at: https://sqlalche.me/e/21/"
                "e3q8)); retrying for 60 s more\n"
                "2026-01-01 00:00:00.2 1 INFO x [-] a check failed (no)\n"
                "2026-01-01 00:00:00.3 1 WARNING y [-] claim failed ("
                "(pymysql.err.OperationalError) (1213, 'Deadlock found when "
                "trying to get lock')); retrying for 59 s more\n"
                "2026-01-01 00:00:00.4 1 WARNING z [-] build_finish failed "
                "(Timed out waiting for a reply to message ID 4); retry 2 "
                "in 1.0 s\n")
        lab = types.SimpleNamespace(state=state)
        self.assertEqual({'2013': 1, '1213': 1, 'MessagingTimeout': 1},
                         dict(runner.retries(lab)))


class TestSuiteResults(testtools.TestCase):
    """Faults and fuzz counts reach CI's summary line as test results."""

    def test_results_are_counted_by_the_summary(self):
        results_dir = self.useFixture(fixtures.TempDir()).path
        report = suite_results.Results('faults')
        report.check('rabbit_kill9', True, 'stuck 0')
        report.check('compute_sigterm', False, 'stuck 2')
        report.add('mariadb_restart', 'skip', 'no mariadbd')
        report.write(results_dir)
        totals = summary.summarize(results_dir)
        self.assertEqual((1, 1, 1),
                         (totals.passed, totals.failed, totals.skipped))
        self.assertEqual({'success': 1, 'fail': 1, 'skip': 1},
                         report.counts)
        # The failed test is named, with its reason, beside the counts.
        [(name, test_id, tail)] = totals.failures
        self.assertEqual(('faults', 'tests.faults.compute_sigterm'),
                         (name, test_id))
        self.assertIn('stuck 2', tail)

    def test_the_summary_names_each_failed_test_before_the_counts(self):
        results_dir = self.useFixture(fixtures.TempDir()).path
        report = suite_results.Results('fuzz')
        report.check('no_500', False, 'GET /servers answered 500')
        report.check('no_stuck', True)
        report.write(results_dir)
        out = self.useFixture(fixtures.StringStream('stdout'))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', out.stream))
        summary.main([results_dir])
        lines = out.getDetails()['stdout'].as_text().splitlines()
        self.assertEqual('FAILED in fuzz: tests.fuzz.no_500', lines[0])
        self.assertIn('GET /servers answered 500', lines[1])
        self.assertEqual('1 passed, 1 failed, 0 skipped', lines[-1])
