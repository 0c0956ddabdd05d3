"""Gabbi fixtures of the placement API tests.

Each YAML file names one fixture; it runs once per file, so every file is
an ordered story on a fresh SQLite database (a fresh MariaDB database
instead with ``NOVA_LITE_PLACEMENT_TEST_DB=mysql``). The WSGI app under
test is handed to gabbi's intercept through :func:`current_app`, behind
a check of every response against placement's OpenAPI document
(:mod:`tests.functional.openapi_check`): a response the document does not
allow fails the test that made the request.
"""

import os

from gabbi import fixture as gabbi_fixture
import fixtures

from tests import db_fixtures
from tests.functional import openapi_check

from nova_lite.placement import handler
from nova_lite.placement import openapi
from nova_lite.testing import placement_fixture

DOCUMENT = openapi.document(handler.ROUTE_DECLARATIONS)


class _Current:
    """The app of the fixture running now (gabbi runs files one by one)."""
    app = None


def _delegate(environ, start_response):
    return _Current.app(environ, start_response)


def current_app():
    """gabbi's intercept factory: an app calling the running fixture's."""
    return _delegate


class APIFixture(gabbi_fixture.GabbiFixture):
    """noauth2 placement, legacy policy rules, empty database."""

    auth_strategy = 'noauth2'

    def configure(self, placement):
        """Hook for subclasses: more configuration before the app."""

    def _mysql_url(self):
        if os.environ.get('NOVA_LITE_PLACEMENT_TEST_DB') != 'mysql':
            return None
        reason = db_fixtures.mysql_unavailable_reason()
        if reason:
            raise RuntimeError(reason)
        url = db_fixtures.random_mysql_url('nl_placement_gabbi')
        self.cleanups.append(lambda: db_fixtures.drop_mysql_database(url))
        return url

    def start_fixture(self):
        self.cleanups = []
        self.placement = placement_fixture.PlacementFixture(
            auth_strategy=self.auth_strategy, configure=self.configure,
            db_url=self._mysql_url())
        self.placement.setUp()
        _Current.app = openapi_check.ResponseChecker(
            self.placement.app, DOCUMENT, 'placement')

    def stop_fixture(self):
        _Current.app = None
        self.placement.cleanUp()
        for cleanup in self.cleanups:
            cleanup()


class SecureRBACFixture(APIFixture):
    """The new (secure RBAC) policy defaults enforced."""

    def configure(self, placement):
        placement.conf_fixture.config(group='oslo_policy',
                                      enforce_new_defaults=True)


# htpasswd entries (bcrypt) for user "admin" / password "secret" and user
# "alice" / password "secret".
_HTPASSWD = (
    'admin:$2b$05$cl3aWNDWYpo36Ph6d5mbj.yQ5UitSQoDLNZ8G7UJmru.RTzA2bZXu\n'
    'alice:$2b$05$cl3aWNDWYpo36Ph6d5mbj.yQ5UitSQoDLNZ8G7UJmru.RTzA2bZXu\n')


class BasicAuthFixture(APIFixture):
    """HTTP basic authentication against an htpasswd file."""

    auth_strategy = 'http_basic'

    def configure(self, placement):
        tmp = placement.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'htpasswd')
        with open(path, 'w') as f:
            f.write(_HTPASSWD)
        placement.conf_fixture.config(group='placement_api',
                                      http_basic_auth_user_file=path)


class RandomCandidatesFixture(APIFixture):
    """Allocation candidates sampled at random, at most 3 generated."""

    def configure(self, placement):
        placement.conf_fixture.config(
            group='placement_api', randomize_allocation_candidates=True,
            max_allocation_candidates=3)


class CORSFixture(APIFixture):
    """oslo.middleware's CORS filter on, for one allowed origin."""

    def configure(self, placement):
        placement.conf_fixture.config(
            group='cors', allowed_origin=['http://valid.example.com'])
