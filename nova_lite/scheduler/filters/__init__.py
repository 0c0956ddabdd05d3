"""Host filters: the plugin base class and the handler that runs them.

A filter decides, host by host, whether a host placement already found big
enough may take the instance: ``host_passes(host_state, spec)`` returns a
bool and logs why it said no. ``[filter_scheduler] enabled_filters`` names
the filters to run, in order; :class:`FilterHandler` runs them and records
how many hosts each one removed, which is what a NoValidHost explanation
shows (see :mod:`nova_lite.scheduler.explain`).

Before the filters, the handler narrows the hosts the way Nova does: to the
requested destination, without ``ignore_hosts``, and to ``force_hosts`` /
``force_nodes`` (forced hosts skip every filter).
"""

import sys

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler import loadables

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


class BaseHostFilter:
    """A filter plugin; subclasses implement :meth:`host_passes`."""

    # Evaluate only for the first instance of a multi-instance request:
    # the answer cannot change between picks.
    run_filter_once_per_request = False
    # Also run when a rebuild checks the instance's current host.
    RUN_ON_REBUILD = False

    @property
    def name(self):
        return type(self).__name__

    def host_passes(self, host_state, spec):
        """True when ``host_state`` may take the instance of ``spec``."""
        raise NotImplementedError()

    def run_filter_for_index(self, index):
        """Whether to run for the ``index``-th instance of the request."""
        return not (self.run_filter_once_per_request and index > 0)

    def filter_all(self, hosts, spec):
        """The hosts of ``hosts`` that pass, in order."""
        return [host for host in hosts if self.host_passes(host, spec)]


class FilterStep:
    """What one filter (or narrowing step) did to the host list."""

    def __init__(self, name, hosts_in, hosts_out, skipped=False):
        self.name = name
        self.hosts_in = hosts_in
        self.hosts_out = hosts_out
        self.skipped = skipped

    @property
    def removed(self):
        return self.hosts_in - self.hosts_out

    def __repr__(self):
        return '%s: %d -> %d' % (self.name, self.hosts_in, self.hosts_out)


class FilterResult:
    """Hosts that passed, and per step how many hosts were removed."""

    def __init__(self, hosts, steps, forced=False):
        self.hosts = hosts
        self.steps = steps
        self.forced = forced

    @property
    def last_filter(self):
        """The step that removed the last hosts, or None."""
        for step in self.steps:
            if step.hosts_out == 0 and step.hosts_in > 0:
                return step.name
        return None


def all_filters():
    """``{name: class}`` of every filter in this package."""
    package = sys.modules[__name__]
    return loadables.discover(package, BaseHostFilter)


def load_filters(names):
    """Instances of the filters ``names`` (class names or dotted paths)."""
    package = sys.modules[__name__]
    return [cls() for cls in loadables.load(
        names, package, BaseHostFilter, kind='filter')]


class FilterHandler:
    """Runs the enabled filters in order over a list of host states."""

    def __init__(self, filter_names=None):
        if filter_names is None:
            filter_names = CONF.filter_scheduler.enabled_filters
        self.filters = load_filters(filter_names)

    def get_filtered_hosts(self, hosts, spec, index=0, rebuild=False):
        """Narrow, then filter ``hosts`` for instance ``index`` of ``spec``.

        :param rebuild: a rebuild checks the instance's current host; only
            filters with ``RUN_ON_REBUILD`` run.
        :returns: a :class:`FilterResult`.
        """
        steps = []
        hosts = _narrow(list(hosts), spec, steps)
        forced = _forced(hosts, spec, steps)
        if forced is not None:
            return FilterResult(forced, steps, forced=True)
        for host_filter in self.filters:
            if (not host_filter.run_filter_for_index(index) or
                    (rebuild and not host_filter.RUN_ON_REBUILD)):
                steps.append(FilterStep(host_filter.name, len(hosts),
                                        len(hosts), skipped=True))
                continue
            before = len(hosts)
            hosts = host_filter.filter_all(hosts, spec)
            steps.append(FilterStep(host_filter.name, before, len(hosts)))
            LOG.debug('Filter %s returned %d of %d hosts',
                      host_filter.name, len(hosts), before)
            if not hosts:
                LOG.info('Filter %s removed the last %d hosts',
                         host_filter.name, before)
                break
        return FilterResult(hosts, steps)


def _keep(hosts, steps, name, predicate):
    kept = [host for host in hosts if predicate(host)]
    if len(kept) != len(hosts):
        steps.append(FilterStep(name, len(hosts), len(kept)))
    return kept


def _narrow(hosts, spec, steps):
    dest = spec.requested_destination
    if dest is not None and dest.host:
        hosts = _keep(hosts, steps, 'requested destination',
                      lambda h: h.host == dest.host and
                      (not dest.node or h.nodename == dest.node))
    if spec.ignore_hosts:
        ignored = {name.lower() for name in spec.ignore_hosts}
        hosts = _keep(hosts, steps, 'ignore_hosts',
                      lambda h: h.host.lower() not in ignored)
    return hosts


def _forced(hosts, spec, steps):
    """Hosts matching force_hosts/force_nodes, or None when not forced."""
    if not spec.force_hosts and not spec.force_nodes:
        return None
    forced_hosts = {name.lower() for name in spec.force_hosts}
    forced_nodes = {name.lower() for name in spec.force_nodes}
    kept = [h for h in hosts
            if (not forced_hosts or h.host.lower() in forced_hosts) and
            (not forced_nodes or h.nodename.lower() in forced_nodes)]
    steps.append(FilterStep('force_hosts/force_nodes', len(hosts), len(kept)))
    if kept:
        LOG.info('Forced hosts %s skip the filters',
                 ', '.join(h.host for h in kept))
    return kept
