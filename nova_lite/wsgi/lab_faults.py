"""Lab faults of the REST services: requests delayed or answered 503.

``nova-lite-manage chaos fault placement|compute-api`` writes the fault
in a small JSON file of the lab's state directory (:data:`FILE`); the
:class:`LabFault` layer of each REST service reads it, so no bus is
needed (placement consumes none). ``chaos clear`` (and so
``unstack.sh``) removes the file.

The file holds ``{service: {'delay', 'jitter', 'error_rate', 'until'}}``:
every request waits ``delay`` seconds plus a uniform random part up to
``jitter``, then a fraction ``error_rate`` of them is answered 503 in the
service's own error format; ``until`` (epoch seconds, optional) ends the
fault by itself.

Without a fault the cost is one ``os.stat`` of the file at most every
:data:`CHECK_INTERVAL` seconds per process; the file is read only when
its modification time or size changed.
"""

import os
import random
import threading
import time

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob.exc

from nova_lite.wsgi import layer

LOG = logging.getLogger(__name__)

FILE = 'chaos-api-faults.json'
SERVICES = ('placement', 'compute')
CHECK_INTERVAL = 1.0


def state_dir(conf):
    """The lab's state directory of this process, or None: the
    ``NOVA_LITE_STATE_DIR`` environment variable, or the directory above
    the configuration file's when it holds the lab's ``pids``."""
    if os.environ.get('NOVA_LITE_STATE_DIR'):
        return os.environ['NOVA_LITE_STATE_DIR']
    files = getattr(conf, 'config_file', None) or []
    if files:
        found = os.path.dirname(os.path.dirname(os.path.abspath(files[0])))
        if os.path.isdir(os.path.join(found, 'pids')):
            return found
    return None


def check(fault):
    """``fault`` with its values checked (ValueError otherwise)."""
    checked = {}
    for name in ('delay', 'jitter', 'error_rate'):
        value = float(fault.get(name) or 0)
        if value < 0:
            raise ValueError('%s must not be negative' % name)
        checked[name] = value
    if checked['error_rate'] > 1:
        raise ValueError('error_rate is a fraction between 0 and 1')
    if not any(checked.values()):
        raise ValueError('a fault needs a delay, a jitter or an error rate')
    if fault.get('until') is not None:
        checked['until'] = float(fault['until'])
    return checked


def read(state):
    """``{service: fault}`` recorded in ``state`` (expired ones too)."""
    try:
        with open(os.path.join(state, FILE)) as f:
            faults = jsonutils.loads(f.read())
    except FileNotFoundError:
        return {}
    return faults if isinstance(faults, dict) else {}


def write(state, service, fault):
    """Record ``fault`` for ``service`` (replacing its previous one)."""
    if service not in SERVICES:
        raise ValueError('service must be one of %s' % ', '.join(SERVICES))
    faults = read(state)
    faults[service] = check(fault)
    path = os.path.join(state, FILE)
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(jsonutils.dumps(faults, sort_keys=True))
    os.replace(tmp, path)
    return faults[service]


def remove(state):
    """Remove every REST fault of the lab; the services it named."""
    faults = read(state)
    try:
        os.unlink(os.path.join(state, FILE))
    except FileNotFoundError:
        pass
    return sorted(faults)


class FaultFile:
    """The current fault of one service, from the file, checked at most
    every :data:`CHECK_INTERVAL` seconds."""

    def __init__(self, path, service, clock=time.monotonic,
                 wall=time.time):
        self.path = path
        self.service = service
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._next_check = None
        self._stamp = None
        self._fault = None

    def current(self):
        now = self._clock()
        if self._next_check is None or now >= self._next_check:
            with self._lock:
                self._next_check = now + CHECK_INTERVAL
                self._refresh()
        fault = self._fault
        if fault and fault.get('until') is not None and \
                self._wall() >= fault['until']:
            return None
        return fault

    def _refresh(self):
        try:
            st = os.stat(self.path)
        except OSError:
            self._stamp = self._fault = None
            return
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            with open(self.path) as f:
                fault = jsonutils.loads(f.read()).get(self.service)
            self._fault = check(fault) if fault else None
        except (OSError, ValueError, AttributeError, TypeError) as exc:
            LOG.warning('Lab fault file %s ignored: %s', self.path, exc)
            self._fault = None
        if self._fault:
            LOG.warning('Lab fault of %s: %s', self.service, self._fault)


class LabFault(layer.Layer):
    """Delay requests and answer some with 503 while a fault is set."""

    def __init__(self, app, faults, errors, sleep=time.sleep,
                 rand=random.random):
        self.app = app
        self.faults = faults
        self.errors = errors
        self._sleep = sleep
        self._rand = rand

    def handle(self, req):
        fault = self.faults.current()
        if fault:
            delay = fault['delay']
            if fault['jitter']:
                delay += self._rand() * fault['jitter']
            if delay:
                self._sleep(delay)
            if fault['error_rate'] and self._rand() < fault['error_rate']:
                return self.errors.render(
                    req, webob.exc.HTTPServiceUnavailable(
                        'Lab fault: the service answers some requests '
                        'with 503 (nova-lite-manage chaos clear ends it).'))
        return self.call_app(req)


def wrap(app, conf, service, errors):
    """``app`` behind a :class:`LabFault` when this process belongs to a
    lab (has a state directory); ``app`` itself otherwise. ``errors``:
    the service's error format (``wsgi.faults.ErrorFormat``)."""
    state = state_dir(conf)
    if state is None:
        return app
    return LabFault(app, FaultFile(os.path.join(state, FILE), service),
                    errors)
