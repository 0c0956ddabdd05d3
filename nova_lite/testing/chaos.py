"""Message-level control and a fake clock for in-process tests.

:class:`IntegratedFixture <nova_lite.testing.integrated.IntegratedFixture>`
exposes these as ``add_rule``, ``wait_held``, ``release``,
``clear_rules``, ``use_fake_clock``, ``run_periodic`` and
``compute_down``; this module holds what they share with any other
harness that runs services in one process.

Rules (:mod:`nova_lite.rpc_rules`) are process-wide, and in-process tests
run every service in the test's process, so one rule sees every message.
Buses are named as the harness names them: ``'api'`` for the API bus, a
cell's name for its bus (the engine knows a bus by its virtual host,
empty for the API bus of the harness).

The fake clock freezes ``oslo_utils.timeutils.utcnow``, which the
services' records take their time from (``created_at``, heartbeats'
``last_seen_up``) as do liveness and build timeouts, and moves it only
when told.
Waits and periodic intervals measured with ``time.monotonic`` (the
harness's polling, ``Manager._due``) are left alone: a test runs a
periodic task on demand instead (``Manager.run_periodic_now``).
"""

import datetime
import threading

import fixtures
from oslo_utils import timeutils

from nova_lite import rpc_rules

API_BUS_NAME = 'api'


def engine_bus(name):
    """The engine's name of the bus a harness calls ``name``."""
    return '' if name == API_BUS_NAME else name


def harness_bus(name):
    """The harness's name of the engine's bus ``name``."""
    return API_BUS_NAME if name == '' else name


def _engine_match(match):
    match = {k: v for k, v in match.items() if v is not None}
    if 'bus' in match:
        match['bus'] = engine_bus(match['bus'])
    return match


def _harness_view(described):
    described = dict(described)
    if 'bus' in described:
        described['bus'] = harness_bus(described['bus'])
    return described


class Rules(fixtures.Fixture):
    """Rules and held messages for one test; all gone at cleanup.

    At cleanup every rule is removed and every held message discarded
    (a held call raises ``MessagingTimeout`` in its caller, a held
    dispatch is not handled), so nothing stays blocked while the services
    stop. Use it before the services' own fixture cleans up (the
    integrated fixture does).
    """

    def _setUp(self):
        self.addCleanup(rpc_rules.clear, discard=True)

    def add(self, action, **kwargs):
        """Add a rule (see :class:`nova_lite.rpc_rules.Rule`); its id."""
        return rpc_rules.add(action, **_engine_match(kwargs))

    def remove(self, rule_id):
        return rpc_rules.remove(rule_id)

    def rules(self):
        return [_harness_view(r) for r in rpc_rules.rules()]

    def held(self, **match):
        return [_harness_view(h) for h in rpc_rules.held(
            **_engine_match(match))]

    def wait_held(self, timeout=10.0, **match):
        """The first held message matching ``match`` (waits for it)."""
        return _harness_view(rpc_rules.wait_held(
            timeout=timeout, **_engine_match(match)))

    def wait_spent(self, rule_id, timeout=10.0):
        """Wait until the rule has acted its ``count`` times."""
        rpc_rules.wait_spent(rule_id, timeout=timeout)

    def release(self, discard=False, **match):
        return rpc_rules.release(discard=discard, **_engine_match(match))

    def clear(self, discard=False):
        return rpc_rules.clear(discard=discard)


class FakeClock(fixtures.Fixture):
    """``timeutils.utcnow`` frozen at ``start`` (default: now) until
    :meth:`advance` moves it; restored at cleanup."""

    def __init__(self, start=None):
        super().__init__()
        self._now = (start or timeutils.utcnow()).replace(tzinfo=None)
        self._lock = threading.Lock()

    def _setUp(self):
        self.useFixture(fixtures.MonkeyPatch('oslo_utils.timeutils.utcnow',
                                             self.utcnow))

    def utcnow(self, with_timezone=False):
        """What ``timeutils.utcnow`` answers while the clock is in use."""
        with self._lock:
            now = self._now
        if with_timezone:
            return now.replace(tzinfo=datetime.UTC)
        return now

    def advance(self, seconds):
        """Move the clock ``seconds`` forward (everything reads it)."""
        with self._lock:
            self._now += datetime.timedelta(seconds=seconds)
