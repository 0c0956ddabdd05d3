"""The record of one scheduling decision: why an instance landed where it did.

For each instance of a ``select_destinations`` request the scheduler
writes down, as a small JSON-able dict (an *attempt*):

- ``kind`` (``boot``, ``resize``, ``migrate``, ``evacuate``,
  ``unshelve``, ``live-migrate``, ``rebuild``), ``at`` (UTC, ISO 8601);
- ``query``: the ``GET /allocation_candidates`` placement was asked,
  ``candidates`` / ``hosts``: what it returned;
- ``filters``: per filter (and narrowing step) the hosts in and out;
- ``multipliers`` of the weighers and ``weights``: for the best
  ``TOP_HOSTS`` hosts, the total and each weigher's weighted share
  (normalised weight times multiplier);
- ``picked`` (``host``/``node``), ``alternates``, ``failed_claims`` (hosts
  whose claim placement refused), ``result`` (``selected`` or
  ``NoValidHost``) and ``reason``.

The scheduler owns no database: the attempt travels as JSON with the
chosen Selection (``Selection.decision``) or with the NoValidHost
(``decision`` kwarg), and the conductor that receives it stores it with
the instance's action in the instance's cell
(:mod:`nova_lite.conductor.decisions`). A reschedule in the cell appends
its own attempt there.
"""

import datetime

from oslo_serialization import jsonutils

# Hosts whose weights are recorded (best first).
TOP_HOSTS = 10
# Alternates and failed claims named (the rest are counted).
MAX_NAMED = 10
# A record (all attempts of one action) is kept under this size: the
# oldest attempts after the first are dropped, then weights are cut.
MAX_RECORD_BYTES = 32768

_MOVE_HINTS = {'rebuild': 'rebuild', 'evacuate': 'evacuate'}


def utcnow_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ')


def kind_of(check_type=None):
    """The kind the scheduler can tell (the conductor that stores the
    attempt names the move: ``boot``, ``resize``, ``unshelve`` ...)."""
    return _MOVE_HINTS.get(check_type, 'schedule')


def host_key(state):
    return {'host': state.host, 'node': state.nodename}


def _name(item):
    return '%s/%s' % (item['host'], item['node'])


class Recorder:
    """Collects the attempts of one ``select_destinations`` request."""

    def __init__(self, kind, num_instances):
        self.kind = kind
        self.num_instances = num_instances
        self.query = None
        self.candidates = 0
        self.hosts = 0
        self.multipliers = {}
        self.current = None
        self.attempts = []

    def start_instance(self, index):
        """Begin the attempt of instance ``index``."""
        self.current = {
            'kind': self.kind, 'at': utcnow_iso(), 'source': 'scheduler',
            'instance_index': index, 'num_instances': self.num_instances,
            'filters': [], 'weights': [], 'failed_claims': [],
            'picked': None, 'alternates': [], 'result': None,
            'reason': None}
        self.attempts.append(self.current)
        return self.current

    def filtered(self, result):
        """The :class:`FilterResult` of the current instance."""
        if self.current is None:
            self.start_instance(0)
        self.current['filters'] = [
            {'name': s.name, 'in': s.hosts_in, 'out': s.hosts_out,
             'skipped': bool(s.skipped)} for s in result.steps]
        self.current['forced'] = bool(getattr(result, 'forced', False))

    def weighed(self, weighed_hosts, multipliers, count=None):
        """The weighed hosts (best first) of the current instance.

        :param count: how many hosts were weighed, when ``weighed_hosts``
            holds only the best ones (at least ``TOP_HOSTS`` of them).
        """
        self.multipliers = dict(multipliers)
        top = []
        for item in weighed_hosts[:TOP_HOSTS]:
            entry = host_key(item.obj)
            entry['total'] = round(float(item.weight), 6)
            entry['parts'] = {k: round(float(v), 6) for k, v in
                              (getattr(item, 'parts', None) or {}).items()}
            top.append(entry)
        self.current['weights'] = top
        self.current['weighed_hosts'] = (len(weighed_hosts) if count is None
                                         else count)

    def claim_failed(self, state):
        self.current['failed_claims'].append(host_key(state))

    def picked(self, state):
        self.current['picked'] = host_key(state)
        self.current['result'] = 'selected'

    def failed(self, reason):
        """The request ended in NoValidHost (for the current instance)."""
        if self.current is None:
            self.start_instance(0)
        self.current['result'] = 'NoValidHost'
        self.current['reason'] = reason

    def attempt_for(self, index, alternates=()):
        """The finished attempt of instance ``index`` (with the request's
        query and counts) as a dict; ``alternates`` are 'host/node'."""
        attempt = dict(self.attempts[index]) if index < len(
            self.attempts) else {'kind': self.kind, 'at': utcnow_iso(),
                                 'source': 'scheduler'}
        attempt.update(query=self.query, candidates=self.candidates,
                       hosts=self.hosts, multipliers=self.multipliers)
        attempt['alternates'] = list(alternates)[:MAX_NAMED]
        attempt['num_alternates'] = len(alternates)
        attempt['failed_claims'] = attempt.get('failed_claims', [])[
            :MAX_NAMED]
        return attempt

    def failure(self):
        """The attempt of the instance the request failed on."""
        index = len(self.attempts) - 1 if self.attempts else 0
        return self.attempt_for(index)


