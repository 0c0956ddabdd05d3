"""Helpers shared by the object modules: table handles, generation bumps
and the retry loop around whole write transactions.
"""

import functools
import random
import time
import weakref

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.db import session as db_session
from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
from nova_lite.placement import exception

LOG = logging.getLogger(__name__)
RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RC = models.ResourceClass.__table__
TRAIT = models.Trait.__table__
RP_TRAIT = models.ResourceProviderTrait.__table__
AGG = models.PlacementAggregate.__table__
RP_AGG = models.ResourceProviderAggregate.__table__
CONSUMER = models.Consumer.__table__
PROJECT = models.Project.__table__
USER = models.User.__table__
CONSUMER_TYPE = models.ConsumerType.__table__

# NOTE(nova_lite): a provider generation conflict seen *inside* placement
# (two claims racing on one provider) is retried with a fresh snapshot, as
# the caller did nothing wrong; only generations the caller sent come back
# as 409.
INTERNAL_RETRIES = 10
# Seconds of random back-off per attempt, so racing writers spread out.
RETRY_JITTER = 0.01


class RetryTransaction(Exception):
    """Raised inside a write transaction to run it again from scratch."""


class InternalGenerationConflict(RetryTransaction):
    """A race between two writers inside placement; retried."""

    def __init__(self, uuid):
        self.uuid = uuid
        super().__init__(uuid)


MAX_GENERATION = 2147483647

# NOTE(nova_lite): the statements every write runs are built once (with
# bind parameters): building one and its cache key cost more CPU than
# sending it; a statement object built once keeps its cache key.
_BUMP = (sa.update(RP)
         .where(RP.c.id == sa.bindparam('rp_id'),
                RP.c.generation == sa.bindparam('expected'))
         .values(generation=sa.bindparam('new_generation'),
                 updated_at=sa.bindparam('now')))


def increment_generation(context, rp_id, rp_uuid, expected, now=None):
    """Bump a provider's generation if it is still ``expected``; ``now``
    is the ``updated_at`` written (a caller answering with the provider
    passes it rather than read the row back)."""
    if isinstance(expected, int) and not 0 <= expected < MAX_GENERATION:
        # NOTE(nova_lite): the schemas take any integer (as Placement's);
        # one no provider can have is a conflict, not a database overflow.
        raise exception.ConcurrentUpdateDetected(uuid=rp_uuid)
    result = context.session.execute(_BUMP, {
        'rp_id': rp_id, 'expected': expected,
        'new_generation': expected + 1, 'now': now or models.utcnow()})
    if result.rowcount != 1:
        raise exception.ConcurrentUpdateDetected(uuid=rp_uuid)
    return expected + 1


def bump_internal_many(context, expected):
    """:func:`bump_internal` for many providers in one statement.

    :param expected: {rp id: (uuid, generation read in this transaction)}.
    :returns: {rp id: new generation}.
    """
    if not expected:
        return {}
    if len(expected) == 1:
        (rp_id, (rp_uuid, generation)), = expected.items()
        return {rp_id: bump_internal(context, rp_id, rp_uuid, generation)}
    ids = sorted(expected)
    result = context.session.execute(
        sa.update(RP).where(
            RP.c.id.in_(ids),
            RP.c.generation == sa.case(
                {rp_id: expected[rp_id][1] for rp_id in ids},
                value=RP.c.id))
        .values(generation=RP.c.generation + 1,
                updated_at=models.utcnow()))
    if result.rowcount != len(ids):
        raise InternalGenerationConflict(uuid=expected[ids[0]][0])
    return {rp_id: expected[rp_id][1] + 1 for rp_id in ids}


def bump_internal(context, rp_id, rp_uuid, expected):
    """Like :func:`increment_generation`, for generations read internally."""
    try:
        return increment_generation(context, rp_id, rp_uuid, expected)
    except exception.ConcurrentUpdateDetected:
        raise InternalGenerationConflict(uuid=rp_uuid)


def _backoff(attempt):
    time.sleep(random.uniform(0, RETRY_JITTER * (attempt + 1)))


def write_transaction(fn):
    """Retry ``fn`` (which opens the outermost writer) on transient errors
    and on :class:`RetryTransaction` (internal generation races, a shared
    row inserted by another writer meanwhile)."""
    transient = db_session.retry_on_transient(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for attempt in range(INTERNAL_RETRIES):
            try:
                return transient(*args, **kwargs)
            except InternalGenerationConflict as exc:
                LOG.debug('Provider %s changed under %s, retrying (%d)',
                          exc.uuid, fn.__name__, attempt + 1)
                if attempt == INTERNAL_RETRIES - 1:
                    raise exception.ConcurrentUpdateDetected(uuid=exc.uuid)
                _backoff(attempt)
            except RetryTransaction:
                if attempt == INTERNAL_RETRIES - 1:
                    raise exception.Conflict(
                        reason='too many concurrent updates, retry')
                _backoff(attempt)
    return wrapper


# Built once: every request that names classes looks them up.
_RC_BY_NAME = sa.select(RC.c.name, RC.c.id).where(
    RC.c.name.in_(sa.bindparam('names', expanding=True)))


# NOTE(nova_lite): a standard class is a row no request renames or
# deletes, so its id, once synced (resource_class.ensure_sync), is the same
# for the database's lifetime: remembered per database (its context
# manager), a claim or an inventory write of standard classes reads none.
_STANDARD_RC_IDS = weakref.WeakKeyDictionary()


def remember_standard_rc_ids(ids):
    """Remember the ids of the standard classes ({name: id}) of the
    current database."""
    _STANDARD_RC_IDS[db_api.get_context_manager()] = dict(ids)


def standard_rc_ids():
    """{name: id} of the standard classes of the current database ({}
    before it was synced)."""
    return _STANDARD_RC_IDS.get(db_api.get_context_manager(), {})


# NOTE(nova_lite): likewise a standard trait: no request deletes it (400)
# or renames it, so its id, once synced, names it for the database's
# lifetime. An allocation candidates request with standard names reads
# neither their ids nor, for the summaries, the names of the providers'
# standard traits. Kept as ({name: id}, {id: name}).
_STANDARD_TRAITS = weakref.WeakKeyDictionary()


def remember_standard_trait_ids(ids):
    """Remember the ids of the standard traits ({name: id}) of the
    current database."""
    _STANDARD_TRAITS[db_api.get_context_manager()] = (
        dict(ids), {i: name for name, i in ids.items()})


def standard_trait_ids():
    """{name: id} of the standard traits of the current database."""
    return _STANDARD_TRAITS.get(db_api.get_context_manager(), ({}, {}))[0]


def standard_trait_names():
    """{id: name} of the standard traits of the current database."""
    return _STANDARD_TRAITS.get(db_api.get_context_manager(), ({}, {}))[1]


def rc_ids(context, names):
    """{name: id} for resource class names; 400 for unknown ones."""
    names = set(names)
    if not names:
        return {}
    standard = standard_rc_ids()
    found = {name: standard[name] for name in names if name in standard}
    rest = names - set(found)
    if rest:
        rows = context.session.execute(_RC_BY_NAME,
                                       {'names': sorted(rest)}).all()
        found.update((r.name, r.id) for r in rows)
    missing = names - set(found)
    if missing:
        raise exception.ResourceClassNotFound(
            name=', '.join(sorted(missing)))
    return found


def rc_names_by_id(context):
    rows = context.session.execute(sa.select(RC.c.id, RC.c.name)).all()
    return {r.id: r.name for r in rows}
