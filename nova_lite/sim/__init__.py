"""What-if scheduling: import a cloud, replay a workload, compare.

``nova-lite-manage sim`` (see doc/simulation.md) runs a recorded or
generated workload through the scheduler's own filters, weighers and
placement code, once per scheduler configuration, and compares what each
configuration decided. The pieces, each in its own module:

- :mod:`~nova_lite.sim.snapshot`: the snapshot file (a cloud's providers,
  flavors, aggregates and hypervisors) and its validation;
- :mod:`~nova_lite.sim.importer`: a snapshot read from any
  Placement-compatible API and, optionally, a compute API;
- :mod:`~nova_lite.sim.workload`: the JSON-lines trace and its generator;
- :mod:`~nova_lite.sim.cloud`: placement in this process, seeded from a
  snapshot, and the host manager that serves the snapshot's hosts;
- :mod:`~nova_lite.sim.runner`: one replay under one configuration;
- :mod:`~nova_lite.sim.report`: each run's figures and the comparison.
"""
