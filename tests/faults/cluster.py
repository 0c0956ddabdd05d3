"""The broker fault once more, on a 3-node RabbitMQ cluster.

``python -m tests.faults.cluster [--burst 30] [--port-base 18900]``

Three private RabbitMQ nodes on this machine (distinct node names, AMQP
and distribution ports; one epmd and one Erlang cookie, so that they
cluster) form one cluster; a lab (devstack/stack.sh, quorum queues, the
default) gets a ``transport_url`` naming the three of them. While a burst
of creates runs, the node every client connected to first is stopped
(``rabbitmqctl stop``) and stays down until the burst has settled: the
clients move to the other nodes, the quorum queues keep their messages
(2 of 3 replicas), and the invariants of the fault suite must hold: no
build lost or stuck, placement usage exactly the flavors of the servers,
no orphan. The node then comes back and a new burst must all go ACTIVE.

Separate from ``python -m tests.faults`` (its own port range, so both can
run at once); same skip rule and result files (``fault-results/``).
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tests.faults import faultlab
from tests.faults import runner
from tests.faults import scenarios
from tests.faults import services

RESULTS_DIR = 'fault-results'
NODES = 3
DOWN_SECONDS = 20


class ClusterNode(services.PrivateRabbit):
    """One node of the cluster: ``nl_cluster<i>@localhost``."""

    def __init__(self, root, index, port, epmd_port, home):
        self.index = index
        super().__init__(os.path.join(root, 'node%d' % index), port)
        self.nodename = 'nl_cluster%d@localhost' % index
        self.env.update(RABBITMQ_NODENAME=self.nodename,
                        ERL_EPMD_PORT=str(epmd_port), HOME=home)

    def destroy(self):
        """Stop this node; the shared epmd stays (the cluster ends it)."""
        pid = self.pid()
        if pid and services._pid_alive(pid):
            try:
                self.stop()
            except (services.ServiceError, subprocess.TimeoutExpired):
                os.kill(pid, signal.SIGKILL)
        self._reap()


class RabbitCluster:
    """Three clustered nodes; the interface of PrivateRabbit the suite
    uses (``url``, ``port``, ``ctl``, ``write_ctl_shim``, ``start``,
    ``destroy``)."""

    def __init__(self, root, port_base):
        home = os.path.join(root, 'erlang-home')
        os.makedirs(home, exist_ok=True)
        epmd = port_base + 9
        self.nodes = [ClusterNode(root, i, port_base + 3 * (i - 1), epmd,
                                  home) for i in range(1, NODES + 1)]
        self.port = self.nodes[0].port

    @property
    def url(self):
        return 'rabbit://%s/' % ','.join(
            'guest:guest@127.0.0.1:%d' % n.port for n in self.nodes)

    def ctl(self, *args, timeout=60):
        """rabbitmqctl on the first running node."""
        node = next((n for n in self.nodes if services.port_open(n.port)),
                    self.nodes[0])
        return node.ctl(*args, timeout=timeout)

    def write_ctl_shim(self, bindir):
        return self.nodes[0].write_ctl_shim(bindir)

    def start(self, timeout=120):
        first = self.nodes[0]
        if not services.port_open(first.port):
            first.start(timeout)
        for node in self.nodes[1:]:
            if services.port_open(node.port):
                continue
            node.start(timeout)
            if first.nodename in self._members(node):
                continue
            for args in (('stop_app',), ('join_cluster', first.nodename),
                         ('start_app',)):
                result = node.ctl(*args, timeout=timeout)
                if result.returncode:
                    raise services.ServiceError('%s %s: %s' % (
                        node.nodename, ' '.join(args), result.stderr))
        members = self._members(first)
        if len(members) != NODES:
            raise services.ServiceError('cluster has %s' % members)

    def _members(self, node):
        """Running nodes of ``node``'s cluster."""
        result = node.ctl('-q', 'cluster_status', '--formatter', 'json')
        try:
            return json.loads(result.stdout)['running_nodes']
        except (ValueError, KeyError):
            return []

    def running(self):
        return [n.nodename for n in self.nodes
                if services.port_open(n.port)]

    def destroy(self):
        for node in reversed(self.nodes):
            try:
                node.destroy()
            except Exception:  # noqa: BLE001 - tear down the others
                pass
        # The nodes' epmd (own port) outlives them.
        subprocess.run(['epmd', '-kill'], env=self.nodes[0]._env(),
                       capture_output=True, timeout=30)


