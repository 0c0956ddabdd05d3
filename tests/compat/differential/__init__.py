"""A differential check of nova_lite's placement against Placement 16.

The same generated request sequences go to a reference (real OpenStack
Placement 16) and a target (nova_lite's placement, or any other
Placement); their answers are compared by :mod:`.compare`. It covers what
no upstream suite does: random data, random microversions, and
allocation candidates on random trees compared as sets. See
doc/placement-compat.md ("Differential check").
"""
