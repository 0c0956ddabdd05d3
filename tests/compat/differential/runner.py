"""Drive generated sequences against a reference and a target Placement.

Both services are wiped (:meth:`client.PlacementClient.wipe`) before each
sequence; each request goes to the reference first, then to the target,
and the reference's response is what the sequence's generator is sent. A
sequence is reproducible from the run's seed and its index alone.

When a request that changes data gets a different status from the two
services, their data have diverged and every later answer would differ
for that reason only; the sequence ends there (unless ``keep_going``) and
the next one starts from an empty service.
"""

import json
import random
import re

import requests

from tests.compat import client as client_mod
from tests.compat.differential import candidates
from tests.compat.differential import compare
from tests.compat.differential import model
from tests.compat.differential import operations

SEQUENCE_LENGTH = 80
QUERIES_PER_WORLD = 20
UUID_OR_NAME = re.compile(r'/(%s|CUSTOM_\w+|[A-Z][A-Z0-9_]+)(?=/|$)'
                          % compare.UUID_RE.pattern)


class Endpoint:
    def __init__(self, url):
        self.url = url.rstrip('/')
        self.session = requests.Session()

    def send(self, req):
        headers = {'x-auth-token': 'admin', 'accept': 'application/json'}
        if req.version:
            headers['openstack-api-version'] = 'placement %s' % req.version
        data = None
        if req.body is not None:
            data = json.dumps(req.body)
            headers['content-type'] = 'application/json'
        elif req.raw is not None:
            data = req.raw
        headers.update(req.headers)
        resp = self.session.request(req.method, self.url + req.path,
                                    data=data, headers=headers, timeout=120)
        return compare.Response.from_requests(resp)

    def wipe(self):
        client_mod.PlacementClient(self.url).wipe()


# What the probe after a write reads (not counted as a request).
PROBE = model.Request('GET', '/resource_providers', '1.14')


def provider_state(resp, known):
    """The probe's answer as {uuid: name, parent, generation} (a provider
    whose uuid a server made up is keyed by its name)."""
    if resp.status != 200 or not isinstance(resp.body, dict):
        return resp
    state = {}
    for rp in resp.body.get('resource_providers', []):
        key = rp.get('uuid') if rp.get('uuid') in known else \
            'named %s' % rp.get('name')
        state[key] = {field: rp.get(field) for field in (
            'name', 'parent_provider_uuid', 'generation')}
    return compare.Response(resp.status, resp.headers, state)


class Difference:
    def __init__(self, where, request, ref, tgt, found):
        self.where = where
        self.request = request
        self.ref = ref
        self.tgt = tgt
        self.found = found

    def report(self):
        lines = ['DIFFERENCE %s: %s' % (self.where,
                                        compare.trim(self.request.describe(),
                                                     600))]
        for what, mine, theirs in self.found:
            lines.append('  %s: reference %s | target %s' % (
                what, compare.trim(mine, 300), compare.trim(theirs, 300)))
        lines.append('  reference: ' + self.ref.summary())
        lines.append('  target:    ' + self.tgt.summary())
        return '\n'.join(lines)

    def classes(self):
        """What kind of difference this is, per finding: the keys the
        final summary groups by (route, what differs and, for errors, the
        reference's message with uuids and numbers blanked)."""
        route = '%s %s' % (self.request.method, route_of(self.request.path))
        message = error_message(self.ref) or error_message(self.tgt)
        keys = []
        for what, mine, theirs in self.found:
            what = compare.UUID_RE.sub('{uuid}', what.split(' (')[0])
            if what.endswith('.explanation'):
                # The same on every route: one class.
                keys.append('(any route): error detail without webob\'s '
                            'explanation: reference %r vs target %r'
                            % (mine, theirs))
            elif what.endswith('errors[0] keys'):
                keys.append('(any route): error keys: reference has %s, '
                            'target has %s' % (mine, theirs))
            elif what == 'header last-modified':
                keys.append('%s: last-modified %s vs %s' % (
                    route, 'present' if mine else 'absent',
                    'present' if theirs else 'absent'))
            elif what.endswith(' keys'):
                keys.append('%s: %s %s vs %s%s' % (
                    route, what, key_list(mine), key_list(theirs),
                    ' [%s]' % message if message else ''))
            elif what == 'status' or what.startswith('header'):
                keys.append('%s: %s %s vs %s%s' % (
                    route, what, mine, theirs,
                    ' [%s]' % message if message else ''))
            else:
                keys.append('%s: %s%s' % (route, what, ' [%s]' % message
                                          if message else ''))
        return keys


def key_list(keys):
    """Keys as a class shows them: uuids counted, not listed."""
    uuids = [k for k in keys if compare.UUID_RE.fullmatch(str(k))]
    if not uuids:
        return keys
    rest = [k for k in keys if k not in uuids]
    return '%s%d provider(s)' % ('%s + ' % rest if rest else '', len(uuids))


