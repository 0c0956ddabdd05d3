"""nova-lite-placement: serve the placement WSGI app with gunicorn.

``[placement_api] workers`` worker processes behind one master (why
gunicorn: :mod:`nova_lite.wsgi.server`). SIGTERM makes the master
stop its workers gracefully and exit 0.

Each worker builds its own application (and so its own database engine)
after the fork; SQLite files are shared safely through WAL and
``BEGIN IMMEDIATE`` writers (see ``nova_lite.db.session``).
"""

import sys

from oslo_config import cfg
from oslo_log import log as logging

import nova_lite  # noqa: F401 - selects the concurrency backend first
from nova_lite import conf as nl_conf
from nova_lite.placement.db import api as db_api
from nova_lite.placement import deploy
from nova_lite.placement import wsgi
from nova_lite.wsgi import server as gunicorn_server

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)
PROG = 'nova-lite-placement'


def _post_fork(server, worker):
    # NOTE(nova_lite): engines must never cross a fork.
    db_api.reset()


def _check_options():
    """Read every option the server uses, so bad values fail here, once,
    instead of in each worker."""
    for group in ('placement_api', 'placement_database'):
        for name in CONF[group]:
            getattr(CONF[group], name)
    if not CONF.placement_database.connection:
        raise cfg.Error('[placement_database] connection is not set')


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        wsgi.setup(CONF, argv)
        _check_options()
    except (cfg.Error, ValueError) as exc:
        message = str(exc).strip().splitlines()[0] if str(exc) else exc
        sys.stderr.write('%s: error: %s\n' % (PROG, message))
        return 2
    LOG.info('nova-lite-placement listening on %s:%d with %d workers',
             CONF.placement_api.bind_host, CONF.placement_api.bind_port,
             CONF.placement_api.workers)
    group = CONF.placement_api
    options = gunicorn_server.options(
        PROG, group.bind_host, group.bind_port, group.workers,
        CONF.wsgi.keep_alive_timeout, graceful_timeout=10, timeout=120,
        accesslog=None, post_fork=_post_fork)
    gunicorn_server.GunicornServer(lambda: deploy.deploy(CONF),
                                   options).run()
    return 0


if __name__ == '__main__':
    sys.exit(main())
