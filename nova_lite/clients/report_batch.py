"""Many provider trees flushed to placement at once.

A compute serving many nodes (an Ironic-like fake driver with 1,000) has
one provider tree per node. Flushing them one write at a time costs three
round trips per new node; :func:`flush_many` does what
:meth:`nova_lite.clients.report.ReportClient.flush` does for one tree, for
all of them, in as few round trips as placement's API allows:

1. new providers: one ``POST /resource_providers`` each (placement has no
   bulk create), the trees in parallel, each tree's providers in order
   (parents first);
2. inventories: every changed inventory of every tree in ``POST
   /reshaper`` calls of up to :data:`RESHAPE_BATCH` providers (a reshape
   with no allocations is a batched inventory write, each provider checked
   against its generation, all or nothing), then one provider listing to
   learn the generations they left. A batch placement refuses (a
   generation moved, inventory in use, a bad value) leaves its providers
   to step 3, which writes them one by one and reports each node's error;
3. the rest (renames, traits, aggregates, deletes, what step 2 left) with
   ``ReportClient.flush`` per tree, the trees in parallel, with its
   conflict handling (re-read, re-diff, re-send only what is missing).

Trees never share a provider, so parallel writes never race on one
provider's generation; the thread pool is bounded (``concurrency``). The
first :class:`PlacementUnreachable` stops every job that has not started
yet (they get the same error): a placement outage costs one connection
timeout per worker, not one per node. A job that fails keeps its error
and its ``flushed`` tree still says what placement holds.
"""

import concurrent.futures
import threading

from oslo_log import log as logging

from nova_lite.clients import placement as placement_client
from nova_lite.provider_tree import diff as provider_tree_diff

LOG = logging.getLogger(__name__)

# Providers whose inventories one POST /reshaper carries at most.
RESHAPE_BATCH = 250
# Fewer inventory writes than this go one by one (PUT .../inventories
# answers the new generation; a reshape needs a listing after it).
RESHAPE_MIN = 3
RESHAPER_MICROVERSION = '1.30'


class FlushJob:
    """One tree to flush: what :meth:`ReportClient.flush` takes.

    After :func:`flush_many`, ``writes`` holds the write requests sent
    for this tree alone and ``error`` the exception that stopped it
    (None when placement holds ``wanted``).
    """

    def __init__(self, key, flushed, wanted, rebuild=None):
        self.key = key
        self.flushed = flushed
        self.wanted = wanted
        self.rebuild = rebuild
        self.writes = 0
        self.error = None

    def __repr__(self):
        return '<FlushJob %s writes=%d error=%r>' % (self.key, self.writes,
                                                     self.error)


class _Stop:
    """Set by the first PlacementUnreachable; later jobs do not start."""

    def __init__(self):
        self.error = None
        self._lock = threading.Lock()

    def set(self, error):
        with self._lock:
            if self.error is None:
                self.error = error


def _run(jobs, func, concurrency, stop):
    """``job.writes += func(job)`` for every job without an error, at
    most ``concurrency`` at a time; errors land in ``job.error``."""
    def one(job):
        if job.error is not None:
            return
        if stop.error is not None:
            job.error = stop.error
            return
        try:
            job.writes += func(job)
        except placement_client.PlacementUnreachable as error:
            job.error = error
            stop.set(error)
        except Exception as error:  # noqa: B902 - reported per job
            job.error = error

    todo = [job for job in jobs if job.error is None]
    if concurrency <= 1 or len(todo) <= 1:
        for job in todo:
            one(job)
        return
    with concurrent.futures.ThreadPoolExecutor(
            max_workers=min(concurrency, len(todo)),
            thread_name_prefix='placement-flush') as pool:
        for _ in pool.map(one, todo):
            pass


