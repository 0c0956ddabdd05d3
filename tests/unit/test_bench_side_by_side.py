"""The side-by-side benchmarks' ratios, tables and process accounting."""

import http.server
import json
import os
import platform
import signal
import subprocess
import sys
import threading
import time

import fixtures
import testtools

from tests.bench import boot_side_by_side as boot
from tests.bench import placement_side_by_side as placement
from tests.bench import side_by_side as sbs


class TestRatio(testtools.TestCase):
    def test_time_ratio_is_reference_over_nova_lite(self):
        self.assertEqual(4.0, sbs.ratio(0.8, 0.2))

    def test_rate_ratio_is_nova_lite_over_reference(self):
        self.assertEqual(7.5, sbs.ratio(1.5, 11.25, higher_is_better=True))

    def test_missing_or_zero_side_has_no_ratio(self):
        self.assertIsNone(sbs.ratio(None, 0.2))
        self.assertIsNone(sbs.ratio(0.8, None))
        self.assertIsNone(sbs.ratio(0.8, 0))


class TestInterpreters(testtools.TestCase):
    def test_the_same_base_interpreter_is_said_the_same(self):
        both = sbs.interpreters(sys.executable)
        self.assertTrue(both['same'])
        self.assertEqual(platform.python_version(),
                         both['nova_lite']['version'])

    def test_a_missing_reference_is_not_the_same(self):
        for missing in (None, '/nonexistent/venv/bin/python'):
            both = sbs.interpreters(missing)
            self.assertIsNone(both['reference'])
            self.assertFalse(both['same'])


class TestMarkdownTable(testtools.TestCase):
    def test_rows_with_units_ratio_and_missing_reference(self):
        rows = [sbs.row('boot', 0.821, 0.206, 's'),
                sbs.row('servers/s', 1.51, 11.08, higher_is_better=True),
                sbs.row('alone', None, 3.0, 's')]
        self.assertEqual(
            '| measure | real Nova 34 | nova_lite | ratio |\n'
            '|---|---|---|---|\n'
            '| boot | 0.821 s | 0.206 s | 4.0x |\n'
            '| servers/s | 1.51 | 11.08 | 7.3x |\n'
            '| alone | - | 3.0 s | - |',
            sbs.markdown_table(rows, 'real Nova 34'))


def _bench_result(seq, rate, p50, delete, cpu, active=100):
    return {'seq': {'obs_s_median': seq},
            'burst': {'servers_per_s_obs': rate, 'obs_s_p50': p50,
                      'active': active, 'cpu_s': cpu},
            'delete': {'usage_zero_s': delete}}


class TestBootRows(testtools.TestCase):
    def test_cpu_per_server_keeps_shared_services_apart(self):
        nova = _bench_result(0.8, 1.5, 38.0, 33.0, {
            'conductor': 60.0, 'placement': 40.0, '(mariadb)': 15.0,
            '(rabbitmq)': 5.0})
        lite = _bench_result(0.2, 11.0, 5.8, 5.0, {
            'api': 5.0, 'api.123': 3.0, '(mariadb)': 4.0, '(rabbitmq)': 1.0})
        rows = {r['measure']: r for r in boot.table_rows(nova, lite, 100)}
        own = rows['CPU-s per server (burst), lab processes']
        self.assertEqual((1.0, 0.08, 12.5),
                         (own['reference'], own['nova_lite'], own['ratio']))
        shared = rows['CPU-s per server (burst), MariaDB + RabbitMQ '
                      '(shared)']
        self.assertEqual((0.2, 0.05), (shared['reference'],
                                       shared['nova_lite']))
        total = rows['CPU-s per server (burst), all processes']
        self.assertEqual((1.2, 0.13), (total['reference'],
                                       total['nova_lite']))
        rate = rows['burst of 100 (10 per POST), servers/s']
        self.assertEqual(7.33, rate['ratio'])

    def test_nova_lite_alone_has_no_reference_numbers(self):
        lite = _bench_result(0.2, 11.0, 5.8, 5.0, {'api': 5.0})
        for r in boot.table_rows(None, lite, 100):
            self.assertIsNone(r['reference'])
            self.assertIsNone(r['ratio'])
            self.assertIsNotNone(r['nova_lite'])

    def test_both_sides_polled_every_second_unless_asked(self):
        self.useFixture(fixtures.EnvironmentVariable(
            'NOVA_LITE_BENCH_BURST_POLL'))
        args = boot.bench_args(quick=False)
        self.assertEqual('1', args[args.index('--burst-poll') + 1])
        self.useFixture(fixtures.EnvironmentVariable(
            'NOVA_LITE_BENCH_BURST_POLL', '0.2'))
        args = boot.bench_args(quick=False)
        self.assertEqual('0.2', args[args.index('--burst-poll') + 1])
        lite = _bench_result(0.2, 11.0, 5.8, 5.0, {'api': 5.0})
        measures = [r['measure'] for r in
                    boot.table_rows(None, lite, 100, boot.burst_poll())]
        self.assertIn('burst p50 POST -> ACTIVE (0.2 s polling)', measures)

    def test_worker_entries_summed_per_service(self):
        self.assertEqual({'api': 8.0, '(mariadb)': 1.0},
                         boot.cpu_by_process({'api': 5.0, 'api.123': 3.0,
                                              '(mariadb)': 1.0}))


