"""Handler of GET /allocation_candidates (1.10+) in every microversion
shape.

The query string becomes a :class:`candidate_request.CandidateRequest`
in :mod:`candidate_params` (Placement's checks, texts and order); the
object layer finds the candidates (every class in summaries from 1.27);
:mod:`candidate_encode` writes the answer in the microversion's shape.
"""

import contextlib
import gc
import threading

from nova_lite import conf as nl_conf
from nova_lite.placement import exception
from nova_lite.placement.handlers import candidate_encode
from nova_lite.placement.handlers import candidate_params as params
from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import allocation_candidate as ac_obj
from nova_lite.placement import util

CONF = nl_conf.CONF
POLICY = 'placement:allocation_candidates:list'


class _GCPause:
    """Keep the cyclic garbage collector off while candidates are built.

    A large answer allocates tens of thousands of small acyclic dicts and
    tuples; each allocation burst triggers collections that walk every
    object of the process and measured at about half the request time at
    1,000 providers. Reference counting frees all of it anyway. A counter
    makes nested or concurrent pauses (gthread workers) safe: the collector
    comes back when the last request leaves.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.active = 0
        self.restore = True

    @contextlib.contextmanager
    def paused(self):
        with self.lock:
            if self.active == 0:
                self.restore = gc.isenabled()
                gc.disable()
            self.active += 1
        try:
            yield
        finally:
            with self.lock:
                self.active -= 1
                if self.active == 0 and self.restore:
                    gc.enable()


_GC = _GCPause()


def parse_request(req, conf=CONF):
    """The :class:`CandidateRequest` of ``req``; 400 when malformed."""
    return params.parse(
        req, randomize=conf.placement_api.randomize_allocation_candidates,
        max_candidates=conf.placement_api.max_allocation_candidates)


@microversion.require('1.10')
def list_allocation_candidates(req):
    """GET /allocation_candidates: 200 with allocation requests and
    provider summaries (both empty when nothing fits)."""
    ctx = common.context(req, POLICY)
    want = microversion.of(req)
    request = parse_request(req)
    with _GC.paused():
        try:
            candidates = ac_obj.find(ctx, request,
                                     all_classes=want >= (1, 27))
        except exception.Invalid as exc:
            raise util.bad_request(exc.message)
        body = candidate_encode.encode(candidates, want).encode('utf-8')
        # NOTE(nova_lite): freed here, while the collector is off: alive
        # when it came back, the answer's thousands of containers were
        # the young generation it walked (and promoted) on the next
        # allocation, a tenth of the request at 1,000 providers.
        del candidates
    response = util.json_response({}, req=req)
    response.body = body
    return response
