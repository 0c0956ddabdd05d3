"""nova-lite-manage cell_v2: cell mappings and host discovery.

``map_cell0``, ``create_cell``, ``list_cells``, ``update_cell``,
``delete_cell``, ``discover_hosts``, ``list_hosts`` and ``delete_host``,
with nova-manage's arguments and exit codes (see
:mod:`nova_lite.cmd.manage`).
"""

import os
import sys

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_messaging import opts as messaging_opts

from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite import conf as nl_conf
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api as cell_instance_db
from nova_lite.db import host_discovery
from nova_lite.db import migration
from nova_lite.db import session
from nova_lite import exception

CONF = nl_conf.CONF
CELL0_UUID = common.CELL0_UUID
CELL0_NAME = common.CELL0_NAME
CELL0_TRANSPORT_URL = common.CELL0_TRANSPORT_URL
COMPUTE_BINARY = common.COMPUTE_BINARY


def cell0_url(connection):
    """Nova's default cell0 URL: the main database's name + ``_cell0``.

    A SQLite file ``/d/nova.sqlite`` gives ``/d/nova_cell0.sqlite``.
    """
    url = common.validate_db_url(connection)
    if url.get_backend_name() == 'sqlite':
        if not session.is_sqlite_file(connection):
            raise CommandError('An in-memory SQLite database cannot hold '
                               'cell0; pass --database_connection.')
        root, ext = os.path.splitext(url.database)
        return url.set(database=root + '_cell0' + (ext or '.sqlite')
                       ).render_as_string(hide_password=False)
    if not url.database:
        raise CommandError('[database] connection names no database.')
    return url.set(database=url.database + '_cell0').render_as_string(
        hide_password=False)


def map_cell0(args):
    ctx = common.admin_context()
    try:
        api_db.cell_mapping_get_by_uuid(ctx, CELL0_UUID)
        print('Cell0 is already setup')
        return 0
    except exception.CellMappingNotFound:
        pass
    url = args.database_connection
    if url:
        common.validate_db_url(url)
    elif CONF.database.connection:
        url = cell0_url(CONF.database.connection)
    else:
        raise CommandError('No [database] connection is configured; pass '
                           '--database_connection for cell0.')
    migration.db_sync(url, 'cell')
    api_db.cell_mapping_create(ctx, {
        'uuid': CELL0_UUID, 'name': CELL0_NAME,
        'transport_url': CELL0_TRANSPORT_URL, 'database_connection': url})
    return 0


def _default_transport_url():
    """``[DEFAULT] transport_url`` (oslo.messaging registers it lazily)."""
    try:
        return CONF.transport_url
    except cfg.NoSuchOptError:
        for group, opts in messaging_opts.list_opts():
            if group is None:
                CONF.register_opts(opts)
        return CONF.transport_url


def create_cell(args):
    ctx = common.admin_context()
    transport_url = args.transport_url or _default_transport_url()
    if not transport_url:
        raise CommandError('Must specify --transport-url if '
                           '[DEFAULT] transport_url is not set.')
    if '://' not in transport_url:
        raise CommandError('Invalid transport URL: %r' % transport_url)
    db_url = args.database_connection or CONF.database.connection
    if not db_url:
        raise CommandError('Must specify --database_connection if '
                           '[database] connection is not set.')
    common.validate_db_url(db_url)
    for cell in api_db.cell_mapping_get_all(ctx):
        if (cell.transport_url == transport_url and
                cell.database_connection == db_url):
            raise CommandError(
                'The specified transport_url and/or database_connection '
                'combination already exists for another cell with uuid '
                '%s.' % cell.uuid, code=2)
        if args.name and cell.name == args.name:
            raise CommandError('A cell named %s already exists with uuid '
                               '%s.' % (args.name, cell.uuid), code=2)
    cell = api_db.cell_mapping_create(ctx, {
        'name': args.name, 'transport_url': transport_url,
        'database_connection': db_url, 'disabled': args.disabled})
    if args.verbose:
        print(cell.uuid)
    return 0


