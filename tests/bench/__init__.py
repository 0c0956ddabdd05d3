"""Benchmarks, run by ``tox -e bench``; never part of the test suite.

Each benchmark module has ``run(args) -> dict``; ``python -m tests.bench``
runs the chosen ones, writes each result as JSON under ``bench-results/``
and prints a table.
"""
