"""nova-lite-manage sim: what-if scheduling (doc/simulation.md).

::

    sim import (--placement-url URL [--compute-url URL] [auth] |
                --from-json FILE) -o SNAPSHOT
    sim record --compute-url URL [auth] -o TRACE [--since TIME]
    sim synthetic [--hosts N] [--zones N] -o SNAPSHOT
    sim generate --snapshot S -o TRACE [--events N] [--rate R]
                 [--lifetime S] [--flavor-mix NAME=W,...] [--seed N]
    sim run --snapshot S --workload W --config A.conf [--config B.conf]
            [-o DIR] [--seed N] [--samples N]
    sim report DIR

Auth of ``import`` is the OpenStack client's: ``--os-token``, or
``--os-auth-url`` with ``--os-username``, ``--os-password``,
``--os-project-name`` (and the domains), each defaulting to its ``OS_*``
environment variable.
"""

import json
import os
import sys
import tempfile

from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite import objects
from nova_lite.sim import config as sim_config
from nova_lite.sim import importer
from nova_lite.sim import recorder
from nova_lite.sim import report
from nova_lite.sim import report_html
from nova_lite.sim import runner
from nova_lite.sim import snapshot
from nova_lite.sim import synthetic
from nova_lite.sim import workload


def _env(name, default=None):
    return os.environ.get(name, default)


def _token(args):
    if args.os_auth_url:
        return importer.keystone_token(
            args.os_auth_url, args.os_username, args.os_password,
            args.os_project_name, args.os_user_domain_name,
            args.os_project_domain_name)
    return args.os_token or 'admin'


def sim_import(args):
    try:
        if args.from_json:
            doc = snapshot.load(args.from_json)
        elif args.placement_url:
            doc = importer.import_cloud(args.placement_url, _token(args),
                                        args.compute_url)
        else:
            raise CommandError('Give --placement-url or --from-json.',
                               code=2)
    except (snapshot.SnapshotError, importer.SourceError, OSError) as err:
        raise CommandError(str(err))
    snapshot.save(doc, args.output)
    print('%d providers (%d hosts), %d flavors, %d aggregates, '
          '%d hypervisors -> %s' % (
              len(doc['providers']), len(snapshot.hosts(doc)),
              len(doc['flavors']), len(doc['aggregates']),
              len(doc['hypervisors']), args.output))


def sim_generate(args):
    try:
        doc = snapshot.load(args.snapshot)
        names = [f['name'] for f in doc['flavors']]
        if not names:
            raise CommandError('The snapshot has no flavors to draw from '
                               '(import with --compute-url, or add them).')
        mix = workload.parse_mix(args.flavor_mix, names)
        events = workload.generate(mix, args.events, args.rate,
                                   args.lifetime, args.projects, args.seed,
                                   args.end_at_last_create)
        workload.save(events, args.output)
    except (snapshot.SnapshotError, workload.WorkloadError, OSError) as err:
        raise CommandError(str(err))
    print('%d events (%d creates) -> %s' % (
        len(events), args.events, args.output))


def sim_record(args):
    since = None
    if args.since:
        try:
            since = recorder._parse_time(args.since)
        except ValueError:
            raise CommandError('--since: not an ISO 8601 time: %s'
                               % args.since, code=2)
    try:
        events, warnings = recorder.record(args.compute_url, _token(args),
                                           since=since)
        workload.save(events, args.output)
    except (importer.SourceError, OSError) as err:
        raise CommandError(str(err))
    for warning in warnings:
        print('WARNING: %s' % warning, file=sys.stderr)
    counts = {}
    for event in events:
        counts[event['action']] = counts.get(event['action'], 0) + 1
    print('%d events (%s) -> %s' % (len(events), ', '.join(
        '%d %s' % (n, a) for a, n in sorted(counts.items())) or 'none',
        args.output))


