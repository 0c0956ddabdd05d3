"""Configuration options of nova_lite, one module per option group.

Every module defines its options with help text, a ``register_opts(conf)``
and a ``list_opts()``; ``opts.list_opts`` feeds oslo-config-generator, which
writes ``etc/nova-lite/nova-lite.conf.sample``.

The options are registered on the global ``cfg.CONF`` because oslo.messaging
(18.3) registers some of its own groups only there; tests that need a private
``ConfigOpts`` call :func:`register_opts` on it.
"""

from oslo_config import cfg

from nova_lite.conf import allocation
from nova_lite.conf import api
from nova_lite.conf import compute
from nova_lite.conf import conductor
from nova_lite.conf import cors
from nova_lite.conf import dashboard
from nova_lite.conf import database
from nova_lite.conf import default
from nova_lite.conf import fake_driver
from nova_lite.conf import filter_scheduler
from nova_lite.conf import glance
from nova_lite.conf import image_catalog
from nova_lite.conf import notifications
from nova_lite.conf import oslo_messaging_notifications
from nova_lite.conf import placement
from nova_lite.conf import placement_api
from nova_lite.conf import quota
from nova_lite.conf import scheduler
from nova_lite.conf import wsgi

CONF = cfg.CONF

ALL_MODULES = (
    default, allocation, database, api, placement, placement_api, scheduler,
    filter_scheduler, compute, conductor, fake_driver, image_catalog,
    glance, quota, cors, dashboard, wsgi, notifications,
    oslo_messaging_notifications,
)


def register_opts(conf):
    for module in ALL_MODULES:
        module.register_opts(conf)


register_opts(CONF)
