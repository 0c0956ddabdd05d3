"""Entry points of the nova_lite binaries, and what they share.

Each ``nova_lite/cmd/<binary>.py`` has a thin ``main()``: parse the
configuration (``--config-file`` repeatable, ``--config-dir``), set up
oslo.log, check the options the binary depends on, then serve until
SIGTERM and exit 0. A configuration mistake ends the process with one
line on stderr and exit status 2, never a traceback.
"""

import sys

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

import nova_lite  # noqa: F401 - selects the concurrency backend first
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite import rpc  # noqa: F401 - registers transport_url & co.

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

CONFIG_ERROR_STATUS = 2

_CONFIG_ERRORS = (cfg.Error, exception.ConfigInvalid,
                  messaging.InvalidTransportURL, ValueError)


class ConfigError(Exception):
    """A configuration mistake, reported as one line."""


def fail(prog, message):
    """Print ``prog: error: message`` on stderr; return the exit status."""
    sys.stderr.write('%s: error: %s\n' % (prog, message))
    return CONFIG_ERROR_STATUS


def parse_config(prog, argv, cli_opts=()):
    """Parse command line and files into CONF and set up logging."""
    logging.register_options(CONF)
    for opt in cli_opts:
        CONF.register_cli_opt(opt)
    CONF(argv, project='nova-lite', prog=prog, version='0.1.0')
    logging.setup(CONF, 'nova-lite')
    objects.register_all()


def check_common_options():
    """Read the options every service needs, so bad values fail early."""
    if not CONF.host or ' ' in CONF.host:
        raise ConfigError('[DEFAULT] host must be a name without spaces, '
                          'not %r' % CONF.host)
    for name in ('report_interval', 'service_down_time', 'periodic_enable',
                 'periodic_fuzzy_delay', 'graceful_shutdown_timeout'):
        getattr(CONF, name)
    # Parsing the URL checks its syntax without connecting.
    try:
        messaging.TransportURL.parse(CONF, CONF.transport_url)
    except messaging.InvalidTransportURL as exc:
        raise ConfigError('[DEFAULT] transport_url is invalid: %s' % exc)


def run(prog, argv, body, cli_opts=()):
    """Run ``body()`` with configuration errors turned into one line.

    ``body`` returns the exit status. Returns the process exit status.
    """
    try:
        parse_config(prog, argv, cli_opts=cli_opts)
        check_common_options()
        status = body()
    except ConfigError as exc:
        return fail(prog, exc)
    except _CONFIG_ERRORS as exc:
        return fail(prog, str(exc).strip().splitlines()[0] if str(exc)
                    else type(exc).__name__)
    except KeyboardInterrupt:
        return 1
    return status or 0
