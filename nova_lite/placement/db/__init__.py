"""Placement database: models, migrations and the transaction context."""
