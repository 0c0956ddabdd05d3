"""Fault suite (``tox -e faults``): real processes on a
private RabbitMQ node and a private MariaDB, faults injected mid-burst,
the invariants checked after the repair. See ``__main__`` for the CLI."""
