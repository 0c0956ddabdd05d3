"""How two Placement responses to the same request are compared.

Only what a client can depend on is compared: the status, the headers that
matter (content type, microversion, Vary, Location, the cache headers from
1.15 and Allow) and the body's shape and deterministic values. What either
server makes up on its own is normalised away first: uuids the generator
did not send (server-generated ones become ``<uuid>``), timestamps (only
their presence and type count), request ids, and the order of lists
(Placement promises none; lists are compared as multisets, which makes the
comparison of ``allocation_requests`` a comparison of candidate *sets*).

An error's ``detail`` is compared by its first paragraph and, for a
JSON-schema failure, the validator that failed (``Failed validating
'maxLength'``): what clients and Placement's own tests match, without
requiring the schema dump that follows to be identical.
"""

import json
import re
import urllib.parse

UUID_RE = re.compile(
    r'[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
    r'[0-9a-fA-F]{12}')
TIMESTAMP_KEYS = frozenset(('created_at', 'updated_at'))
# Headers compared exactly (after the normalisation in _header_value).
EXACT_HEADERS = ('content-type', 'openstack-api-version', 'cache-control')
# Headers compared as sets of comma-separated tokens.
TOKEN_HEADERS = ('vary', 'allow')
VALIDATOR_RE = re.compile(r"Failed validating '(\w+)'")
TRIM = 400
# webob's explanations of the statuses Placement answers with, which it
# puts before the message of an error.
EXPLANATIONS = (
    'The server could not comply with the request since it is either '
    'malformed or otherwise incorrect.',
    'The resource could not be found.',
    'There was a conflict when trying to complete your request.',
    'Access was denied to this resource.',
)


