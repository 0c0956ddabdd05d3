"""What the nova-lite-manage commands share: errors, contexts, output.

See :mod:`nova_lite.cmd.manage` for the commands themselves.
"""

import argparse

from sqlalchemy.engine import url as sa_url

from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.api import api as api_db
from nova_lite.db import migration
from nova_lite.db import session
from nova_lite import exception

CONF = nl_conf.CONF
CELL0_UUID = api_db.CELL0_UUID
CELL0_NAME = 'cell0'
CELL0_TRANSPORT_URL = 'none:///'
COMPUTE_BINARY = 'nova-lite-compute'


class CommandError(Exception):
    """A failed command: ``message`` for stderr and the exit code."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments in one line (exit code 2)."""

    def error(self, message):
        self.exit(2, '%s: error: %s\n' % (self.prog, message))


# -- helpers ----------------------------------------------------------------

def admin_context():
    return nl_context.get_admin_context()


def cell_context(cell):
    """An admin context on ``cell``'s database (no bus: manage needs none)."""
    ctx = admin_context()
    ctx.cell_uuid = cell.uuid
    ctx.db_connection = session.get_cell_context_manager(
        cell.database_connection)
    return ctx


def mask_password(url):
    try:
        return sa_url.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not an SQLAlchemy URL: mask by hand
        head, sep, tail = url.rpartition('@')
        if not sep or ':' not in head.split('//', 1)[-1]:
            return url
        scheme, _, cred = head.partition('//')
        return '%s//%s:****@%s' % (scheme, cred.split(':', 1)[0], tail)


def print_table(headers, rows):
    columns = zip(headers, *rows, strict=True)
    widths = [max(len(str(v)) for v in col) for col in columns]
    line = '+' + '+'.join('-' * (w + 2) for w in widths) + '+'

    def fmt(row):
        return '|' + '|'.join(' %s ' % str(v).ljust(w)
                              for v, w in zip(row, widths, strict=True)) + '|'
    print('\n'.join([line, fmt(headers), line] +
                    [fmt(r) for r in rows] + [line]))


def validate_db_url(url):
    try:
        parsed = sa_url.make_url(url)
    except Exception:  # noqa: BLE001 - any parse failure is a bad argument
        raise CommandError('Invalid database connection URL: %r' % url)
    return parsed


def get_cell(ctx, cell_uuid):
    try:
        return api_db.cell_mapping_get_by_uuid(ctx, cell_uuid)
    except exception.CellMappingNotFound:
        raise CommandError('Cell with uuid %s was not found.' % cell_uuid)


def required(url, what):
    if not url:
        raise CommandError('No %s is configured.' % what)
    return url


def sync(url, database, what, revision=None):
    migration.db_sync(required(url, what), database, revision or 'head')


def add_db_connection(parser, help_text):
    parser.add_argument('--database_connection', '--database-connection',
                        dest='database_connection', metavar='URL',
                        help=help_text)


def add_version(parser):
    parser.add_argument('version', nargs='?',
                        help='the alembic revision to upgrade to '
                        '(default: head)')


def add_cell_uuid(parser, required=False):
    parser.add_argument('--cell_uuid', '--cell-uuid', dest='cell_uuid',
                        required=required, metavar='UUID',
                        help='the cell to act on')


def first_line(exc):
    """The first line of an error's message, for a one-line report."""
    text = str(getattr(exc, 'message', None) or exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__
