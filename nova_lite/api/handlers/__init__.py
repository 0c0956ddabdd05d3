"""Compute API handlers, one module per URL family (see ``router.py``)."""
