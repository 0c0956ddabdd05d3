"""Rules for RPC traffic: hold, delay, drop, duplicate or fail messages.

Nova's hardest bugs are races between RPC messages: a delete overtaking a
build, a compute restarting between a cast and its handling, a conductor
failing in the middle of a schedule. Mocks and sleeps reach them by luck.
nova_lite owns its RPC layer, so it can act on one message: hold the build
cast to host1, let the delete pass, then release the build.

Where rules apply
-----------------
:mod:`nova_lite.rpc` consults this module at exactly two points:

* ``send``: every cast and call leaves through the client
  :func:`nova_lite.rpc.get_client` returns (:func:`on_send`);
* ``dispatch``: every server :func:`nova_lite.rpc.get_server` builds hands
  each message to its endpoints through one dispatcher
  (:func:`on_dispatch`).

A rule acts at one of them (``at``, default ``send``). Rules live in the
process that adds them: in functional tests every service shares one
process, so a rule sees all traffic; in a lab each process has its own.

With no rule, both points cost one test of the module-level tuple
:data:`RULES` (empty), before anything else is built: the hot path is
unchanged when nobody uses chaos.

What a rule matches
-------------------
Each of ``bus`` (the transport's virtual host: ``''`` for the default
one, a cell's name in the functional harness), ``topic``, ``server``
(the host a message is addressed to; a fanout or an unaddressed message
has none), ``method`` and ``instance`` (an instance uuid found in the
arguments: ``instance``, ``instance_uuid``, ``instance_uuids``,
``instances``, ``build_requests``) is either None (anything) or must be
equal. A rule applies to its next ``count`` matches (None: every match)
and, with ``window`` seconds, only until that long after it was added;
a spent or expired rule removes itself. One rule acts on a message: the
oldest live rule that matches it.

What a rule does
----------------
At ``send``:

* ``hold``: a cast is kept (the caller returns as if the bus took it)
  and leaves when released, from the releasing thread; a call blocks its
  caller until released, then is sent.
* ``delay``: a cast is sent ``seconds`` later from a timer thread (the
  caller returns at once); a call waits ``seconds``, then is sent.
* ``drop``: a cast is never sent; a call raises ``MessagingTimeout`` at
  once (what its caller would see when its timeout ran out).
* ``duplicate``: sent twice (a call returns the first answer).
* ``fail``: the caller gets an exception instead of sending: a call
  ``MessagingTimeout`` (``error='timeout'``) or the remote error
  ``nova_lite.exception.InjectedRPCFault`` (``error='remote'``: nova_lite's
  exceptions cross the bus as themselves); a cast
  ``MessageDeliveryFailure`` (what a cast sees when the bus refuses it).

At ``dispatch`` (the server received the message):

* ``hold`` blocks the handling thread until released, then handles it;
* ``delay`` handles it ``seconds`` later, in the same thread;
* ``drop`` takes the message off the bus and never handles it (what a
  compute dying right after the ack loses); meant for casts: a server
  answers every call it took, so a dropped call's caller gets None (drop
  calls at ``send``);
* ``duplicate`` handles it twice, as a redelivery would;
* ``fail`` raises ``InjectedRPCFault`` in the server: the caller of a
  call gets it back, a cast's failure is only logged.

Held messages are listed (:func:`held`), waited for (:func:`wait_held`)
and released (:func:`release`); :func:`wait_spent` waits until a rule has
acted its ``count`` times; :func:`clear` removes every rule and lets
every held message go (or discards them). In a running lab the services
take rules over the bus (:mod:`nova_lite.baserpc`, ``nova-lite-manage
chaos``); those messages are never matched.
"""

import itertools
import threading
import time

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite import exception
from nova_lite.objects import base as objects_base

LOG = logging.getLogger(__name__)

ACTIONS = ('hold', 'delay', 'drop', 'duplicate', 'fail')
# The base API's methods that manage the rules themselves
# (nova_lite.baserpc): never matched, so a rule cannot keep
# ``nova-lite-manage chaos clear`` from reaching a service.
CONTROL_METHODS = frozenset(('chaos_add', 'chaos_list', 'chaos_clear',
                             'chaos_release', 'chaos_fault'))
POINTS = ('send', 'dispatch')
ERRORS = ('timeout', 'remote')

# The active rules, oldest first. Replaced (never mutated) under _LOCK so
# the hot path reads it without a lock: empty means no rule at all.
RULES = ()

_LOCK = threading.Lock()
_CHANGED = threading.Condition(_LOCK)
_HELD = []
_IDS = itertools.count(1)
# Where a versioned object's primitive keeps its fields.
_DATA_KEY = objects_base.NovaLiteObject.OBJ_SERIAL_NAMESPACE + '.data'
# The arguments that name the instances a message is about.
_INSTANCE_ARGS = ('instance', 'instance_uuid', 'instance_uuids',
                  'instances', 'build_requests')


