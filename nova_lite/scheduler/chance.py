"""The chance scheduler: any host placement found, picked at random.

``[scheduler] driver = chance_scheduler`` replaces filtering and weighing
by a random order of the hosts placement returned. Placement has already
checked resources, traits, aggregates and availability zones; the chance
scheduler still honours what only the scheduler knows (the requested
destination, ``ignore_hosts``, forced hosts) and never picks a compute
whose service is disabled or down (ComputeFilter). Server group policies
are not enforced, as with Nova's old ChanceScheduler: use the filter
scheduler for them.
"""

import random

from nova_lite.scheduler import filters

# The only filter the chance scheduler runs.
CHANCE_FILTERS = ('ComputeFilter',)


class ChanceOrder:
    """Orders hosts at random after the minimal checks."""

    def __init__(self, rng=None):
        self.handler = filters.FilterHandler(list(CHANCE_FILTERS))
        self.rng = rng or random.Random()

    def sorted_hosts(self, hosts, spec, index=0):
        """``(hosts in random order, FilterResult)``."""
        result = self.handler.get_filtered_hosts(hosts, spec, index)
        ordered = list(result.hosts)
        self.rng.shuffle(ordered)
        return ordered, result
