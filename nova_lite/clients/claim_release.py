"""Releasing a consumer's claim in placement, until it is released.

Deletes, failed builds and aborted moves give back what an instance (or a
migration) holds with ``DELETE /allocations/{consumer}``. When placement
cannot be reached or answers 5xx at that moment, the claim must not stay
behind forever: :func:`release` tries once (the client itself retries a
failed connection ``[placement] connect_retries`` times) and, on failure,
puts the consumer on this process's retry list. A daemon thread retries
the list every :data:`RETRY_INTERVAL` seconds until each delete succeeds
or placement says the consumer holds nothing. A process that dies with
entries on its list leaves them to ``nova-lite-manage placement audit``.
"""

import threading
import time

from oslo_log import log as logging

from nova_lite.clients import placement as placement_client

LOG = logging.getLogger(__name__)

# Seconds between two passes over the retry list.
RETRY_INTERVAL = 10.0

_LOCK = threading.Lock()
_PENDING = {}
_THREAD = None


def release(client, consumer_uuid):
    """Delete the consumer's allocations now or, failing that, later.

    True when deleted now, False when it held nothing, None when the
    delete was put on the retry list.
    """
    try:
        client.delete_allocations(consumer_uuid)
    except placement_client.PlacementNotFound:
        return False
    except placement_client.PlacementClientError as error:
        LOG.warning('Allocations of consumer %s not deleted (%s); retrying '
                    'in the background', consumer_uuid, error)
        _remember(client, consumer_uuid)
        return None
    LOG.debug('Deleted the allocations of consumer %s', consumer_uuid)
    return True


def pending():
    """The consumers waiting for their delete to be retried."""
    with _LOCK:
        return sorted(_PENDING)


def retry_pending():
    """One pass over the retry list now; how many are left."""
    with _LOCK:
        entries = list(_PENDING.items())
    for consumer_uuid, client in entries:
        try:
            client.delete_allocations(consumer_uuid)
        except placement_client.PlacementNotFound:
            pass
        except placement_client.PlacementClientError as error:
            LOG.debug('Allocations of %s still not deleted: %s',
                      consumer_uuid, error)
            continue
        LOG.info('Allocations of consumer %s deleted on retry',
                 consumer_uuid)
        with _LOCK:
            _PENDING.pop(consumer_uuid, None)
    with _LOCK:
        return len(_PENDING)


def _remember(client, consumer_uuid):
    global _THREAD
    with _LOCK:
        _PENDING[consumer_uuid] = client
        if _THREAD is None or not _THREAD.is_alive():
            _THREAD = threading.Thread(target=_retry_loop, daemon=True,
                                       name='claim-release-retry')
            _THREAD.start()


def _retry_loop():
    while True:
        time.sleep(RETRY_INTERVAL)
        try:
            retry_pending()
        except Exception:  # noqa: BLE001 - the loop must survive
            LOG.exception('Retrying allocation deletes failed')
