"""WSGI entry point for servers other than nova-lite-placement's own.

``nova_lite.placement.wsgi:init_application`` is a factory: call it once
per worker to get the application, e.g. uwsgi ``--module
'nova_lite.placement.wsgi:init_application()'`` or gunicorn
``'nova_lite.placement.wsgi:init_application()'``. Configuration files come
from ``NOVA_LITE_CONFIG_FILES`` (comma separated; default
``/etc/nova-lite/nova-lite.conf`` when it exists).
"""

import os

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.placement import deploy

DEFAULT_CONFIG = '/etc/nova-lite/nova-lite.conf'


def _config_files():
    env = os.environ.get('NOVA_LITE_CONFIG_FILES')
    if env:
        return [f for f in env.split(',') if f]
    return [DEFAULT_CONFIG] if os.path.exists(DEFAULT_CONFIG) else []


def setup(conf, argv=None, default_config_files=None):
    """Parse configuration and set up oslo.log for the placement service."""
    if 'log_dir' not in conf:
        logging.register_options(conf)
    conf(argv or [], project='nova-lite', prog='nova-lite-placement',
         default_config_files=default_config_files)
    logging.setup(conf, 'nova-lite-placement')


def init_application():
    """Parse configuration, set up logging, return the WSGI application."""
    conf = nl_conf.CONF
    setup(conf, default_config_files=_config_files())
    return deploy.deploy(conf)
