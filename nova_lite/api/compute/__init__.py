"""The compute API layer the REST handlers call (runs in nova-lite-api).

:class:`nova_lite.api.compute.api.API` is the front; each operation lives
with its concern in a module of its own, and the errors the handlers catch
are in :mod:`nova_lite.exception`.
"""
