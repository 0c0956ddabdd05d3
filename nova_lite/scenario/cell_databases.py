"""A cell's database made unreachable for everyone who finds it through
the API database, and given back.

Freezing a cell's processes stops its conductor and computes, but the
API still reads the cell's database and lists its servers as if nothing
happened. What makes Nova show a cell as down is the API failing to
reach that database. This module points the cell's mapping at a database
that cannot be opened (a SQLite file under a directory that does not
exist: every query fails at once, without connection retries), so
scatter-gather reads count the cell as failed, as with the database
down. The real connection is kept in ``$STATE/chaos-cell-databases.json``
(mode 600: it holds the password) until :func:`restore` puts it back:
``nova-lite-manage chaos clear`` and ``devstack/unstack.sh`` call it.
"""

import json
import os

from nova_lite.db.api import api as api_db

RECORD_FILE = 'chaos-cell-databases.json'
UNREACHABLE = 'sqlite:////nonexistent-chaos-cell/%s-unreachable.db'


def _record_path(state):
    return os.path.join(state, RECORD_FILE)


def cut(ctxt, state, cell_name):
    """Point ``cell_name``'s mapping at an unreachable database."""
    cell = api_db.cell_mapping_get_by_name(ctxt, cell_name)
    record = cut_cells(state)
    if cell_name not in record:
        record[cell_name] = cell.database_connection
        _write(state, record)
    api_db.cell_mapping_update(ctxt, cell.uuid, {
        'database_connection': UNREACHABLE % cell_name})
    return cell_name


def cut_cells(state):
    """``{cell name: real connection}`` of the cells cut now."""
    try:
        with open(_record_path(state)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def restore(ctxt, state, cell_name=None):
    """Give back the real connection of ``cell_name`` (or of every cell
    cut); the names restored."""
    record = cut_cells(state)
    restored = []
    for name, connection in sorted(record.items()):
        if cell_name not in (None, name):
            continue
        cell = api_db.cell_mapping_get_by_name(ctxt, name)
        api_db.cell_mapping_update(ctxt, cell.uuid,
                                   {'database_connection': connection})
        del record[name]
        restored.append(name)
    _write(state, record)
    return restored


def _write(state, record):
    path = _record_path(state)
    if not record:
        if os.path.exists(path):
            os.unlink(path)
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        json.dump(record, f)
