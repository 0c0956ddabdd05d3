"""nova-lite-manage notifications listen: print notifications live.

A real oslo.messaging notification listener on the notification transport
(``[oslo_messaging_notifications] transport_url``, else ``[DEFAULT]
transport_url``: run it with the lab's ``api-level.conf``), on the
versioned topics (``[notifications] versioned_notifications_topics``) or
the ``--topic`` given, every priority. One line per notification::

    2026-12-07T05:59:01 INFO nova-compute:host1 instance.create.end
        InstancePayload 1f0e... req-9c1a...

(on one line), or the whole notification as one JSON object per line with
``--json``. Without ``--pool`` it reads the topics' own queues, which keep
what was sent while nobody listened (that comes first); ``--pool NAME``
gets a copy of what is sent from then on, beside other consumers (RabbitMQ
keeps the pool's queue after the listener exits). Stops on Ctrl-C, after
``--count`` notifications or ``--timeout`` seconds; exits 0.
"""

import signal
import sys
import threading

from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_lite.cmd import manage_common as common
from nova_lite import conf as nl_conf
from nova_lite.notifications import listener
from nova_lite import rpc

CONF = nl_conf.CONF


def _summary(notification):
    payload = notification['payload'] or {}
    data = payload.get('nova_object.data', payload)
    subject = (data.get('uuid') or data.get('instance_uuid') or
               data.get('instance_id') or data.get('host') or
               data.get('name') or '-') if isinstance(data, dict) else '-'
    request_id = (notification['context'] or {}).get('request_id') or '-'
    return '%s %s %s %s %s %s %s' % (
        timeutils.utcnow().strftime('%Y-%m-%dT%H:%M:%S'),
        notification['priority'], notification['publisher_id'],
        notification['event_type'],
        payload.get('nova_object.name', '-'), subject, request_id)


class _Printer:
    def __init__(self, as_json, count, out):
        self.as_json = as_json
        self.count = count
        self.out = out
        self.printed = 0
        self.done = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, notification):
        with self._lock:
            if self.done.is_set():
                return
            line = (jsonutils.dumps(dict(notification)) if self.as_json
                    else _summary(notification))
            print(line, file=self.out, flush=True)
            self.printed += 1
            if self.count and self.printed >= self.count:
                self.done.set()


def listen(args, out=None):
    topics = args.topic or CONF.notifications.versioned_notifications_topics
    printer = _Printer(args.json, args.count, out or sys.stdout)
    transport = rpc.get_notification_transport()
    started = listener.start(transport, topics, printer, pool=args.pool)
    print('Listening on %s (Ctrl-C to stop)' % ', '.join(topics),
          file=sys.stderr, flush=True)
    main = threading.current_thread() is threading.main_thread()
    if main:
        previous = signal.signal(signal.SIGTERM,
                                 lambda *unused: printer.done.set())
    try:
        printer.done.wait(args.timeout)
    except KeyboardInterrupt:
        pass
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        started.stop()
        started.wait()
    return 0


def build_parser(categories):
    notes = categories.add_parser('notifications', help='notifications')
    acts = notes.add_subparsers(dest='action', required=True,
                                metavar='ACTION',
                                parser_class=common.Parser)
    listen_p = acts.add_parser('listen', help='print notifications live')
    listen_p.add_argument('--topic', action='append',
                          help='topic to listen on (repeatable; default: '
                          '[notifications] versioned_notifications_topics)')
    listen_p.add_argument('--pool', help='listen in this pool (its own '
                          'copy of every notification)')
    listen_p.add_argument('--json', action='store_true',
                          help='one JSON object per notification')
    listen_p.add_argument('--count', type=int, default=0,
                          help='stop after this many (default: never)')
    listen_p.add_argument('--timeout', type=float, default=None,
                          help='stop after this many seconds')
    listen_p.set_defaults(func=listen)
