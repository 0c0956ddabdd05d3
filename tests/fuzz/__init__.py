"""Fuzz suite: generated requests to both APIs (hypothesis,
from their route tables and JSON schemas). A small in-process run is a
functional test (tests/functional/test_fuzz.py); the big run against a
lab is ``python -m tests.fuzz`` (``tox -e fuzz``)."""
