"""nova-lite-manage chaos run FILE: a scenario against a stacked lab.

::

    nova-lite-manage --config-file $STATE/etc/api-level.conf \\
        chaos run delete-during-build [--report FILE.json] [--api URL]
        [--placement URL] [--token TOKEN] [--state-dir DIR]

FILE is a scenario file, or the name of one shipped with nova_lite
(``chaos run --list`` names them; :mod:`nova_lite.scenario`). The
workload goes through the compute API over HTTP (``[api] bind_host`` and
``bind_port`` of the configuration unless ``--api``), with a noauth2
token (``admin`` by default: the report lists every tenant's servers);
RPC rules go over the bus, as ``chaos add`` sends them; computes and
cells are acted on as the processes recorded in the lab's state directory
(``--state-dir``, else ``$NOVA_LITE_STATE_DIR``, else the directory above
the first ``--config-file``'s).

Prints the report's table (and writes its JSON with ``--report``); exits
0 when every invariant passed, 1 when one failed, 2 when the file is
wrong.
"""

import os
import time

from oslo_serialization import jsonutils

from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite import conf as nl_conf
from nova_lite.scenario import controls as controls_mod
from nova_lite.scenario import http
from nova_lite.scenario import loader
from nova_lite.scenario import processes
from nova_lite.scenario import report as report_mod
from nova_lite.scenario import runner

CONF = nl_conf.CONF


def state_dir(args):
    """The lab's state directory (pid files), or None."""
    if getattr(args, 'state_dir', None):
        return args.state_dir
    if os.environ.get('NOVA_LITE_STATE_DIR'):
        return os.environ['NOVA_LITE_STATE_DIR']
    if CONF.config_file:
        found = os.path.dirname(os.path.dirname(
            os.path.abspath(CONF.config_file[0])))
        if os.path.isdir(os.path.join(found, 'pids')):
            return found
    return None


def _endpoint(host, port):
    if host in ('0.0.0.0', '::', ''):
        host = '127.0.0.1'
    return 'http://%s:%d' % (host if ':' not in host else '[%s]' % host,
                             port)


def run(args, fanout):
    if args.list:
        for name, path in loader.shipped().items():
            print('%s  %s' % (name, path))
        return 0
    if not args.file:
        raise CommandError('give a scenario file (or --list)', code=2)
    try:
        scenario = loader.load(args.file)
    except loader.ScenarioError as exc:
        raise CommandError(str(exc), code=2)
    state = state_dir(args)
    if state is None:
        raise CommandError('no lab state directory: give --state-dir',
                           code=2)
    recorder = http.Recorder()
    the_run = None

    def current_deadline():
        # The clients cut their requests to the run's deadline of the
        # moment (none before the run starts).
        if the_run is not None and the_run.deadline is not None:
            return the_run.deadline
        return time.monotonic() + http.REQUEST_TIMEOUT

    compute = http.ComputeAPI(
        args.api or _endpoint(CONF.api.bind_host, CONF.api.bind_port),
        args.token, recorder, current_deadline)
    placement = http.PlacementAPI(
        args.placement or _endpoint(CONF.placement_api.bind_host,
                                    CONF.placement_api.bind_port),
        args.token, recorder, current_deadline)
    controls = controls_mod.LabControls(processes.Processes(state), fanout,
                                        common.admin_context)
    the_run = runner.Run(scenario, compute, placement, controls,
                         log=lambda line: print(line, flush=True))
    report = the_run.execute()
    if args.report:
        with open(args.report, 'w') as f:
            f.write(jsonutils.dumps(report, indent=2, sort_keys=True))
    print(report_mod.text(report))
    return 0 if report['passed'] else 1


def add_parser(acts, fanout):
    run_p = acts.add_parser('run', help='run a scenario file against the '
                            'lab and report its invariants')
    run_p.add_argument('file', nargs='?', metavar='FILE',
                       help='a scenario file, or a shipped scenario name')
    run_p.add_argument('--list', action='store_true',
                       help='name the shipped scenarios')
    run_p.add_argument('--report', metavar='FILE.json',
                       help='write the report as JSON here')
    run_p.add_argument('--api', help='the compute API endpoint')
    run_p.add_argument('--placement', help='the placement endpoint')
    run_p.add_argument('--token', default='admin',
                       help='the noauth2 token to send (default admin)')
    run_p.add_argument('--state-dir', help="the lab's state directory")
    run_p.set_defaults(func=lambda args: run(args, fanout))
