"""nova-lite-manage: schema sync, cell mappings and host discovery.

The operator's tool for the databases, with nova-manage's sub-commands::

    nova-lite-manage [--config-file F ...] [--config-dir D] CATEGORY ACTION

    api_db sync | version
    db sync [--database_connection URL] | version [--database_connection URL]
    placement db sync | heal_allocations | audit
    cell_v2 map_cell0 | create_cell | list_cells | update_cell |
            delete_cell | discover_hosts | list_hosts | delete_host
    scheduler explain SERVER [--json]
    sim import | record | synthetic | generate | run | report
        (doc/simulation.md)
    notifications listen [--topic T] [--pool P] [--json] [--count N]
                         [--timeout S]
    api openapi --service compute|image|network|placement [--missing]
    chaos add ACTION [--at send|dispatch] [--bus B] [--topic T] [--server H]
              [--method M] [--instance UUID] [--count N] [--window S]
              [--seconds S] [--error timeout|remote] | list [--json] |
          release [--method M] [--server H] [--instance U] |
          fault heartbeats|partition --host H [--seconds S] |
          fault database --host H|--all [--delay S] [--error-rate R] |
          fault placement|compute-api [--delay S] [--jitter S]
                [--error-rate R] [--seconds T] [--state-dir DIR] |
          cell-down|cell-up CELL | clear | run FILE [--report F.json]
          (doc/chaos.md)

oslo.config reads ``--config-file``/``--config-dir``; everything else goes
to argparse. Every command can run twice: the second run changes nothing
and says so (``map_cell0``, ``discover_hosts`` return 0; ``create_cell``
refuses a duplicate with 2, as nova-manage does). Errors are one line on
stderr with a non-zero exit code, never a traceback.

Choices where nova-manage leaves room:

* ``map_cell0`` also syncs cell0's schema (as nova's simple_cell_setup does);
  ``create_cell`` does not sync: run ``db sync`` after it.
* ``db sync`` without ``--database_connection`` syncs every mapped cell
  (cell0 included) plus ``[database] connection`` when it is set.
"""

import sys

from oslo_db import exception as db_exc

import nova_lite  # noqa: F401 - selects the concurrency backend first
from nova_lite.cmd import manage_api
from nova_lite.cmd import manage_cell_v2
from nova_lite.cmd import manage_chaos
from nova_lite.cmd import manage_notifications
from nova_lite.cmd import manage_placement
from nova_lite.cmd import manage_scheduler
from nova_lite.cmd import manage_sim
from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite import conf as nl_conf
from nova_lite.db.api import api as api_db
from nova_lite.db import migration
from nova_lite.db import session
from nova_lite import exception
from nova_lite.placement.db import migration as placement_migration

CONF = nl_conf.CONF
CELL0_UUID = common.CELL0_UUID
# cell0's default URL, kept importable from here for scripts and tests.
cell0_url = manage_cell_v2.cell0_url


# -- api_db / db / placement ------------------------------------------------

def api_db_sync(args):
    common.sync(CONF.api_database.connection, 'api',
                '[api_database] connection', args.version)


def api_db_version(args):
    print(_version(CONF.api_database.connection, 'api',
                   '[api_database] connection'))


def _version(url, database, what):
    return migration.version(common.required(url, what), database) or 'None'


def _mapped_cell_urls():
    if not CONF.api_database.connection:
        return []
    return [c.database_connection
            for c in api_db.cell_mapping_get_all(common.admin_context())]


def db_sync(args):
    if args.database_connection:
        common.validate_db_url(args.database_connection)
        urls = [args.database_connection]
    elif args.local_cell:
        urls = [CONF.database.connection] if CONF.database.connection else []
    else:
        urls = _mapped_cell_urls()
        if CONF.database.connection:
            urls.append(CONF.database.connection)
    urls = list(dict.fromkeys(urls))
    if not urls:
        raise CommandError('No cell is mapped and no [database] connection '
                           'is configured.')
    for url in urls:
        migration.db_sync(url, 'cell', args.version or 'head')