def flush_many(report_client, jobs, concurrency=8):
    """Make placement hold each job's ``wanted`` tree.

    :param report_client: a :class:`nova_lite.clients.report.ReportClient`.
    :param jobs: :class:`FlushJob` list; their ``flushed`` trees are
        updated in place as writes succeed.
    :param concurrency: write requests in flight at most.
    :returns: the number of write requests sent (reshapes included).
    """
    stop = _Stop()
    pending = []
    for job in jobs:
        try:
            changes = provider_tree_diff.diff_trees(job.flushed, job.wanted)
        except ValueError as error:
            job.error = error
            continue
        if not changes.is_empty:
            pending.append(job)
    if not pending:
        return 0
    _run(pending, lambda job: report_client.create_new_providers(
        job.flushed, job.wanted), concurrency, stop)
    batch_writes = 0
    if stop.error is None:
        batch_writes = _reshape_inventories(report_client, pending,
                                            concurrency, stop)
    _run(pending, lambda job: report_client.flush(
        job.flushed, job.wanted, rebuild=job.rebuild), concurrency, stop)
    return batch_writes + sum(job.writes for job in jobs)


def _inventory_items(jobs):
    """(job, rp_uuid, inventory) of every inventory change of ``jobs``
    on a provider placement already has."""
    items = []
    for job in jobs:
        if job.error is not None:
            continue
        changes = provider_tree_diff.diff_trees(job.flushed, job.wanted)
        for rp_uuid, inventory in changes.inventories:
            if job.flushed.exists(rp_uuid):
                items.append((job, rp_uuid, inventory))
    return items


def _reshape_inventories(report_client, jobs, concurrency, stop):
    """Step 2 of :func:`flush_many`; the reshapes sent."""
    items = _inventory_items(jobs)
    if len(items) < RESHAPE_MIN:
        return 0
    try:
        for _job, _rp_uuid, inventory in items:
            report_client.ensure_resource_classes(inventory)
    except placement_client.PlacementUnreachable as error:
        stop.set(error)
        return 0
    except placement_client.PlacementError:
        # Step 3 meets the same error, node by node.
        return 0
    batches = [items[i:i + RESHAPE_BATCH]
               for i in range(0, len(items), RESHAPE_BATCH)]
    done = []
    lock = threading.Lock()

    def send(batch):
        given = {rp_uuid: job.flushed.data(rp_uuid).generation
                 for job, rp_uuid, _inv in batch}
        body = {'inventories': {
            rp_uuid: {'resource_provider_generation': given[rp_uuid],
                      'inventories': inventory}
            for _job, rp_uuid, inventory in batch}, 'allocations': {}}
        try:
            report_client.client.request('POST', '/reshaper', body,
                                         microversion=RESHAPER_MICROVERSION)
        except placement_client.PlacementUnreachable as error:
            stop.set(error)
            return
        except placement_client.PlacementError as error:
            LOG.info('A batch of %d inventory writes was refused (%s); '
                     'writing them one by one', len(batch), error)
            return
        with lock:
            done.append((batch, given))

    workers = max(1, min(concurrency, len(batches)))
    if workers == 1:
        for batch in batches:
            send(batch)
    else:
        with concurrent.futures.ThreadPoolExecutor(
                max_workers=workers,
                thread_name_prefix='placement-reshape') as pool:
            for _ in pool.map(send, batches):
                pass
    if done:
        _record_reshaped(report_client, done, stop)
    return len(batches)


def _record_reshaped(report_client, done, stop):
    """Learn the generations the reshapes left from one listing; a
    provider someone else changed meanwhile is re-read."""
    try:
        listing = report_client.list_providers()
    except placement_client.PlacementClientError as error:
        # NOTE(nova_lite): the flushed trees keep the old generations:
        # the next write to them meets a conflict, re-reads and converges.
        if isinstance(error, placement_client.PlacementUnreachable):
            stop.set(error)
        for batch, _given in done:
            for job, _rp_uuid, _inventory in batch:
                job.error = error
        return
    current = {p['uuid']: p['generation'] for p in listing}
    for batch, given in done:
        for job, rp_uuid, inventory in batch:
            # NOTE(nova_lite): a reshape bumps a provider's generation
            # once for the interim inventories (when any are sent) and
            # once for the final ones.
            expected = given[rp_uuid] + (2 if inventory else 1)
            if current.get(rp_uuid) == expected:
                job.flushed.update_inventory(rp_uuid, inventory, expected)
                continue
            try:
                report_client.refresh_provider(job.flushed, rp_uuid)
            except placement_client.PlacementClientError as error:
                job.error = error
