"""HTTP clients of nova_lite's own services (no server code here).

``placement``: the typed placement client used by the scheduler, the
conductors and the computes, plus its in-process variant for tests.
"""