class _FakeNova(http.server.BaseHTTPRequestHandler):
    servers = [{'id': 'stuck', 'OS-EXT-STS:task_state': None},
               {'id': 'busy', 'OS-EXT-STS:task_state': 'deleting'}]
    seen = []

    def _reply(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b''
        self.send_response(status)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - the handler's API
        self.seen.append(('GET', self.path,
                          self.headers.get('X-Project-Id')))
        self._reply(200, {'servers': self.servers})

    def do_DELETE(self):  # noqa: N802
        self.seen.append(('DELETE', self.path, None))
        self._reply(204)

    def log_message(self, *args):
        pass


class TestErroredDeleteRetrier(testtools.TestCase):
    def test_deletes_again_only_servers_no_task_holds(self):
        server = http.server.HTTPServer(('127.0.0.1', 0), _FakeNova)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        _FakeNova.seen = []
        retrier = boot.ErroredDeleteRetrier(
            'http://127.0.0.1:%d/v2.1' % server.server_port)
        retrier.retry_once()
        self.assertEqual(['stuck'], retrier.retried)
        self.assertEqual(
            [('GET', '/v2.1/servers/detail?name=%5Ebench-s-&status=ERROR',
              'admin'),
             ('DELETE', '/v2.1/servers/stuck', None)], _FakeNova.seen)


class TestReferenceFailure(testtools.TestCase):
    def test_nova_lite_half_runs_when_the_real_lab_fails(self):
        base = self.useFixture(fixtures.TempDir()).path
        os.makedirs(os.path.join(base, 'venv', 'bin'))
        open(os.path.join(base, 'venv', 'bin', 'nova-manage'), 'w').close()
        self.useFixture(fixtures.EnvironmentVariable(
            'NOVA_LITE_BENCH_NOVA_BASE', base))
        self.useFixture(fixtures.MockPatch(
            'tests.bench.side_by_side.tools_dir', return_value=base))
        self.useFixture(fixtures.MockPatch(
            'tests.db_fixtures.mysql_unavailable_reason', return_value=None))
        self.useFixture(fixtures.MockPatch(
            'tests.bench.boot_side_by_side.run_reference',
            side_effect=RuntimeError('Too many connections')))
        lite = _bench_result(0.2, 11.0, 5.8, 5.0, {'api': 5.0})
        self.useFixture(fixtures.MockPatch(
            'tests.bench.boot_side_by_side.run_nova_lite',
            return_value=lite))
        self.useFixture(fixtures.MockPatch('builtins.print'))
        self.useFixture(fixtures.MockPatch(
            'tempfile.mkdtemp',
            return_value=self.useFixture(fixtures.TempDir()).path))

        class Args:
            quick = False
        result = boot.run(Args())
        self.assertEqual('Too many connections', result['reference_error'])
        self.assertIs(lite, result['nova_lite'])
        self.assertEqual(0.2, result['rows'][0]['nova_lite'])
        self.assertIsNone(result['rows'][0]['reference'])


class TestPlacementRows(testtools.TestCase):
    def _report(self, plain_ms, limit_ms, load, claims, cpu, plain_n=1000):
        return {'queries': [
            {'query': 'plain', 'median_ms': plain_ms,
             'allocation_requests': plain_n},
            {'query': 'plain_limit50', 'median_ms': limit_ms,
             'allocation_requests': 50}],
            'load': {'providers_per_s': load, 'error_count': 0},
            'claims': {'claims_per_s': claims, 'over_allocated': [],
                       'consistent': True, 'clean': True,
                       'stats': {'ok': 20}},
            'server_cpu_s': cpu}

    def test_rows_per_query_then_rates(self):
        real = self._report(104.0, 81.0, 21.0, 25.0, 90.0)
        lite = self._report(52.0, 4.0, 105.0, 125.0, 30.0)
        rows = {r['measure']: r['ratio']
                for r in placement.table_rows(real, lite, 1000)}
        self.assertEqual({'N=1000 plain': 2.0,
                          'N=1000 plain_limit50': 20.25,
                          'N=1000 loading, providers/s': 5.0,
                          'N=1000 200 concurrent claims, claims/s': 5.0,
                          'N=1000 server CPU-s, whole perfload run': 3.0},
                         rows)

    def test_checks_report_different_answers(self):
        real = self._report(104.0, 81.0, 21.0, 25.0, 90.0, plain_n=1000)
        lite = self._report(52.0, 4.0, 105.0, 125.0, 30.0, plain_n=999)
        found = placement.checks(real, lite)
        self.assertEqual(
            {'plain': (1000, 999)},
            found['candidate_counts_differ (reference, nova_lite)'])
        self.assertEqual(0, found['nova_lite']['over_allocated'])
        self.assertTrue(found['reference']['claims_consistent'])


class TestPlacementOnMariaDB(testtools.TestCase):
    class _Databases:
        def __init__(self):
            self.created = []

        def create(self, name):
            self.created.append(name)
            return 'mysql+pymysql://root@db/%s' % name

    def test_each_side_gets_its_own_new_database(self):
        started = []

        def fake_perfload(python, tools, server, size, out_dir):
            started.append(server)
            return {'server': server.name}

        self.useFixture(fixtures.MonkeyPatch(
            'tests.bench.placement_side_by_side.perfload', fake_perfload))
        for cls in (placement.NovaLitePlacement,
                    placement.RealPlacementOnDatabase):
            self.useFixture(fixtures.MonkeyPatch(
                '%s.%s.start' % (cls.__module__, cls.__name__),
                lambda self: None))
            self.useFixture(fixtures.MonkeyPatch(
                '%s.%s.stop' % (cls.__module__, cls.__name__),
                lambda self: None))
        databases = self._Databases()
        placement.one_size('/tools', '/venv', 'python', 1000, '/tmp/x',
                           databases)
        self.assertEqual(['plc_nl_1000', 'plc_ref_1000'], databases.created)
        self.assertEqual(
            ['mysql+pymysql://root@db/plc_nl_1000',
             'mysql+pymysql://root@db/plc_ref_1000'],
            [server.connection for server in started])
        self.assertIsInstance(started[1], placement.RealPlacementOnDatabase)


class TestProcessTrees(testtools.TestCase):
    def test_even_depths_listed_so_direct_children_cover_the_tree(self):
        # parent -> child -> grandchild: bench.py adds the direct children
        # of every listed pid, so the grandchild must be listed itself.
        parent = subprocess.Popen(
            ['bash', '-c', 'bash -c "sleep 30; true"; true'],
            start_new_session=True)
        self.addCleanup(parent.wait)
        self.addCleanup(os.killpg, parent.pid, signal.SIGKILL)
        child = grandchild = None
        deadline = time.monotonic() + 10
        while grandchild is None and time.monotonic() < deadline:
            for kid in sbs._children(parent.pid):
                child, grandchild = kid, (sbs._children(kid) or [None])[0]
            time.sleep(0.02)
        self.assertIsNotNone(grandchild, 'the grandchild never started')
        self.assertEqual(
            ['svc %d' % parent.pid,
             'svc.%d %d' % (grandchild, grandchild)],
            sbs.pids_file_lines({'svc': parent.pid}))
        self.assertEqual({parent.pid: 0, child: 1, grandchild: 2},
                         dict(sbs.descendants(parent.pid)))
        self.assertGreaterEqual(sbs.cpu_seconds(parent.pid), 0)
