"""An importable harness for tests running nova_lite in one process.

See :mod:`nova_lite.testing.fixtures`: configuration, databases with their
schema, services started and stopped in-process.
"""

from nova_lite.testing.fixtures import CastAsCallFixture  # noqa: F401
from nova_lite.testing.fixtures import Cell  # noqa: F401
from nova_lite.testing.fixtures import ConfFixture  # noqa: F401
from nova_lite.testing.fixtures import DatabaseFixture  # noqa: F401
from nova_lite.testing.fixtures import make_service  # noqa: F401
from nova_lite.testing.fixtures import ServiceFixture  # noqa: F401
from nova_lite.testing.fixtures import start_service  # noqa: F401