def list_cells(args):
    cells = api_db.cell_mapping_get_all(common.admin_context())
    show = (lambda u: u) if args.verbose else common.mask_password
    common.print_table(
        ['Name', 'UUID', 'Transport URL', 'Database Connection', 'Disabled'],
        [[c.name or '', c.uuid, show(c.transport_url),
          show(c.database_connection), c.disabled] for c in cells])
    return 0


def _update_values(args):
    values = {}
    if args.name:
        values['name'] = args.name
    if args.transport_url:
        values['transport_url'] = args.transport_url
    if args.database_connection:
        common.validate_db_url(args.database_connection)
        values['database_connection'] = args.database_connection
    if args.enable or args.disable:
        values['disabled'] = bool(args.disable)
    return values


def update_cell(args):
    ctx = common.admin_context()
    cell = common.get_cell(ctx, args.cell_uuid)
    if args.enable and args.disable:
        raise CommandError('Cell cannot be disabled and enabled at the same '
                           'time.', code=4)
    if cell.uuid == CELL0_UUID and (args.disable or args.transport_url):
        raise CommandError('Cell0 cannot be disabled or given a transport '
                           'URL.', code=4)
    values = _update_values(args)
    wanted = (values.get('transport_url', cell.transport_url),
              values.get('database_connection', cell.database_connection))
    for other in api_db.cell_mapping_get_all(ctx):
        if other.uuid != cell.uuid and wanted == (
                other.transport_url, other.database_connection):
            raise CommandError('The specified transport_url and/or '
                               'database_connection combination already '
                               'exists for another cell with uuid %s.' %
                               other.uuid, code=3)
    if values:
        api_db.cell_mapping_update(ctx, cell.uuid, values)
    return 0


def delete_cell(args):
    ctx = common.admin_context()
    cell = common.get_cell(ctx, args.cell_uuid)
    hosts = api_db.host_mapping_get_all(ctx, cell_id=cell.id)
    if hosts and not args.force:
        raise CommandError('There are existing hosts mapped to cell with '
                           'uuid %s.' % cell.uuid, code=2)
    if api_db.instance_mapping_count_by_cell(ctx, cell.id):
        raise CommandError('There are existing instances mapped to cell '
                           'with uuid %s.' % cell.uuid, code=3)
    for mapping in hosts:
        api_db.host_mapping_delete(ctx, mapping.host)
    for mapping in api_db.instance_mapping_get_by_project(
            ctx, cell_id=cell.id):
        api_db.instance_mapping_delete(ctx, mapping.instance_uuid)
    api_db.cell_mapping_delete(ctx, cell.uuid)
    return 0


# -- cell_v2: hosts ---------------------------------------------------------

def _cells_to_discover(ctx, cell_uuid):
    if cell_uuid:
        cells = [common.get_cell(ctx, cell_uuid)]
    else:
        cells = api_db.cell_mapping_get_all(ctx)
    return [c for c in cells if c.uuid != CELL0_UUID]


def discover_hosts(args):
    ctx = common.admin_context()
    cells = _cells_to_discover(ctx, args.cell_uuid)
    if args.verbose:
        print('Found %d cell mappings.' % len(cells))
    added, conflicts, unreachable = [], [], []
    for cell in cells:
        if args.verbose:
            print('Getting computes from cell %s: %s' % (
                cell.name or '', cell.uuid))
        try:
            new, bad = host_discovery.discover_in_cell(
                ctx, cell, common.cell_context(cell), args.by_service,
                report=print if args.verbose else None)
        except (db_exc.DBError, exception.DBNotAvailable) as exc:
            print('ERROR: cell %s (%s) cannot be reached: %s' % (
                cell.name or '', cell.uuid, common.first_line(exc)),
                file=sys.stderr)
            unreachable.append(cell.uuid)
            continue
        added += new
        conflicts += bad
    if conflicts:
        raise CommandError('Hosts already mapped to another cell: %s' %
                           ', '.join(sorted(set(conflicts))), code=2)
    if unreachable:
        return 1
    if args.strict and not added:
        return 1
    return 0