class Message:
    """One message at a rule point, as rules see it."""

    __slots__ = ('at', 'bus', 'topic', 'server', 'method', 'kind', 'args',
                 '_instances')

    def __init__(self, at, bus, topic, server, method, kind, args):
        self.at = at
        self.bus = bus
        self.topic = topic
        self.server = server
        self.method = method
        self.kind = kind  # 'call', 'cast' or 'fanout'
        self.args = args
        self._instances = None

    @property
    def instances(self):
        """The instance uuids found in the arguments."""
        if self._instances is None:
            self._instances = tuple(_instance_uuids(self.args))
        return self._instances

    def describe(self):
        return {'at': self.at, 'bus': self.bus, 'topic': self.topic,
                'server': self.server, 'method': self.method,
                'kind': self.kind, 'instances': list(self.instances)}


def _uuid_of(value):
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        # A versioned object's primitive (what a server receives).
        data = value.get(_DATA_KEY, value)
        return data.get('uuid') or data.get('instance_uuid')
    return getattr(value, 'uuid', None) or getattr(
        value, 'instance_uuid', None)


def _instance_uuids(args):
    for name in _INSTANCE_ARGS:
        value = (args or {}).get(name)
        if value is None:
            continue
        if isinstance(value, dict) and _DATA_KEY in value:
            # An object list's primitive holds its members in 'objects'.
            value = value[_DATA_KEY].get('objects', [value])
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            found = _uuid_of(item)
            if isinstance(found, str):
                yield found


class Rule:
    """What to match and what to do; see the module docstring."""

    def __init__(self, action, at='send', bus=None, topic=None,
                 server=None, method=None, instance=None, count=None,
                 window=None, seconds=0.0, error='timeout'):
        if action not in ACTIONS:
            raise ValueError('action must be one of %s' % ', '.join(ACTIONS))
        if at not in POINTS:
            raise ValueError('at must be one of %s' % ', '.join(POINTS))
        if error not in ERRORS:
            raise ValueError('error must be one of %s' % ', '.join(ERRORS))
        if count is not None and count < 1:
            raise ValueError('count must be at least 1')
        if window is not None and window <= 0:
            raise ValueError('window must be positive')
        if seconds < 0:
            raise ValueError('seconds must not be negative')
        self.id = next(_IDS)
        self.action = action
        self.at = at
        self.match = {'bus': bus, 'topic': topic, 'server': server,
                      'method': method, 'instance': instance}
        self.left = count
        self.count = count
        self.window = window
        self.seconds = seconds
        self.error = error
        self.matched = 0
        self.added = time.monotonic()

    def expired(self, now):
        return ((self.window is not None and now - self.added > self.window)
                or (self.left is not None and self.left <= 0))

    def matches(self, message):
        if message.at != self.at:
            return False
        match = self.match
        for name in ('bus', 'topic', 'server', 'method'):
            wanted = match[name]
            if wanted is not None and getattr(message, name) != wanted:
                return False
        wanted = match['instance']
        return wanted is None or wanted in message.instances

    def describe(self):
        described = {'id': self.id, 'action': self.action, 'at': self.at,
                     'count': self.count, 'left': self.left,
                     'window': self.window, 'matched': self.matched}
        described.update({k: v for k, v in self.match.items()
                          if v is not None})
        if self.action == 'delay':
            described['seconds'] = self.seconds
        if self.action == 'fail':
            described['error'] = self.error
        return described


class Held:
    """A held message: released, it goes on (``go``) or is discarded."""

    def __init__(self, rule, message, resume=None):
        self.id = next(_IDS)
        self.rule_id = rule.id
        self.message = message
        # For a held cast at send: what sends it. Otherwise a thread
        # blocks in wait() until the decision.
        self._resume = resume
        self._decided = threading.Event()
        self.discarded = False

    def describe(self):
        described = self.message.describe()
        described.update({'id': self.id, 'rule': self.rule_id})
        return described

    def decide(self, discard):
        self.discarded = discard
        self._decided.set()
        if self._resume is not None and not discard:
            self._resume()

    def wait(self):
        """Block until released; True when the message goes on."""
        self._decided.wait()
        return not self.discarded


def add(action, **kwargs):
    """Add a rule (arguments as :class:`Rule`); returns its id."""
    rule = Rule(action, **kwargs)
    global RULES
    with _LOCK:
        RULES = RULES + (rule,)
    LOG.warning('RPC rule %d added: %s', rule.id, rule.describe())
    return rule.id


def rules():
    """The active rules, described (dicts), oldest first."""
    now = time.monotonic()
    return [r.describe() for r in RULES if not r.expired(now)]


def remove(rule_id):
    """Remove a rule; what it holds stays held. False when unknown."""
    global RULES
    with _LOCK:
        kept = tuple(r for r in RULES if r.id != rule_id)
        found = len(kept) != len(RULES)
        RULES = kept
    return found


