"""Live compatibility runs of upstream Placement's own tests.

Nothing of upstream is kept in this repository: :mod:`tests.compat.upstream`
fetches the pinned ``openstack-placement`` sdist with pip at run time, and
osc-placement's functional tests come from the installed ``osc-placement``.

- ``python -m tests.compat.placement_gabbits URL --group GROUP``: Placement's
  gabbi files against a running Placement-compatible service.
- ``python -m tests.compat.osc_placement URL``: osc-placement's functional
  tests against it.
- ``python -m tests.compat``: what ``tox -e compat`` runs; starts
  ``nova-lite-placement`` once per group with the configuration the group
  needs and runs both suites.
"""
