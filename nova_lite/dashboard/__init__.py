"""The capacity dashboard of nova-lite-api, at ``/dashboard``.

Pages (HTML, rendered here) and a data API (JSON), all behind the same
authentication as the API and the ``os_compute_api:os-dashboard`` policy
(admins by default; anyone else gets a 403 that shows nothing):

* ``GET /dashboard``: per cell, usage totals and a heat map (one square
  per node); then hosts (up, down, disabled), their nodes, each node's
  provider tree with usage bars per resource class, traits and
  aggregates, and the servers on it (``?page=N``: ``[dashboard]
  nodes_per_page`` nodes per page). The page polls the data API and
  updates itself in place.
* ``GET /dashboard/api/capacity``: the live view's document (heat map
  rows, per-provider usage, totals), with an ETag (304 when unchanged).
* ``GET /dashboard/servers/{uuid}`` (and ``/dashboard/api/servers/{uuid}``
  in JSON): where the server is, its allocations (and a migration's),
  its scheduling decisions as a funnel of filters and bars of weights.
* ``GET /dashboard/sim`` and ``/dashboard/sim/{name}``: the what-if
  scheduling reports of ``[dashboard] sim_reports_dir``
  (:mod:`.sim_reports`).
* ``GET|POST /dashboard/login``, ``GET /dashboard/logout``: a browser has
  no ``X-Auth-Token``; the login form gets a credential (noauth2: the
  token is the username; http_basic: the checked user and password;
  keystone: a token from Keystone for the username, password and project)
  and keeps it in an HttpOnly, SameSite=Strict cookie, which
  :class:`CookieAuth` turns back into the request header the API's own
  authentication reads.

The page has no library and no build step: server-rendered HTML, a style
sheet and a small script inlined (:mod:`.static`).
"""

import threading

from oslo_log import log as logging

from nova_lite.dashboard import data
from nova_lite.dashboard import handlers
from nova_lite.dashboard import session

LOG = logging.getLogger(__name__)

is_dashboard = session.is_dashboard
# The login form, answered without credentials (GET and POST).
LOGIN_PATH = session.LOGIN_PATH


class Dispatch:
    """Route ``/dashboard*`` to the dashboard, everything else to the
    process's router (this sits where the router sits: behind
    authentication)."""

    def __init__(self, api_router, conf):
        self.api_router = api_router
        self.conf = conf
        # One cache per application (each API worker has its own).
        self.cache = data.SnapshotCache()

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if self.conf.dashboard.enabled and is_dashboard(path):
            environ[handlers.CACHE_KEY] = self.cache
            return handlers.application(environ, start_response)
        return self.api_router(environ, start_response)

    def prewarm(self, context, placement_client):
        """Fill the cache in a background thread (``[dashboard] prewarm``):
        the first page a worker serves is then a warm one."""
        if not self.conf.dashboard.enabled:
            return None

        def run():
            try:
                client = (placement_client() if callable(placement_client)
                          else placement_client)
                snapshot = self.cache.get(
                    context, client,
                    self.conf.dashboard.cell_refresh_interval)
                LOG.info('Dashboard prewarmed: %d providers',
                         len(snapshot.providers))
            except Exception as exc:  # noqa: BLE001 - a page read retries
                LOG.warning('Dashboard not prewarmed: %s', exc)
        thread = threading.Thread(target=run, name='dashboard-prewarm',
                                  daemon=True)
        thread.start()
        return thread


def wrap(app, conf):
    """``app`` (the whole API pipeline) with the dashboard's cookie login
    in front of it."""
    return session.CookieAuth(app, conf)