def dumps(attempt):
    return jsonutils.dumps(attempt, sort_keys=True)


def loads(text):
    if not text:
        return None
    try:
        return jsonutils.loads(text)
    except ValueError:
        return None


def last_filter(attempt):
    """The filter that removed the last hosts, or None."""
    for step in attempt.get('filters') or []:
        if step.get('in') and step.get('out') == 0:
            return step['name']
    return None


def summary(attempt):
    """One line (<= 255 characters) for an action event's ``details``."""
    if attempt is None:
        return None
    if attempt.get('source') == 'reschedule':
        picked = attempt.get('picked')
        text = 'reschedule attempt %s: ' % attempt.get('attempt', '?')
        if picked:
            text += 'alternate %s claimed' % _name(picked)
        else:
            text += 'no alternate left'
        if attempt.get('failed_claims'):
            text += ', %d claim(s) refused' % len(attempt['failed_claims'])
        return text[:255]
    kind = attempt.get('kind', 'boot')
    head = '%s: %d candidates on %d hosts' % (
        kind, attempt.get('candidates') or 0, attempt.get('hosts') or 0)
    if attempt.get('result') == 'NoValidHost':
        culprit = last_filter(attempt)
        if culprit:
            text = '%s; NoValidHost: %s removed the last hosts' % (
                head, culprit)
        else:
            text = '%s; NoValidHost: %s' % (head, attempt.get('reason'))
        return text[:255]
    steps = [s for s in attempt.get('filters') or [] if not s['skipped']]
    passed = steps[-1]['out'] if steps else attempt.get('hosts') or 0
    picked = attempt.get('picked')
    text = '%s, %d passed filters; picked %s' % (
        head, passed, _name(picked) if picked else '-')
    weights = attempt.get('weights') or []
    if weights and picked:
        text += ' (weight %.3f)' % weights[0]['total']
    if attempt.get('failed_claims'):
        text += ' after %d refused claim(s)' % len(attempt['failed_claims'])
    text += '; %d alternates' % (attempt.get('num_alternates') or 0)
    return text[:255]


def bound(record):
    """Keep a record (``{'attempts': [...]}``) under MAX_RECORD_BYTES."""
    attempts = record.get('attempts') or []
    while len(dumps(record)) > MAX_RECORD_BYTES and len(attempts) > 2:
        del attempts[1]
        record['dropped_attempts'] = record.get('dropped_attempts', 0) + 1
    for attempt in attempts:
        if len(dumps(record)) <= MAX_RECORD_BYTES:
            break
        attempt['weights'] = (attempt.get('weights') or [])[:3]
        if attempt.get('query') and len(attempt['query']) > 2000:
            attempt['query'] = attempt['query'][:2000] + '...'
    return record
