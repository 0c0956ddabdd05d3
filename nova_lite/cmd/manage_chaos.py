"""nova-lite-manage chaos add | list | release | clear | run: chaos in a lab.

The rules of :mod:`nova_lite.rpc_rules` live in each process. This command
sends them over the bus to every service (the base API's ``chaos_*``
methods, :mod:`nova_lite.baserpc`), so they can be used in a lab as in a
functional test::

    nova-lite-manage chaos add drop --method build_and_run_instance --count 1
    nova-lite-manage chaos list [--json] [--timeout S]
    nova-lite-manage chaos release [--method M] [--server H] [--instance U]
                                   [--discard]
    nova-lite-manage chaos fault heartbeats|partition --host H [--seconds S]
    nova-lite-manage chaos fault database --host H|--all [--delay S]
                                          [--error-rate R]
    nova-lite-manage chaos fault placement|compute-api [--delay S]
                     [--jitter S] [--error-rate R] [--seconds T]
                     [--state-dir DIR]
    nova-lite-manage chaos cell-down|cell-up CELL [--state-dir DIR]
    nova-lite-manage chaos clear [--discard] [--state-dir DIR]
    nova-lite-manage chaos run FILE  (nova_lite.cmd.manage_chaos_run)

Run it with the lab's API-level configuration (``[DEFAULT]
transport_url`` is the API bus, ``[api_database] connection`` names the
cells). ``add``, ``release`` and ``clear`` are fanout casts to the conductors,
schedulers and computes of the API bus and of every cell's bus: each
service that consumes gets them, a stopped one does not (it starts with
no rule). ``list`` asks every service of every cell's ``services`` table
and says which did not answer. nova-lite-api serves no RPC and takes no
rule; its messages can be matched where they are dispatched
(``--at dispatch``). Rules live in memory: a restarted service, and so
``unstack.sh``, leaves none behind.

``fault`` sends a lab fault the service of one host applies to itself
(:mod:`nova_lite.service_faults`: its heartbeats stopped, or its host
partitioned from the bus for S seconds, or its database statements
delayed and failing); ``list`` shows them and ``clear`` undoes them with
the rules. ``fault placement|compute-api`` delays that REST service's
requests and answers a fraction with 503 (:mod:`nova_lite.wsgi.lab_faults`,
a file of the lab's state directory the service checks once a second);
``list`` names it and ``clear`` removes it.

``cell-down CELL`` takes a cell down as a lab user sees it: its database
cut for the API (:mod:`nova_lite.scenario.cell_databases`) and its
conductor and computes frozen (:mod:`nova_lite.scenario.processes`);
``cell-up CELL`` brings it back. Both are recorded in the lab's state
directory: ``list`` names them and ``clear`` (and ``unstack.sh``) undoes
them too.

``--bus`` matches a bus by its RabbitMQ virtual host ('' for the default
one), as the services know it.
"""

import sys
import time

import oslo_messaging as messaging
from oslo_serialization import jsonutils

from nova_lite import baserpc
from nova_lite.cmd import manage_chaos_run
from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite import conf as nl_conf
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite.db import lab_faults as db_faults
from nova_lite import rpc
from nova_lite import rpc_rules
from nova_lite.scenario import cell_databases
from nova_lite.scenario import controls as controls_mod
from nova_lite.scenario import processes
from nova_lite import service_faults
from nova_lite.wsgi import lab_faults

CONF = nl_conf.CONF

TOPICS = ('conductor', 'scheduler', 'compute')


def _buses(ctxt):
    """``[(name, transport)]``: the API bus, then each cell's own bus."""
    buses = [('api', rpc.get_transport())]
    for cell in api_db.cell_mapping_get_all(ctxt):
        transport = rpc.get_cell_transport(cell.transport_url)
        if transport is not None and all(transport is not t
                                         for _, t in buses):
            buses.append((cell.name, transport))
    return buses


def _rule(args):
    rule = {'action': args.rule_action, 'at': args.at}
    for name in ('bus', 'topic', 'server', 'method', 'instance', 'count',
                 'window', 'seconds', 'error'):
        value = getattr(args, name)
        if value is not None:
            rule[name] = value
    try:
        rpc_rules.Rule(**rule)
    except ValueError as exc:
        raise CommandError('Invalid rule: %s' % exc, code=2)
    return rule


