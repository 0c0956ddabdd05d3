"""nova-lite-api: the compute REST API, served by gunicorn.

Listens on ``[api] bind_host``:``bind_port`` with ``[api] workers``
processes, each loading :func:`nova_lite.api.wsgi.init_application`.
SIGTERM stops the workers gracefully (gunicorn's own handling) and the
process exits 0.
"""

import sys

from oslo_middleware import basic_auth

from nova_lite.api import wsgi
from nova_lite import cmd
from nova_lite.wsgi import server as gunicorn_server

BINARY = 'nova-lite-api'


def gunicorn_options(conf):
    return gunicorn_server.options(
        BINARY, conf.api.bind_host, conf.api.bind_port, conf.api.workers,
        conf.wsgi.keep_alive_timeout,
        graceful_timeout=conf.graceful_shutdown_timeout or 60,
        accesslog='-', errorlog='-')


def check_api_options(conf):
    """Fail early, in one line, on an unusable auth configuration."""
    if conf.api.auth_strategy == 'http_basic':
        try:
            basic_auth.validate_auth_file(conf.api.http_basic_auth_user_file)
        except Exception as exc:  # noqa: BLE001 - reported as one line
            raise cmd.ConfigError('[api] http_basic_auth_user_file: %s'
                                  % exc)


def _serve():
    check_api_options(cmd.CONF)
    options = gunicorn_options(cmd.CONF)
    gunicorn_server.GunicornServer(wsgi.init_application, options).run()
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    return cmd.run(BINARY, argv, _serve)


if __name__ == '__main__':
    sys.exit(main())