def stop_one_node(ctx):
    """Stop the first node of the URL (where every client connected)
    during the burst; start it once the burst has settled enough."""
    cluster = ctx.rabbit
    node = cluster.nodes[0]
    outage = scenarios.Outage()
    node.stop()
    outage.mark_stopped()
    running = cluster.running()
    ctx.burst.join()
    outage.wait_down(DOWN_SECONDS)
    node.start()
    info = outage.mark_up()
    info['running_while_down'] = running
    info['stopped_node'] = node.nodename
    return info


FAULT = scenarios.Fault(
    'rabbit_cluster_node_stop',
    'stop 1 of 3 clustered RabbitMQ nodes (quorum queues) mid-burst',
    stop_one_node)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m tests.faults.cluster',
        description=__doc__.split('\n\n')[0])
    parser.add_argument('--burst', type=int, default=30)
    parser.add_argument('--new-burst', type=int, default=10)
    parser.add_argument('--nodes', type=int, default=5,
                        help='fake nodes of the compute')
    parser.add_argument('--port-base', type=int, default=int(
        os.environ.get('NOVA_LITE_CLUSTER_PORT_BASE', 18900)))
    parser.add_argument('--keep', action='store_true')
    args = parser.parse_args(argv)
    args.options = dict(faultlab.DEFAULT_OPTIONS)
    return args


def main(argv=None):
    args = parse_args(argv)
    missing = services.missing_binaries()
    if missing:
        print('SKIP RabbitMQ cluster fault: this machine has no %s'
              % missing)
        return 1 if os.environ.get('NOVA_LITE_REQUIRE_SERVICES') == '1' \
            else 0
    busy = [p for p in range(args.port_base, args.port_base + 50)
            if services.port_open(p)]
    if busy:
        raise SystemExit('ports %s of the range are in use' % busy)
    os.makedirs(RESULTS_DIR, exist_ok=True)
    root = tempfile.mkdtemp(prefix='nova-lite-cluster-')
    cluster = RabbitCluster(root, args.port_base + 10)
    mysql = services.PrivateMariaDB(root, args.port_base + 20)
    shim = cluster.write_ctl_shim(os.path.join(root, 'bin'))
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    started = time.monotonic()
    lab = result = None
    try:
        runner._say('3-node RabbitMQ cluster on %s, MariaDB on %d (%s)'
                    % ([n.port for n in cluster.nodes], mysql.port, root))
        cluster.start()
        mysql.start()
        runner._say('cluster running: %s' % cluster.running())
        lab = faultlab.FaultLab(cluster, mysql, shim, args.port_base + 40,
                                args.options, nodes=args.nodes,
                                name_prefix='nl_cluster')
        result, lab = runner.run_fault(FAULT, cluster, mysql, lab, args,
                                       RESULTS_DIR)
        with open(os.path.join(RESULTS_DIR, FAULT.name + '.json'),
                  'w') as f:
            json.dump(result, f, indent=2, default=str)
    finally:
        if lab is not None and not args.keep:
            runner.destroy(lab)
        cluster.destroy()
        mysql.destroy()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print('%s: %s; servers %s; stuck %s, lost %s, orphans %s, usage %s; '
          'new burst %s/%s; %.0fs' % (
              FAULT.name, 'PASS' if result['passed'] else 'FAIL',
              result.get('servers'), result.get('stuck'), result.get('lost'),
              result.get('orphans'),
              'exact' if not result.get('usage_mismatch') and
              not result.get('wrong_claims') else 'WRONG',
              (result.get('new_burst') or {}).get('active'),
              (result.get('new_burst') or {}).get('sent'),
              time.monotonic() - started))
    for why in result['failures']:
        print('  ' + why)
    return 0 if result['passed'] else 1


if __name__ == '__main__':
    sys.exit(main())
