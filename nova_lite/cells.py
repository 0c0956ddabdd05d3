"""Reaching cells: targeting a context at one, reading many at once.

:func:`target_cell` gives a copy of a request context that carries a
cell's database handle and bus (``set_target_cell`` sets them on a
context in place). It lives here, not in ``nova_lite.context``, which
imports neither the database nor the RPC layer.

API-level code that needs data from every cell (services, hypervisors,
migrations, servers) runs one function per cell in parallel, each with a
context targeted at that cell, and gets ``{cell_uuid: result}``. A cell
that raised maps to the exception, a cell that did not answer within
``[api] cell_timeout`` seconds to :data:`DID_NOT_RESPOND`; callers decide
whether to skip such a cell (with a warning) or to show minimal records.

Example::

    results = cells.scatter_gather(context, cells.get_cells(context),
                                   cell_db.service_get_all)
    for cell_uuid, services in cells.successful(results):
        ...
"""

from concurrent import futures
import contextlib
import copy
import time

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.db.api import api as api_db
from nova_lite.db import session as db_session
from nova_lite import exception
from nova_lite import rpc

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

CELL0_UUID = api_db.CELL0_UUID


class _DidNotRespond:
    def __repr__(self):
        return '<did not respond>'


DID_NOT_RESPOND = _DidNotRespond()


def is_failure(result):
    """True for a cell that raised or did not answer."""
    return result is DID_NOT_RESPOND or isinstance(result, Exception)


def get_cells(context, include_cell0=True):
    """The cell mappings, cell0 first (unless left out), then by id."""
    cells = api_db.cell_mapping_get_all(context)
    if not include_cell0:
        cells = [c for c in cells if c.uuid != CELL0_UUID]
    return cells


def set_target_cell(context, cell_mapping):
    """Point ``context`` at ``cell_mapping``'s database and bus.

    ``cell_mapping`` needs ``uuid``, ``database_connection`` and
    ``transport_url``; ``None`` untargets the context.
    """
    if cell_mapping is None:
        context.cell_uuid = context.db_connection = None
        context.mq_connection = None
        return
    context.cell_uuid = cell_mapping.uuid
    context.db_connection = db_session.get_cell_context_manager(
        cell_mapping.database_connection)
    context.mq_connection = rpc.get_cell_transport(
        cell_mapping.transport_url)


@contextlib.contextmanager
def target_cell(context, cell_mapping):
    """Yield a copy of ``context`` targeted at ``cell_mapping``."""
    cctxt = copy.copy(context)
    set_target_cell(cctxt, cell_mapping)
    yield cctxt


@contextlib.contextmanager
def waiting(seconds):
    """A cell read in the body that the caller waits for ``seconds`` at
    most: a database that refuses connections (its node is down) is
    retried ([database] transient_retry_timeout) for no longer."""
    with db_session.retries_until(time.monotonic() + seconds):
        yield


def _run_in_cell(context, cell, fn, args, kwargs, timeout):
    with waiting(timeout), target_cell(context, cell) as cctxt:
        return fn(cctxt, *args, **kwargs)


def scatter_gather(context, cell_mappings, fn, *args, timeout=None,
                   **kwargs):
    """Run ``fn(cell_context, *args, **kwargs)`` in every cell at once.

    Returns ``{cell_uuid: result, exception or DID_NOT_RESPOND}``. The
    work of a cell that times out keeps running in the background; its
    result is dropped.
    """
    cell_mappings = list(cell_mappings)
    if not cell_mappings:
        return {}
    timeout = CONF.api.cell_timeout if timeout is None else timeout
    results = {cell.uuid: DID_NOT_RESPOND for cell in cell_mappings}
    executor = futures.ThreadPoolExecutor(
        max_workers=len(cell_mappings), thread_name_prefix='scatter')
    try:
        pending = {executor.submit(_run_in_cell, context, cell, fn, args,
                                   kwargs, timeout): cell
                   for cell in cell_mappings}
        done, not_done = futures.wait(pending, timeout=timeout)
        for future in done:
            cell = pending[future]
            try:
                results[cell.uuid] = future.result()
            except exception.NotFound as exc:
                # NOTE(nova_lite): looking for one item in every cell
                # misses in all cells but one; that is not worth a warning.
                results[cell.uuid] = exc
            except Exception as exc:  # noqa: BLE001 - reported per cell
                LOG.warning('Cell %s (%s) failed: %s', cell.name,
                            cell.uuid, exc)
                results[cell.uuid] = exc
        for future in not_done:
            cell = pending[future]
            LOG.warning('Cell %s (%s) did not respond within %ss',
                        cell.name, cell.uuid, timeout)
    finally:
        executor.shutdown(wait=False)
    return results


def scatter_gather_all(context, fn, *args, include_cell0=True, **kwargs):
    """:func:`scatter_gather` over every cell (cell0 unless excluded)."""
    return scatter_gather(context, get_cells(context, include_cell0), fn,
                          *args, **kwargs)


def successful(results):
    """``(cell_uuid, result)`` of the cells that answered, in order."""
    return [(cell_uuid, result) for cell_uuid, result in results.items()
            if not is_failure(result)]


def cell_for_instance(context, instance_uuid):
    """The cell mapping of an instance, None while it is being built.

    Raises InstanceMappingNotFound for an unknown instance.
    """
    mapping = api_db.instance_mapping_get_by_instance_uuid(context,
                                                           instance_uuid)
    return mapping.cell_mapping


def cell_for_host(context, host):
    """The cell mapping of a compute host (HostMappingNotFound)."""
    return api_db.host_mapping_get_by_host(context, host).cell_mapping