def _fanout(send):
    ctxt = common.admin_context()
    buses = _buses(ctxt)
    for _, transport in buses:
        for topic in TOPICS:
            send(baserpc.BaseAPI(topic, transport=transport), ctxt)
    return [name for name, _ in buses]


def add(args):
    rule = _rule(args)
    buses = _fanout(lambda api, ctxt: api.chaos_add(ctxt, rule))
    print('Rule %s sent to the services of bus(es) %s.'
          % (jsonutils.dumps(rule, sort_keys=True), ', '.join(buses)))
    return 0


def release(args):
    match = {name: getattr(args, name) for name in
             ('method', 'server', 'instance', 'topic')
             if getattr(args, name) is not None}
    buses = _fanout(lambda api, ctxt: api.chaos_release(
        ctxt, match, discard=args.discard))
    print('Held messages matching %s %s on bus(es) %s.'
          % (jsonutils.dumps(match, sort_keys=True),
             'discarded' if args.discard else 'released', ', '.join(buses)))
    return 0


# REST faults (nova_lite.wsgi.lab_faults): the CLI name of each service.
HTTP_FAULTS = {'placement': 'placement', 'compute-api': 'compute'}
FAULT_CHOICES = service_faults.FAULTS + tuple(HTTP_FAULTS)


def _http_fault(args):
    state = manage_chaos_run.state_dir(args)
    if state is None:
        raise CommandError('no lab state directory: give --state-dir',
                           code=2)
    fault = {'delay': args.delay, 'jitter': args.jitter,
             'error_rate': args.error_rate}
    if args.seconds is not None:
        fault['until'] = time.time() + args.seconds
    try:
        written = lab_faults.write(state, HTTP_FAULTS[args.fault], fault)
    except ValueError as exc:
        raise CommandError('Invalid fault: %s' % exc, code=2)
    print('Fault %s set for %s (state directory %s).'
          % (jsonutils.dumps(written, sort_keys=True), args.fault, state))
    return 0


def fault(args):
    if args.fault in HTTP_FAULTS:
        return _http_fault(args)
    if args.all == (args.host is not None):
        raise CommandError('give --host or --all', code=2)
    if args.all and args.fault != 'database':
        raise CommandError('--all: only a database fault', code=2)
    applied = {'fault': args.fault,
               'host': service_faults.EVERY_HOST if args.all else args.host}
    if args.fault == 'database':
        if args.jitter is not None:
            raise CommandError('--jitter: only a REST fault', code=2)
        applied.update(delay=args.delay or 0,
                       error_rate=args.error_rate or 0)
        try:
            db_faults.check(applied)
        except ValueError as exc:
            raise CommandError('Invalid fault: %s' % exc, code=2)
    elif args.seconds is not None:
        applied['seconds'] = args.seconds
    buses = _fanout(lambda api, ctxt: api.chaos_fault(ctxt, applied))
    print('Fault %s sent to the services of bus(es) %s.'
          % (jsonutils.dumps(applied, sort_keys=True), ', '.join(buses)))
    return 0


def _controls(args):
    state = manage_chaos_run.state_dir(args)
    if state is None:
        raise CommandError('no lab state directory: give --state-dir',
                           code=2)
    return controls_mod.LabControls(processes.Processes(state), _fanout,
                                    common.admin_context)


def cell_down(args):
    print(_controls(args).freeze_cell(args.cell))
    return 0


def cell_up(args):
    print(_controls(args).thaw_cell(args.cell))
    return 0


def clear(args):
    buses = _fanout(lambda api, ctxt: api.chaos_clear(
        ctxt, discard=args.discard))
    print('Rules cleared (held messages %s) on bus(es) %s.'
          % ('discarded' if args.discard else 'released', ', '.join(buses)))
    state = manage_chaos_run.state_dir(args)
    if state is not None:
        restored = cell_databases.restore(common.admin_context(), state)
        thawed = processes.Processes(state).thaw()
        http = lab_faults.remove(state)
        print('Cell databases given back: %s. Frozen processes thawed: %s. '
              'REST faults removed: %s.'
              % (', '.join(restored) or 'none', ', '.join(thawed) or 'none',
                 ', '.join(http) or 'none'))
    return 0