def _build_record(acts):
    rec = acts.add_parser('record', help="write a cloud's workload as a "
                          'trace (from its instance actions)')
    rec.add_argument('--compute-url', required=True,
                     help='compute API endpoint (read as an admin)')
    _add_auth(rec)
    rec.add_argument('--since', metavar='TIME',
                     help='only servers created at or after this ISO 8601 '
                     'time (UTC)')
    rec.add_argument('-o', '--output', required=True, metavar='TRACE')
    rec.set_defaults(func=sim_record)


def _build_generate(acts):
    gen = acts.add_parser('generate', help='write a synthetic workload')
    gen.add_argument('--snapshot', required=True,
                     help='its flavors are drawn from')
    gen.add_argument('-o', '--output', required=True, metavar='TRACE')
    gen.add_argument('--events', type=int, default=1000,
                     help='servers created (default 1000)')
    gen.add_argument('--rate', type=float, default=1.0,
                     help='mean creates per simulated second (default 1)')
    gen.add_argument('--lifetime', type=float, default=0,
                     help='mean seconds a server lives (exponential); 0 '
                     '(default): never deleted')
    gen.add_argument('--flavor-mix', metavar='NAME=WEIGHT,...',
                     help='default: every flavor of the snapshot, equally')
    gen.add_argument('--end-at-last-create', action='store_true',
                     help='leave out deletes after the last create (the '
                     'servers alive then stay to the end)')
    gen.add_argument('--projects', type=int, default=1)
    gen.add_argument('--seed', type=int, default=0)
    gen.set_defaults(func=sim_generate)


def sim_run(args):
    objects.register_all()
    try:
        doc = snapshot.load(args.snapshot)
        events = workload.load(args.workload)
        runner.check_flavors(events, doc)
        for path in args.config:
            sim_config.read(path)
    except (snapshot.SnapshotError, workload.WorkloadError,
            sim_config.ConfigError, OSError) as err:
        raise CommandError(str(err))
    os.makedirs(args.output, exist_ok=True)
    reports, taken = [], set()
    with tempfile.TemporaryDirectory(prefix='nova-lite-sim-') as workdir:
        seeded, refused = runner.seed_database(doc, workdir)
        if refused:
            print('WARNING: placement refused the usages of %d provider '
                  'trees (over their inventory); they start empty'
                  % refused, file=sys.stderr)
        for path in args.config:
            name = runner.run_name(path, taken)
            try:
                rep = runner.run_one(
                    doc, events, path, seeded, workdir, name, args.seed,
                    os.path.join(args.output, name + '.decisions.jsonl'),
                    args.samples, exact=args.exact)
            except sim_config.ConfigError as err:
                raise CommandError(str(err))
            _write(os.path.join(args.output, name + '.json'), rep)
            reports.append(rep)
            print('%s: %d placed, %d NoValidHost, %.1f decisions/s' % (
                name, rep['placed'], rep['no_valid_host'],
                rep['decisions_per_second'] or 0))
    comparison = None
    if len(reports) > 1:
        comparison = report.compare(reports)
        _write(os.path.join(args.output, 'comparison.json'), comparison)
        print(report.format_table(comparison))
    _write_html(args.output, reports, comparison)
    print('reports in %s' % args.output)


def _write_html(directory, reports, comparison):
    path = os.path.join(directory, 'report.html')
    with open(path, 'w') as f:
        f.write(report_html.render(
            reports, comparison, 'nova-lite sim: %s' % ' vs '.join(
                r['name'] for r in reports)))
    return path


def sim_report(args):
    """report.html again from a ``sim run`` directory's JSON."""
    reports = []
    try:
        names = sorted(os.listdir(args.directory))
    except OSError as err:
        raise CommandError(str(err))
    for name in names:
        if name.endswith('.json') and name != 'comparison.json':
            with open(os.path.join(args.directory, name)) as f:
                doc = json.load(f)
            if 'outcomes' in doc:
                reports.append(doc)
    if not reports:
        raise CommandError('No run report (NAME.json) in %s.'
                           % args.directory)
    comparison = report.compare(reports) if len(reports) > 1 else None
    print(_write_html(args.directory, reports, comparison))


