"""Start the two services a differential run compares, on given ports.

- The reference: OpenStack Placement 16 (:mod:`tests.compat.reference`).
- The target: ``nova-lite-placement`` as ``tests/compat/__main__.py``
  starts it (one worker, noauth2, SQLite).
"""

import fixtures

from tests.compat import __main__ as compat_main
from tests.functional.placement import server


def free_port():
    return server.free_port()


class TargetPlacement(compat_main.ConfiguredServer):
    """nova-lite-placement on a chosen port (or a free one)."""

    def __init__(self, db_url, port=None):
        super().__init__(db_url, '')
        self.port = port

    def _setUp(self):
        if self.port:
            # Keep the server in the port range the run was given.
            self.useFixture(fixtures.MonkeyPatch(
                'tests.functional.placement.server.free_port',
                lambda: self.port))
        super()._setUp()