def _lab_faults(args):
    """``[{'fault', ...}]``: the processes frozen and the cell databases
    cut in the lab (recorded in its state directory)."""
    state = manage_chaos_run.state_dir(args)
    if state is None:
        return []
    return ([{'fault': 'frozen', 'process': name}
             for name in processes.Processes(state).frozen()] +
            [{'fault': 'cell_database_cut', 'cell': name}
             for name in sorted(cell_databases.cut_cells(state))] +
            [dict(f, fault='rest', service=name) for name, f in
             sorted(lab_faults.read(state).items())
             if f.get('until') is None or f['until'] > time.time()])


def _services(ctxt):
    """``[(cell mapping, service row)]`` of every cell with a database."""
    found = []
    for cell in api_db.cell_mapping_get_all(ctxt):
        if cell.uuid == common.CELL0_UUID:
            continue
        try:
            rows = cell_db.service_get_all(common.cell_context(cell))
        except Exception as exc:  # noqa: BLE001 - a cell down is listed
            print('Cell %s: its database does not answer (%s)'
                  % (cell.name, common.first_line(exc)), file=sys.stderr)
            continue
        found.extend((cell, row) for row in rows)
    return found


def _ask(ctxt, buses, topic, host, timeout):
    """The service's answer on the first bus that has it, or None."""
    for transport in buses:
        try:
            return baserpc.BaseAPI(topic, transport=transport).chaos_list(
                ctxt, host, timeout=timeout)
        except (messaging.MessagingTimeout, messaging.MessageUndeliverable):
            # Not on this bus (RabbitMQ refuses a message no queue takes;
            # the in-memory bus lets it wait for the timeout).
            continue
    return None


def list_rules(args):
    ctxt = common.admin_context()
    api_bus = rpc.get_transport()
    answers = []
    for cell, row in _services(ctxt):
        cell_bus = rpc.get_cell_transport(cell.transport_url)
        # A service recorded in a cell database listens on that cell's
        # bus, or on the API bus (scheduler, super conductor).
        buses = [b for b in (cell_bus, api_bus) if b is not None]
        answer = _ask(ctxt, list(dict.fromkeys(buses)), row.topic, row.host,
                      args.timeout)
        answers.append((cell.name, row, answer))
    lab = _lab_faults(args)
    if args.json:
        print(jsonutils.dumps([
            {'cell': name, 'host': row.host, 'binary': row.binary,
             'answered': answer is not None,
             'rules': (answer or {}).get('rules', []),
             'held': (answer or {}).get('held', []),
             'faults': (answer or {}).get('faults', [])}
            for name, row, answer in answers] + lab,
            indent=2, sort_keys=True))
        return 0
    rows = []
    for name, row, answer in answers:
        if answer is None:
            rows.append((name, row.host, row.binary, 'no answer', '-',
                         '-'))
            continue
        rules = '; '.join(_describe(r) for r in answer['rules']) or '-'
        faults = ', '.join(_describe_fault(f)
                           for f in answer.get('faults', []))
        rows.append((name, row.host, row.binary, rules,
                     len(answer['held']), faults or '-'))
    common.print_table(('Cell', 'Host', 'Binary', 'Rules', 'Held',
                        'Faults'), rows)
    for lab_fault in lab:
        if lab_fault['fault'] == 'rest':
            print('Lab fault: rest %s delay=%s jitter=%s error_rate=%s'
                  % tuple(lab_fault[k] for k in (
                      'service', 'delay', 'jitter', 'error_rate')))
            continue
        print('Lab fault: %s %s' % (lab_fault['fault'], lab_fault.get(
            'process', lab_fault.get('cell'))))
    return 0


def _describe_fault(fault):
    if fault['fault'] == 'database':
        return 'database(delay=%s error_rate=%s)' % (fault['delay'],
                                                    fault['error_rate'])
    return fault['fault']


