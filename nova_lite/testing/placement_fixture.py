"""PlacementFixture: placement in-process on a fresh SQLite database.

Functional tests of other services use it::

    placement = self.useFixture(fixture.PlacementFixture())
    placement.client.create_provider('cn1')

It points ``[placement_database] connection`` at a new SQLite file (or at
``db_url``, an empty database the caller owns), syncs
the schema with the alembic migrations, builds the WSGI app and hands out a
:class:`nova_lite.clients.placement.PlacementClient` that reaches the app
without sockets (``client``), plus the app itself (``app``) and a factory
for clients with other tokens (``client_for(token)``).
"""

import os

import fixtures
from oslo_config import fixture as config_fixture

from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf
from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import migration
from nova_lite.placement import deploy
from nova_lite.placement import policy


def ensure_parsed(conf):
    """Parse an empty command line if nobody did (oslo.policy needs it)."""
    if getattr(conf, '_args', None) is None:
        conf([], project='nova-lite', default_config_files=[],
             default_config_dirs=[])


class PlacementFixture(fixtures.Fixture):
    def __init__(self, conf=None, token='admin', auth_strategy='noauth2',
                 configure=None, db_url=None):
        super().__init__()
        self.conf = conf or nl_conf.CONF
        self.token = token
        self.auth_strategy = auth_strategy
        self.configure = configure
        self.db_url = db_url

    def _setUp(self):
        ensure_parsed(self.conf)
        self.url = self.db_url
        if self.url is None:
            tmp = self.useFixture(fixtures.TempDir()).path
            self.url = 'sqlite:///' + os.path.join(tmp, 'placement.sqlite')
        conf_fixture = self.useFixture(config_fixture.Config(self.conf))
        conf_fixture.config(group='placement_database', connection=self.url)
        conf_fixture.config(group='placement_api',
                            auth_strategy=self.auth_strategy)
        self.conf_fixture = conf_fixture
        if self.configure is not None:
            self.configure(self)
        db_api.reset()
        policy.reset()
        self.addCleanup(db_api.reset)
        self.addCleanup(policy.reset)
        migration.db_sync(self.url)
        self.app = deploy.deploy(self.conf)
        self.client = self.client_for(self.token)

    def client_for(self, token):
        client = placement_client.in_process_client(self.app, conf=self.conf)
        client.session.headers['X-Auth-Token'] = token
        return client