def sim_synthetic(args):
    if args.hosts < 1 or args.zones < 1:
        raise CommandError('--hosts and --zones must be at least 1.',
                           code=2)
    doc = synthetic.cloud(args.hosts, args.zones)
    snapshot.save(doc, args.output)
    print('%d hosts in %d zones, %d flavors -> %s' % (
        args.hosts, max(1, len(doc['aggregates'])), len(doc['flavors']),
        args.output))


def _build_synthetic(acts):
    syn = acts.add_parser('synthetic', help='write the snapshot of a '
                          'synthetic cloud (identical hosts)')
    syn.add_argument('--hosts', type=int, default=1000)
    syn.add_argument('--zones', type=int, default=2,
                     help='availability zones, one aggregate each '
                     '(default 2)')
    syn.add_argument('-o', '--output', required=True, metavar='SNAPSHOT')
    syn.set_defaults(func=sim_synthetic)


def _build_report(acts):
    rep = acts.add_parser('report', help='write report.html of a sim run '
                          'directory again')
    rep.add_argument('directory', help='the -o directory of sim run')
    rep.set_defaults(func=sim_report)


def _write(path, doc):
    with open(path, 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write('\n')


def _build_run(acts):
    run = acts.add_parser('run', help='replay a workload per configuration')
    run.add_argument('--snapshot', required=True)
    run.add_argument('--workload', required=True, metavar='TRACE')
    run.add_argument('--config', action='append', required=True,
                     metavar='CONF', help='a scheduler configuration file '
                     '(repeat to compare)')
    run.add_argument('-o', '--output', default='sim-report', metavar='DIR',
                     help='where the reports go (default sim-report)')
    run.add_argument('--seed', type=int, default=0,
                     help='seeds every random draw of a run (default 0)')
    run.add_argument('--samples', type=int, default=20,
                     help='utilisation readings over the trace (default '
                     '20)')
    run.add_argument('--exact', action='store_true',
                     help='every create through the whole scheduler '
                     'request and placement query (no incremental fast '
                     'path; same decisions, much slower)')
    run.set_defaults(func=sim_run)


def _add_auth(parser):
    for name, env in (('token', 'OS_TOKEN'), ('auth-url', 'OS_AUTH_URL'),
                      ('username', 'OS_USERNAME'),
                      ('password', 'OS_PASSWORD'),
                      ('project-name', 'OS_PROJECT_NAME')):
        parser.add_argument('--os-' + name, default=_env(env),
                            help='default: $%s' % env)
    parser.add_argument('--os-user-domain-name',
                        default=_env('OS_USER_DOMAIN_NAME', 'Default'))
    parser.add_argument('--os-project-domain-name',
                        default=_env('OS_PROJECT_DOMAIN_NAME', 'Default'))


def _build_import(acts):
    imp = acts.add_parser('import', help='write a snapshot of a cloud')
    src = imp.add_mutually_exclusive_group(required=True)
    src.add_argument('--placement-url', help='any Placement API endpoint')
    src.add_argument('--from-json', metavar='FILE',
                     help='a snapshot-shaped JSON file (validated, filled)')
    imp.add_argument('--compute-url',
                     help='compute API endpoint (flavors, aggregates, '
                     'hypervisors)')
    _add_auth(imp)
    imp.add_argument('-o', '--output', required=True, metavar='SNAPSHOT')
    imp.set_defaults(func=sim_import)


def build_parser(categories):
    sim = categories.add_parser('sim', help='what-if scheduling')
    acts = sim.add_subparsers(dest='action', required=True, metavar='ACTION',
                              parser_class=common.Parser)
    _build_import(acts)
    _build_record(acts)
    _build_synthetic(acts)
    _build_generate(acts)
    _build_run(acts)
    _build_report(acts)
    return acts


