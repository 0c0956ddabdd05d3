"""Cost of one RPC hop through nova_lite's RPC layer.

A server and a client in one process on the same bus, through
``nova_lite.rpc`` (context serializer, versioned-object serializer,
per-bus exchange): sequential ``ping`` calls (base API) and the rate of
casts handled end to end. On RabbitMQ (``NOVA_LITE_RABBIT_URL``, default
guest on 127.0.0.1) when it answers, and on ``fake://`` for comparison
(its driver polls every 50 ms, so it shows the test transport's cost, not
a deployment's).
"""

import os
import socket
import threading
import time
import urllib.parse
import uuid

import oslo_messaging as messaging

from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import rpc
from tests.bench import stats

RABBIT_URL = os.environ.get('NOVA_LITE_RABBIT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')


class _Endpoint:
    target = messaging.Target(version='1.0')

    def __init__(self, expected_casts):
        self.casts = 0
        self.expected = expected_casts
        self.done = threading.Event()

    def ping(self, context, arg):
        return arg

    def count(self, context):
        self.casts += 1
        if self.casts >= self.expected:
            self.done.set()


def _rabbit_answers():
    url = urllib.parse.urlsplit(RABBIT_URL)
    try:
        with socket.create_connection((url.hostname or '127.0.0.1',
                                       url.port or 5672), timeout=2):
            return True
    except OSError:
        return False


def _measure(url, calls, casts):
    topic = 'bench_%s' % uuid.uuid4().hex[:8]
    transport = rpc.get_cell_transport(url)
    endpoint = _Endpoint(casts)
    server = rpc.get_server(messaging.Target(topic=topic, server='bench'),
                            [endpoint], transport=transport)
    server.start()
    client = rpc.get_client(messaging.Target(topic=topic, version='1.0'),
                            transport=transport)
    ctx = nl_context.get_admin_context()
    try:
        client.call(ctx, 'ping', arg='warm-up')
        samples = []
        for i in range(calls):
            t0 = time.perf_counter()
            client.call(ctx, 'ping', arg=i)
            samples.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for _ in range(casts):
            client.cast(ctx, 'count')
        endpoint.done.wait(timeout=120)
        cast_seconds = time.perf_counter() - t0
    finally:
        server.stop()
        server.wait()
    row = stats.summarize(samples)
    row['casts_per_s'] = round(endpoint.casts / cast_seconds, 1)
    return row


def run(args):
    nl_conf.CONF([], project='nova_lite')
    rows = []
    if _rabbit_answers():
        row = _measure(RABBIT_URL, 100 if args.quick else 1000,
                       500 if args.quick else 5000)
        rows.append(dict(transport='rabbit', **row))
    row = _measure('fake:///bench', 10 if args.quick else 40,
                   50 if args.quick else 200)
    rows.append(dict(transport='fake', **row))
    rpc.cleanup()
    return {'rows': rows}