def held(**match):
    """The messages held now, described, matching ``match`` (fields of
    :meth:`Message.describe` plus ``rule``)."""
    with _LOCK:
        return [h.describe() for h in _HELD if _held_matches(h, match)]


def _held_matches(entry, match):
    described = entry.describe()
    for name, wanted in match.items():
        if wanted is None:
            continue
        if name == 'instance':
            if wanted not in described['instances']:
                return False
        elif described.get(name) != wanted:
            return False
    return True


def wait_held(timeout=10.0, poll=None, **match):
    """Wait until a message matching ``match`` is held; return it
    described. ``poll``, when given, runs between waits (a harness pumping
    work); AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    with _CHANGED:
        while True:
            for entry in _HELD:
                if _held_matches(entry, match):
                    return entry.describe()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError('no held message matches %s; held: %s'
                                     % (match, [h.describe()
                                                for h in _HELD]))
            _CHANGED.wait(min(left, 0.05))


def wait_spent(rule_id, timeout=10.0):
    """Wait until rule ``rule_id`` has acted its ``count`` times (or
    expired, or was removed); AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    with _CHANGED:
        while True:
            now = time.monotonic()
            if not any(r.id == rule_id and not r.expired(now)
                       for r in RULES):
                return
            left = deadline - now
            if left <= 0:
                raise AssertionError('rule %d still active: %s' % (
                    rule_id, [r.describe() for r in RULES]))
            _CHANGED.wait(min(left, 0.05))


def release(discard=False, **match):
    """Let the held messages matching ``match`` go on (or discard them);
    returns how many. A held cast at send leaves from this thread."""
    with _LOCK:
        chosen = [h for h in _HELD if _held_matches(h, match)]
        for entry in chosen:
            _HELD.remove(entry)
    for entry in chosen:
        entry.decide(discard)
    return len(chosen)


def clear(discard=False):
    """Remove every rule and release (or discard) every held message."""
    global RULES
    with _LOCK:
        RULES = ()
    return release(discard=discard)


def _take(message):
    """The first live rule matching ``message`` (its budget spent by one),
    or None. Spent and expired rules are dropped on the way."""
    global RULES
    if message.method in CONTROL_METHODS:
        return None
    now = time.monotonic()
    with _LOCK:
        chosen = None
        for rule in RULES:
            if not rule.expired(now) and rule.matches(message):
                chosen = rule
                rule.matched += 1
                if rule.left is not None:
                    rule.left -= 1
                break
        live = tuple(r for r in RULES if not r.expired(now))
        if len(live) != len(RULES):
            RULES = live
            _CHANGED.notify_all()
    if chosen is not None:
        LOG.info('RPC rule %d: %s %s', chosen.id, chosen.action,
                    message.describe())
    return chosen


def _hold(rule, message, resume=None):
    entry = Held(rule, message, resume)
    with _CHANGED:
        _HELD.append(entry)
        _CHANGED.notify_all()
    return entry


def _send_error(rule, message):
    if message.kind != 'call':
        return messaging.MessageDeliveryFailure(
            'RPC rule %d failed this cast' % rule.id)
    if rule.error == 'timeout':
        return messaging.MessagingTimeout(
            'RPC rule %d: no answer to %s' % (rule.id, message.method))
    return exception.InjectedRPCFault(rule=rule.id, method=message.method)


def on_send(message, send):
    """Apply the rules to ``message`` about to leave; ``send()`` sends it
    (and returns a call's answer)."""
    rule = _take(message)
    if rule is None:
        return send()
    action = rule.action
    call = message.kind == 'call'
    if action == 'hold':
        if not call:
            _hold(rule, message, resume=send)
            return None
        if not _hold(rule, message).wait():
            raise messaging.MessagingTimeout(
                'RPC rule %d discarded %s' % (rule.id, message.method))
        return send()
    if action == 'delay':
        if not call:
            timer = threading.Timer(rule.seconds, send)
            timer.daemon = True
            timer.start()
            return None
        time.sleep(rule.seconds)
        return send()
    if action == 'drop':
        if call:
            raise messaging.MessagingTimeout(
                'RPC rule %d dropped %s' % (rule.id, message.method))
        return None
    if action == 'duplicate':
        answer = send()
        send()
        return answer
    raise _send_error(rule, message)


def on_dispatch(message, handle):
    """Apply the rules to ``message`` a server received; ``handle()``
    dispatches it to the endpoints and returns the answer."""
    rule = _take(message)
    if rule is None:
        return handle()
    action = rule.action
    if action == 'hold':
        if not _hold(rule, message).wait():
            return None
        return handle()
    if action == 'delay':
        time.sleep(rule.seconds)
        return handle()
    if action == 'drop':
        return None
    if action == 'duplicate':
        answer = handle()
        handle()
        return answer
    raise exception.InjectedRPCFault(rule=rule.id, method=message.method)
