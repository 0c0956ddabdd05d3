"""nova-lite-api: the compute REST API, served by gunicorn.

Listens on ``[api] bind_host``:``bind_port`` with ``[api] workers``
processes, each loading :func:`nova_lite.api.wsgi.init_application`.
SIGTERM stops the workers gracefully (gunicorn's own handling) and the
process exits 0.
"""

import sys

from gunicorn.app import base as gunicorn_base

from nova_lite.api import wsgi
from nova_lite import cmd

BINARY = 'nova-lite-api'


class GunicornServer(gunicorn_base.BaseApplication):
    """gunicorn driven from our own configuration, not its command line."""

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


def gunicorn_options(conf):
    return {
        'bind': bind_address(conf.api.bind_host, conf.api.bind_port),
        'workers': conf.api.workers,
        'worker_class': 'gthread',
        'threads': 4,
        'proc_name': BINARY,
        'graceful_timeout': conf.graceful_shutdown_timeout or 60,
        'accesslog': '-',
        'errorlog': '-',
        # Two gunicorn masters on one machine (api, placement) must not
        # fight over gunicorn's default control socket.
        'control_socket_disable': True,
    }


def check_api_options(conf):
    """Fail early, in one line, on an unusable auth configuration."""
    if conf.api.auth_strategy == 'http_basic':
        from oslo_middleware import basic_auth
        try:
            basic_auth.validate_auth_file(conf.api.http_basic_auth_user_file)
        except Exception as exc:  # noqa: BLE001 - reported as one line
            raise cmd.ConfigError('[api] http_basic_auth_user_file: %s'
                                  % exc)


def _serve():
    check_api_options(cmd.CONF)
    options = gunicorn_options(cmd.CONF)
    GunicornServer(wsgi.init_application, options).run()
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    return cmd.run(BINARY, argv, _serve)


if __name__ == '__main__':
    sys.exit(main())