def db_version(args):
    url = args.database_connection or CONF.database.connection
    print(_version(url, 'cell', '[database] connection'))


def placement_db_sync(args):
    placement_migration.db_sync(common.required(
        CONF.placement_database.connection,
        '[placement_database] connection'))


# -- cell_v2: mappings ------------------------------------------------------

def _build_api_db_and_db(categories):
    api = categories.add_parser('api_db', help='API database schema')
    acts = api.add_subparsers(dest='action', required=True, metavar='ACTION')
    sync = acts.add_parser('sync', help='upgrade to the latest schema')
    common.add_version(sync)
    sync.set_defaults(func=api_db_sync)
    acts.add_parser('version', help='print the schema revision').set_defaults(
        func=api_db_version)

    db = categories.add_parser('db', help='cell database schema')
    acts = db.add_subparsers(dest='action', required=True, metavar='ACTION')
    sync = acts.add_parser('sync', help='upgrade cell databases')
    common.add_db_connection(sync, 'sync only this database (default: '
                             'every mapped cell and [database] connection)')
    sync.add_argument('--local_cell', '--local-cell', action='store_true',
                      help='sync only [database] connection, not the '
                      'mapped cells')
    common.add_version(sync)
    sync.set_defaults(func=db_sync)
    version = acts.add_parser('version', help='print the schema revision')
    common.add_db_connection(version, 'default: [database] connection')
    version.set_defaults(func=db_version)

    placement = categories.add_parser('placement',
                                      help='placement database')
    acts = placement.add_subparsers(dest='action', required=True,
                                    metavar='ACTION')
    pdb = acts.add_parser('db', help='placement database schema')
    pdb_acts = pdb.add_subparsers(dest='subaction', required=True,
                                  metavar='ACTION')
    pdb_acts.add_parser('sync', help='upgrade to the latest schema'
                        ).set_defaults(func=placement_db_sync)
    manage_placement.build_parser(acts)


def build_parser():
    # NOTE(nova_lite): no abbreviations of the global options, so that a
    # command's own ``--config`` (sim run) is not taken for an
    # abbreviation of --config-file or --config-dir.
    parser = common.Parser(prog='nova-lite-manage', allow_abbrev=False,
                           description='Manage nova_lite databases and '
                           'cells.')
    parser.add_argument('--config-file', action='append', default=[],
                        metavar='PATH', help='configuration file (repeatable)')
    parser.add_argument('--config-dir', metavar='DIR',
                        help='directory of *.conf files')
    categories = parser.add_subparsers(dest='category', required=True,
                                       metavar='CATEGORY',
                                       parser_class=common.Parser)
    _build_api_db_and_db(categories)
    manage_cell_v2.build_parser(categories)
    manage_scheduler.build_parser(categories)
    manage_sim.build_parser(categories)
    manage_notifications.build_parser(categories)
    manage_api.build_parser(categories)
    manage_chaos.build_parser(categories)
    return parser


def _load_config(args):
    config_args = []
    for path in args.config_file:
        config_args += ['--config-file', path]
    if args.config_dir:
        config_args += ['--config-dir', args.config_dir]
    CONF(config_args, project='nova-lite', prog='nova-lite-manage',
         default_config_files=[] if config_args else None)


def main(argv=None):
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        _load_config(args)
        return args.func(args) or 0
    except CommandError as exc:
        print('ERROR: %s' % exc, file=sys.stderr)
        return exc.code
    except (db_exc.CantStartEngineError, exception.NovaLiteException) as exc:
        print('ERROR: %s' % common.first_line(exc), file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        print('ERROR: %s: %s' % (exc.__class__.__name__,
                                 common.first_line(exc)), file=sys.stderr)
        return 1
    finally:
        session.reset()


if __name__ == '__main__':
    sys.exit(main())