def error_message(resp):
    """The first error's message with uuids and numbers blanked."""
    if resp.status < 400 or not isinstance(resp.body, dict):
        return None
    try:
        detail = resp.body['errors'][0]['detail']
    except (KeyError, IndexError, TypeError):
        return None
    text = compare.error_detail(detail)['message']
    text = compare.UUID_RE.sub('{uuid}', text)
    return re.sub(r'\d+', 'N', text)[:90]


def route_of(path):
    """``path`` with uuids and class/trait names as placeholders and only
    the names of query parameters."""
    base, _, query = path.partition('?')
    if base == '/allocation_candidates':
        # Parameters vary too much to group by; the finding says enough.
        return base
    base = UUID_OR_NAME.sub(lambda m: '/{%s}' % (
        'uuid' if compare.UUID_RE.fullmatch(m.group(1)) else 'name'), base)
    if query:
        names = sorted({p.split('=')[0].rstrip('0123456789') for p in
                        query.split('&')})
        base += '?' + '&'.join(names)
    return base


class Run:
    """Counts and differences over all sequences of one run."""

    def __init__(self, reference, target, seed, keep_going=False,
                 out=print, probe=True):
        self.reference = reference
        self.target = target
        self.seed = seed
        self.keep_going = keep_going
        self.probe = probe
        self.out = out
        self.requests = 0
        self.queries = 0
        self.sequences = 0
        self.differences = []

    def sequence(self, index, kind, budget):
        """Run sequence ``index`` (``api`` or ``candidates``) until it has
        sent ``budget`` requests (api) or queries (candidates)."""
        rng = random.Random('%s:%d' % (self.seed, index))
        world = model.World(rng)
        gen = (operations.sequence(world) if kind == 'api'
               else candidates.sequence(world))
        self.reference.wipe()
        self.target.wipe()
        self.sequences += 1
        spent = 0
        step = 0
        req = next(gen)
        while True:
            ref = self.reference.send(req)
            tgt = self.target.send(req)
            self.requests += 1
            step += 1
            if req.kind == 'candidates':
                self.queries += 1
                spent += kind == 'candidates'
            else:
                spent += kind == 'api'
            where = 'seed %s sequence %d (%s) request %d' % (
                self.seed, index, kind, step)
            found = compare.compare(ref, tgt, world.known, req.subset_of)
            diverged = self._diverged(req, found)
            drift = []
            if self.probe and req.method != 'GET' and not diverged:
                drift = self._probe(world)
            if found or drift:
                self._record(Difference(where, req, ref, tgt, found + drift))
            if (diverged or drift) and not self.keep_going:
                break
            if spent >= budget:
                break
            req = gen.send(ref)
        gen.close()
        # At least one, so that a run ends even when every world's
        # building diverges before its first query.
        return max(spent, 1)

    def _record(self, diff):
        self.differences.append(diff)
        self.out(diff.report())

    def _probe(self, world):
        """After a write both answered with the same status, do the
        providers (names, parents, generations) still agree? A write that
        changes generations differently shows here, not requests later."""
        ref = provider_state(self.reference.send(PROBE), world.known)
        tgt = provider_state(self.target.send(PROBE), world.known)
        return [('state after it: ' + what, mine, theirs)
                for what, mine, theirs in compare.compare(ref, tgt,
                                                          world.known)]

    def _diverged(self, req, found):
        if req.method == 'GET':
            return False
        return any(what == 'status' for what, _, _ in found)

    def run(self, requests_wanted, queries_wanted):
        """Alternate api and candidates sequences until both budgets are
        spent."""
        index = 0
        done_api = done_queries = 0
        while done_api < requests_wanted or done_queries < queries_wanted:
            if done_queries < queries_wanted and (
                    index % 2 == 1 or done_api >= requests_wanted):
                done_queries += self.sequence(index, 'candidates', min(
                    QUERIES_PER_WORLD, queries_wanted - done_queries))
            else:
                done_api += self.sequence(index, 'api', min(
                    SEQUENCE_LENGTH, requests_wanted - done_api))
            index += 1

    def replay(self, index, kind):
        """Sequence ``index`` alone, as a run printed it."""
        self.sequence(index, kind, SEQUENCE_LENGTH if kind == 'api'
                      else QUERIES_PER_WORLD)

    def summary(self):
        """Lines grouping the differences by class, most frequent first."""
        counts = {}
        example = {}
        for diff in self.differences:
            for key in set(diff.classes()):
                counts[key] = counts.get(key, 0) + 1
                example.setdefault(key, diff.where)
        lines = []
        for key in sorted(counts, key=lambda k: (-counts[k], k)):
            lines.append('%5d  %s   (first: %s)' % (counts[key], key,
                                                    example[key]))
        return lines