class Response:
    """What a server answered: status, lower-cased headers, and the body
    parsed as JSON when it is JSON (else the text)."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body

    @classmethod
    def from_requests(cls, resp):
        body = resp.text
        if 'json' in resp.headers.get('content-type', ''):
            try:
                body = resp.json()
            except ValueError:
                # Left as text: a body that claims JSON and is not is a
                # difference the comparison reports as such.
                pass
        return cls(resp.status_code, resp.headers, body)

    def summary(self):
        """The response as printed in a difference report (trimmed)."""
        shown = {h: self.headers[h] for h in
                 EXACT_HEADERS + TOKEN_HEADERS + ('location', 'last-modified')
                 if h in self.headers}
        body = self.body if isinstance(self.body, str) else json.dumps(
            self.body, sort_keys=True)
        return '%s %s %s' % (self.status, json.dumps(shown, sort_keys=True),
                             trim(body))


def trim(text, size=TRIM):
    text = ' '.join(str(text).split())
    return text if len(text) <= size else text[:size] + '...'


class Normaliser:
    """Rewrites a body so that only comparable values remain.

    ``known`` holds the uuids the generator chose (kept as they are, in
    their dashed lower-case form); any other uuid is one a server made up
    and becomes ``<uuid>``.
    """

    def __init__(self, known):
        self.known = {str(u).lower().replace('-', '') for u in known}

    def uuid(self, text):
        def repl(match):
            value = match.group(0).lower().replace('-', '')
            return match.group(0).lower() if value in self.known \
                else '<uuid>'
        return UUID_RE.sub(repl, text)

    def body(self, value, key=None):
        if isinstance(value, dict):
            return {self.uuid(k): self.body(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return sorted((self.body(v, key) for v in value), key=canonical)
        if isinstance(value, str):
            if key in TIMESTAMP_KEYS:
                return '<timestamp>'
            if key == 'request_id':
                return '<request-id>'
            if key == 'detail':
                return self.body(error_detail(value))
            return self.uuid(value)
        return value

    def location(self, value):
        """A Location header without scheme and host (the servers listen
        on different ports)."""
        parts = urllib.parse.urlsplit(value)
        path = parts.path + ('?' + parts.query if parts.query else '')
        return self.uuid(path)


def error_detail(detail):
    """The comparable parts of an error detail.

    Placement's details are webob's stock explanation of the status, a
    blank line, then the message; the message is compared up to a
    JSON-schema failure's schema dump, of which only the validator's name
    counts. The explanation is kept apart so that its absence shows as a
    difference of its own.
    """
    text = ' '.join(detail.split())
    explanation = ''
    for stock in EXPLANATIONS:
        if text.startswith(stock):
            explanation = stock
            text = text[len(stock):].strip()
            break
    validator = VALIDATOR_RE.search(text)
    if validator:
        text = "%s [Failed validating '%s']" % (
            text[:validator.start()].strip(), validator.group(1))
    return {'explanation': explanation, 'message': text}


def canonical(value):
    return json.dumps(value, sort_keys=True, default=str)


def diff_values(ref, tgt, path='body'):
    """(path, reference, target) for every place ``ref`` and ``tgt``
    (already normalised) differ."""
    if type(ref) is not type(tgt):
        return [(path, _shape(ref), _shape(tgt))]
    if isinstance(ref, dict):
        found = []
        missing = sorted(set(ref) - set(tgt))
        extra = sorted(set(tgt) - set(ref))
        if missing or extra:
            found.append((path + ' keys', missing, extra))
        for key in sorted(set(ref) & set(tgt)):
            found.extend(diff_values(ref[key], tgt[key],
                                     '%s.%s' % (path, key)))
        return found
    if isinstance(ref, list):
        return _diff_lists(ref, tgt, path)
    if ref != tgt:
        return [(path, ref, tgt)]
    return []


def _shape(value):
    return '<%s> %s' % (type(value).__name__, trim(canonical(value), 120))


def _diff_lists(ref, tgt, path):
    """Multiset difference: items only in one of the two lists."""
    if ref == tgt:
        return []
    remaining = [canonical(v) for v in tgt]
    only_ref = []
    for item in ref:
        key = canonical(item)
        if key in remaining:
            remaining.remove(key)
        else:
            only_ref.append(item)
    only_tgt = [json.loads(k) for k in remaining]
    if len(ref) == 1 and len(tgt) == 1:
        # One item each: say where inside it they differ.
        return diff_values(ref[0], tgt[0], path + '[0]')
    return [('%s (%d vs %d items)' % (path, len(ref), len(tgt)),
             'only in reference: %s' % trim(canonical(only_ref), 300),
             'only in target: %s' % trim(canonical(only_tgt), 300))]


def _header_value(name, value, normaliser):
    value = value.strip()
    if name == 'content-type':
        return value.lower().replace(' ', '')
    if name in TOKEN_HEADERS:
        return sorted(t.strip().lower() for t in value.split(',')
                      if t.strip())
    if name == 'location':
        return normaliser.location(value)
    return value


def diff_headers(ref, tgt, normaliser):
    found = []
    for name in EXACT_HEADERS + TOKEN_HEADERS + ('location',):
        mine = ref.headers.get(name)
        theirs = tgt.headers.get(name)
        if mine is not None:
            mine = _header_value(name, mine, normaliser)
        if theirs is not None:
            theirs = _header_value(name, theirs, normaliser)
        if mine != theirs:
            found.append(('header ' + name, mine, theirs))
    if ('last-modified' in ref.headers) != ('last-modified' in tgt.headers):
        found.append(('header last-modified',
                      ref.headers.get('last-modified'),
                      tgt.headers.get('last-modified')))
    return found


def compare(ref, tgt, known, subset_of=None):
    """Every difference between the reference's response ``ref`` and the
    target's ``tgt``, as (where, reference, target) triples.

    ``subset_of`` is for allocation candidates with a ``limit``: the
    reference's answer to the same query without the limit. Which of the
    candidates a limit keeps is an implementation's choice, so the target
    must return as many, each one of the full set.
    """
    normaliser = Normaliser(known)
    if ref.status != tgt.status:
        return [('status', ref.status, tgt.status)]
    found = diff_headers(ref, tgt, normaliser)
    ref_body = normaliser.body(ref.body)
    tgt_body = normaliser.body(tgt.body)
    if subset_of is not None and isinstance(ref_body, dict) and \
            isinstance(tgt_body, dict):
        found.extend(diff_limited(ref_body, tgt_body,
                                  normaliser.body(subset_of.body)))
    else:
        found.extend(diff_values(ref_body, tgt_body))
    return found


def diff_limited(ref, tgt, full):
    """Differences of a limited candidates answer (see :func:`compare`)."""
    found = []
    ref_reqs = ref.get('allocation_requests', [])
    tgt_reqs = tgt.get('allocation_requests', [])
    if len(ref_reqs) != len(tgt_reqs):
        found.append(('body.allocation_requests count', len(ref_reqs),
                      len(tgt_reqs)))
    pool = {canonical(c) for c in full.get('allocation_requests', [])}
    strays = [c for c in tgt_reqs if canonical(c) not in pool]
    if strays:
        found.append(('body.allocation_requests not in the unlimited set',
                      '', trim(canonical(strays), 300)))
    ref_sums = ref.get('provider_summaries', {})
    tgt_sums = tgt.get('provider_summaries', {})
    for rp in sorted(set(ref_sums) & set(tgt_sums)):
        found.extend(diff_values(ref_sums[rp], tgt_sums[rp],
                                 'body.provider_summaries.%s' % rp))
    if set(ref) != set(tgt):
        found.append(('body keys', sorted(set(ref) - set(tgt)),
                      sorted(set(tgt) - set(ref))))
    return found
