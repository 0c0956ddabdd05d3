"""A small WSGI app under nova_lite's gunicorn worker, for test_worker.

``python -m tests.functional.wsgi.worker_app PORT THREADS KEEPALIVE``
serves, on 127.0.0.1:PORT (one worker process):

* ``/thread``: the id of the thread that answered;
* ``/slow?seconds=S``: sleeps S seconds, then the most requests it saw
  in the application at once (``max=N``);
* ``/body``: reads the body and answers its length;
* ``/boom``: raises.
"""

import sys
import threading
import time
import urllib.parse

from nova_lite.wsgi import server

_LOCK = threading.Lock()
_STATE = {'now': 0, 'max': 0}


def _slow(environ):
    seconds = float(urllib.parse.parse_qs(
        environ.get('QUERY_STRING', '')).get('seconds', ['0.3'])[0])
    with _LOCK:
        _STATE['now'] += 1
        _STATE['max'] = max(_STATE['max'], _STATE['now'])
    try:
        time.sleep(seconds)
    finally:
        with _LOCK:
            _STATE['now'] -= 1
    return 'max=%d' % _STATE['max']


def app(environ, start_response):
    path = environ['PATH_INFO']
    if path == '/thread':
        text = str(threading.get_ident())
    elif path == '/slow':
        text = _slow(environ)
    elif path == '/body':
        text = str(len(environ['wsgi.input'].read()))
    elif path == '/boom':
        raise RuntimeError('boom')
    else:
        text = 'ok'
    body = text.encode()
    start_response('200 OK', [('Content-Type', 'text/plain'),
                              ('Content-Length', str(len(body)))])
    return [body]


def main(argv):
    port, threads, keepalive = (int(a) for a in argv[:3])
    options = server.options('worker-test', '127.0.0.1', port, 1, keepalive,
                             threads=threads, graceful_timeout=10)
    server.GunicornServer(lambda: app, options).run()


if __name__ == '__main__':
    main(sys.argv[1:])
