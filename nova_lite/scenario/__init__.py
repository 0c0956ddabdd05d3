"""Chaos scenarios: a workload and a timeline of faults run against a lab.

A scenario file (YAML, :mod:`nova_lite.scenario.schema`) says what a user
does (boots, deletes, resizes, lists, at a rate), what goes wrong meanwhile
(RPC rules, computes killed and restarted, a cell frozen) and what must
hold at the end (the invariants). ``nova-lite-manage chaos run FILE``
(:mod:`nova_lite.scenario.runner`) drives it through the compute API over
HTTP, as a user would, and through the chaos controls over the bus, and
ends with a report (:mod:`nova_lite.scenario.report`). Every wait is
bounded: a run that cannot finish reports the invariant it could not check
as failed instead of hanging.

The scenarios shipped with nova_lite are in ``scenarios/`` next to this
module (:func:`nova_lite.scenario.loader.shipped`).
"""