def list_hosts(args):
    ctx = common.admin_context()
    cells = ([common.get_cell(ctx, args.cell_uuid)] if args.cell_uuid
             else api_db.cell_mapping_get_all(ctx))
    by_id = {c.id: c for c in cells}
    rows = [[by_id[m.cell_id].name or '', by_id[m.cell_id].uuid, m.host]
            for m in api_db.host_mapping_get_all(ctx)
            if m.cell_id in by_id]
    common.print_table(['Cell Name', 'Cell UUID', 'Hostname'], rows)
    return 0


def delete_host(args):
    ctx = common.admin_context()
    cell = common.get_cell(ctx, args.cell_uuid)
    try:
        mapping = api_db.host_mapping_get_by_host(ctx, args.host)
    except exception.HostMappingNotFound:
        raise CommandError('The host %s was not found.' % args.host, code=3)
    if mapping.cell_id != cell.id:
        raise CommandError('The host %s was not found in the cell %s.' % (
            args.host, cell.uuid), code=4)
    cctx = common.cell_context(cell)
    if cell_instance_db.instance_count_by_host(cctx, args.host):
        raise CommandError('There are instances on the host %s.' %
                           args.host, code=5)
    nodes = [n.id for n in cell_db.compute_node_get_all(cctx)
             if n.host == args.host]
    cell_db.compute_node_mark_unmapped(cctx, nodes)
    api_db.host_mapping_delete(ctx, args.host)
    return 0


# -- command line -----------------------------------------------------------


def build_parser(categories):
    cell_v2 = categories.add_parser('cell_v2', help='cells v2 mappings')
    acts = cell_v2.add_subparsers(dest='action', required=True,
                                  metavar='ACTION')
    p = acts.add_parser('map_cell0', help='map (and sync) cell0')
    common.add_db_connection(p, 'default: [database] connection + "_cell0"')
    p.set_defaults(func=map_cell0)

    p = acts.add_parser('create_cell', help='map a new cell')
    p.add_argument('--name', help='the name of the cell')
    p.add_argument('--transport-url', '--transport_url', dest='transport_url',
                   help='default: [DEFAULT] transport_url')
    common.add_db_connection(p, 'default: [database] connection')
    p.add_argument('--verbose', action='store_true', help='print the uuid')
    p.add_argument('--disabled', action='store_true',
                   help='schedulers skip a disabled cell')
    p.set_defaults(func=create_cell)

    p = acts.add_parser('list_cells', help='list the cell mappings')
    p.add_argument('--verbose', action='store_true',
                   help='show URLs with their passwords')
    p.set_defaults(func=list_cells)

    p = acts.add_parser('update_cell', help='change a cell mapping')
    common.add_cell_uuid(p, required=True)
    p.add_argument('--name')
    p.add_argument('--transport-url', '--transport_url', dest='transport_url')
    common.add_db_connection(p, 'the new database URL')
    p.add_argument('--disable', action='store_true')
    p.add_argument('--enable', action='store_true')
    p.set_defaults(func=update_cell)

    p = acts.add_parser('delete_cell', help='remove an empty cell mapping')
    common.add_cell_uuid(p, required=True)
    p.add_argument('--force', action='store_true',
                   help='also delete the host mappings of the cell')
    p.set_defaults(func=delete_cell)

    p = acts.add_parser('discover_hosts', help='map new compute hosts')
    common.add_cell_uuid(p)
    p.add_argument('--verbose', action='store_true')
    p.add_argument('--strict', action='store_true',
                   help='exit 1 when no new host was mapped')
    p.add_argument('--by-service', '--by_service', dest='by_service',
                   action='store_true',
                   help='find hosts by %s services, not compute nodes' %
                   COMPUTE_BINARY)
    p.set_defaults(func=discover_hosts)

    p = acts.add_parser('list_hosts', help='list the host mappings')
    common.add_cell_uuid(p)
    p.set_defaults(func=list_hosts)

    p = acts.add_parser('delete_host', help='unmap a host with no instances')
    common.add_cell_uuid(p, required=True)
    p.add_argument('--host', required=True)
    p.set_defaults(func=delete_host)
