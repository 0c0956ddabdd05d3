"""gunicorn run from inside our entry points (nova-lite-api, -placement).

Why gunicorn: a production-grade pre-fork server (a master supervising
worker processes, restarting any that die) that needs neither eventlet nor
monkey patching: each worker runs plain synchronous WSGI on threads (our
own worker class, :mod:`nova_lite.wsgi.worker`: a thread per connection,
``threads`` requests at a time). Driving it through
``gunicorn.app.base.BaseApplication`` keeps our binaries'
``--config-file`` / ``--config-dir`` interface: gunicorn's settings come
from oslo.config options, never from its command line.
SIGTERM makes the master stop its workers gracefully and exit 0.
"""

from gunicorn.app import base as gunicorn_base

# gunicorn's gthread hands every request between threads (see the module).
WORKER_CLASS = 'nova_lite.wsgi.worker.ConnectionThreadWorker'
# The longest request line both servers take, in bytes (Apache's default).
LIMIT_REQUEST_LINE = 8190


class GunicornServer(gunicorn_base.BaseApplication):
    """gunicorn with ``options`` as settings; each worker builds its own
    application with ``app_factory()`` after the fork."""

    def __init__(self, app_factory, options):
        self._app_factory = app_factory
        self._options = options
        super().__init__()

    def load_config(self):
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self):
        return self._app_factory()


def bind_address(host, port):
    """gunicorn's bind string; IPv6 addresses go in brackets."""
    if ':' in host and not host.startswith('['):
        host = '[%s]' % host
    return '%s:%d' % (host, port)


def options(proc_name, host, port, workers, keepalive, **extra):
    """The settings both servers share, plus ``extra``.

    ``keepalive`` is ``[wsgi] keep_alive_timeout``: gunicorn's 2-second
    default races clients polling every 2 seconds (see the option's help).
    """
    settings = {
        'bind': bind_address(host, port),
        'workers': workers,
        'worker_class': WORKER_CLASS,
        'threads': 4,
        'keepalive': keepalive,
        'proc_name': proc_name,
        # Two gunicorn masters on one machine (api, placement) must not
        # fight over gunicorn's default control socket.
        'control_socket_disable': True,
        # Nova behind Apache takes request lines up to 8190 bytes (a
        # listing filtered by many ``uuid=``); gunicorn's default 4094
        # resets the connection instead of answering. 8190 is gunicorn's
        # largest bounded value.
        'limit_request_line': LIMIT_REQUEST_LINE,
    }
    settings.update(extra)
    return settings
