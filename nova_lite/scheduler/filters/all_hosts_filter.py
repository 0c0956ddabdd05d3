"""AllHostsFilter: every host passes.

With ``host_subset_size`` it turns the filter scheduler into a random pick
among the hosts placement found, which is what Nova suggests instead of
its removed chance scheduler.
"""

from nova_lite.scheduler import filters


class AllHostsFilter(filters.BaseHostFilter):
    """Lets every host through."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec):
        return True
