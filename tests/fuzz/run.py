"""Send generated requests to a target and count what went wrong.

A target is a callable ``send(request) -> (status, text)``: in-process
(:class:`InProcess`, a WSGI app per API) for the functional test, or
over HTTP (:class:`OverHTTP`) for the big run against a lab. Hypothesis
only generates here (no shrinking, no example database): the run counts
every 500 and every traceback in an answer instead of stopping at the
first, so one run tells how many there are and where.
"""

import collections
import concurrent.futures
import re
import threading
import urllib.error
import urllib.request

from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import given
from hypothesis import seed as fixed_seed
from hypothesis import settings
import webob

from tests.fuzz import strategies

TRACEBACK = re.compile(r'Traceback \(most recent call last\)|File "/')
TOKENS = {'compute': 'admin', 'placement': 'admin'}


def _headers(request, token):
    headers = {'X-Auth-Token': token}
    if request.version is not None:
        headers['OpenStack-API-Version'] = '%s %s' % (request.api,
                                                      request.version)
    if request.body is not None:
        headers['Content-Type'] = 'application/json'
    return headers


def _url_path(request):
    return request.path + ('?' + request.query if request.query else '')


class InProcess:
    """Requests through webob to ``apps`` ({'compute': app, ...})."""

    def __init__(self, apps, tokens=None):
        self.apps, self.tokens = apps, dict(TOKENS, **(tokens or {}))

    def __call__(self, request):
        req = webob.Request.blank(_url_path(request),
                                  method=request.method)
        for key, value in _headers(request,
                                   self.tokens[request.api]).items():
            req.headers[key] = value
        if request.body is not None:
            req.body = request.body
        resp = req.get_response(self.apps[request.api])
        return resp.status_int, resp.text if resp.body else ''


class OverHTTP:
    """Requests to running APIs ({'compute': 'http://...', ...})."""

    def __init__(self, endpoints, timeout=30, tokens=None):
        self.endpoints, self.timeout = endpoints, timeout
        self.tokens = dict(TOKENS, **(tokens or {}))

    def __call__(self, request):
        req = urllib.request.Request(
            self.endpoints[request.api] + _url_path(request),
            data=request.body, method=request.method,
            headers=_headers(request, self.tokens[request.api]))
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.read().decode('utf-8', 'replace')
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode('utf-8', 'replace')
        except (urllib.error.URLError, OSError) as e:
            return 'no answer: %s' % type(e).__name__, ''


class Tally:
    """Statuses, 500s and tracebacks seen (a few examples of each)."""

    KEEP = 20

    def __init__(self):
        self._lock = threading.Lock()
        self.sent = 0
        self.statuses = collections.Counter()
        self.server_errors = []
        self.tracebacks = []
        self.by_route = collections.Counter()

    def add(self, request, status, text):
        with self._lock:
            self._add(request, status, text)

    def _add(self, request, status, text):
        self.sent += 1
        self.statuses[str(status)] += 1
        bad = not isinstance(status, int) or (
            status >= 500 and status != 501)
        where = '%s %s%s -> %s' % (request.method, request.path,
                                   '?' + request.query if request.query
                                   else '', status)
        if bad:
            self.by_route['%s %s' % (request.method, request.path)] += 1
            if len(self.server_errors) < self.KEEP:
                self.server_errors.append(
                    '%s body=%r version=%s: %s' % (
                        where, (request.body or b'')[:200], request.version,
                        text[:300]))
        if TRACEBACK.search(text or '') and \
                len(self.tracebacks) < self.KEEP:
            self.tracebacks.append('%s: %s' % (where, text[:300]))

    @property
    def errors(self):
        return sum(n for s, n in self.statuses.items()
                   if not s.isdigit() or (int(s) >= 500 and s != '501'))

    def as_dict(self):
        return {'sent': self.sent, 'statuses': dict(self.statuses),
                'server_errors': self.errors,
                'tracebacks_in_answers': len(self.tracebacks),
                'examples': self.server_errors,
                'traceback_examples': self.tracebacks,
                'worst_routes': self.by_route.most_common(10)}


def fuzz(send, routes, count, seed=None, tally=None, workers=1):
    """Send ``count`` generated requests over ``routes``; the Tally.

    With ``workers`` > 1 the requests go out from that many threads
    while hypothesis draws the next ones (a lab answers slower than
    hypothesis draws)."""
    tally = tally or Tally()
    pool = (concurrent.futures.ThreadPoolExecutor(workers)
            if workers > 1 else None)
    in_flight = threading.BoundedSemaphore(2 * workers)

    def deliver(request):
        try:
            status, text = send(request)
            tally.add(request, status, text)
        finally:
            in_flight.release()

    @settings(max_examples=count, phases=[Phase.generate], database=None,
              deadline=None, derandomize=seed is None,
              suppress_health_check=list(HealthCheck))
    @given(strategies.requests(routes))
    def one(request):
        in_flight.acquire()
        if pool is None:
            deliver(request)
        else:
            pool.submit(deliver, request)

    if seed is not None:
        one = fixed_seed(seed)(one)
    try:
        one()
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    return tally
