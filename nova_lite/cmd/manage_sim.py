"""nova-lite-manage sim: what-if scheduling (doc/simulation.md).

::

    sim import (--placement-url URL [--compute-url URL] [auth] |
                --from-json FILE) -o SNAPSHOT
    sim generate --snapshot S -o TRACE [--events N] [--rate R]
                 [--lifetime S] [--flavor-mix NAME=W,...] [--seed N]
    sim run --snapshot S --workload W --config A.conf [--config B.conf]
            [-o REPORT] [--seed N]

Auth of ``import`` is the OpenStack client's: ``--os-token``, or
``--os-auth-url`` with ``--os-username``, ``--os-password``,
``--os-project-name`` (and the domains), each defaulting to its ``OS_*``
environment variable.
"""

import json
import os
import sys

from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite.sim import importer
from nova_lite.sim import snapshot


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
    return acts


def _print_json(doc, stream=sys.stdout):
    json.dump(doc, stream, indent=1, sort_keys=True)
    stream.write('\n')