def _describe(rule):
    keys = ('bus', 'topic', 'server', 'method', 'instance')
    matched = ' '.join('%s=%s' % (k, rule[k]) for k in keys if k in rule)
    left = '' if rule['left'] is None else ' left=%d' % rule['left']
    return '#%d %s@%s %s%s' % (rule['id'], rule['action'], rule['at'],
                               matched or 'everything', left)


def build_parser(categories):
    chaos = categories.add_parser(
        'chaos', help='RPC rules, lab faults and scenarios in a running '
        'lab (doc/chaos.md)')
    acts = chaos.add_subparsers(dest='action', required=True,
                                metavar='ACTION', parser_class=common.Parser)
    add_p = acts.add_parser('add', help='add a rule in every service')
    add_p.add_argument('rule_action', choices=rpc_rules.ACTIONS,
                       metavar='ACTION', help='|'.join(rpc_rules.ACTIONS))
    add_p.add_argument('--at', choices=rpc_rules.POINTS, default='send')
    for name in ('bus', 'topic', 'server', 'method', 'instance'):
        add_p.add_argument('--' + name, help='match on the %s' % name)
    add_p.add_argument('--count', type=int, help='the next N matches')
    add_p.add_argument('--window', type=float, help='for S seconds')
    add_p.add_argument('--seconds', type=float, help='delay: how long')
    add_p.add_argument('--error', choices=rpc_rules.ERRORS,
                       help='fail: what the caller of a call sees')
    add_p.set_defaults(func=add)
    list_p = acts.add_parser('list', help="every service's rules and held "
                             'messages')
    list_p.add_argument('--json', action='store_true')
    list_p.add_argument('--timeout', type=int, default=5,
                        help='seconds to wait for each service')
    list_p.add_argument('--state-dir', help="the lab's state directory "
                        '(its frozen processes)')
    list_p.set_defaults(func=list_rules)
    release_p = acts.add_parser('release', help='let held messages go')
    for name in ('topic', 'server', 'method', 'instance'):
        release_p.add_argument('--' + name, help='only those of this %s'
                               % name)
    release_p.add_argument('--discard', action='store_true',
                           help='drop them instead')
    release_p.set_defaults(func=release)
    fault_p = acts.add_parser('fault', help='a lab fault in the service '
                              'of one host, or of a REST service')
    fault_p.add_argument('fault', choices=FAULT_CHOICES, metavar='FAULT',
                         help='|'.join(FAULT_CHOICES))
    fault_p.add_argument('--host', help='the host of the service')
    fault_p.add_argument('--all', action='store_true',
                         help='database: every service')
    fault_p.add_argument('--seconds', type=float,
                         help='partition: how long (default 30); '
                         'placement|compute-api: ends by itself after S '
                         'seconds (default: at chaos clear)')
    fault_p.add_argument('--delay', type=float,
                         help='database|placement|compute-api: seconds '
                         'each statement or request waits')
    fault_p.add_argument('--jitter', type=float,
                         help='placement|compute-api: plus up to S '
                         'seconds, uniform random')
    fault_p.add_argument('--error-rate', type=float,
                         help='database|placement|compute-api: the '
                         'fraction (0-1) failing (lost connection, 503)')
    fault_p.add_argument('--state-dir', help="placement|compute-api: the "
                         "lab's state directory")
    fault_p.set_defaults(func=fault)
    for name, func, what in (
            ('cell-down', cell_down, "cut the cell's database for the "
             'API and freeze its conductor and computes'),
            ('cell-up', cell_up, 'undo cell-down')):
        cell_p = acts.add_parser(name, help=what)
        cell_p.add_argument('cell', metavar='CELL', help="the cell's name")
        cell_p.add_argument('--state-dir', help="the lab's state directory")
        cell_p.set_defaults(func=func)
    clear_p = acts.add_parser('clear', help='remove every rule everywhere')
    clear_p.add_argument('--discard', action='store_true',
                         help='drop the held messages instead of '
                         'releasing them')
    clear_p.add_argument('--state-dir', help="the lab's state directory "
                         '(its frozen processes are thawed)')
    clear_p.set_defaults(func=clear)
    manage_chaos_run.add_parser(acts, _fanout)
