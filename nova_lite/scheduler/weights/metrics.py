"""MetricsWeigher: host metrics reported by the computes, weighted.

``[metrics] weight_setting`` lists ``name=ratio`` items; a host weighs
``sum(metric * ratio)``. A host lacking one of the metrics weighs
``[metrics] weight_of_unavailable`` (very negative by default), so it comes
last instead of failing the request; MetricsFilter removes such hosts
outright when ``[metrics] required`` is set. Malformed items of
``weight_setting`` are logged and ignored.
"""

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler import weights

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


def parse_weight_setting(setting=None):
    """``[(metric name, ratio)]`` from ``name=ratio`` items."""
    if setting is None:
        setting = CONF.metrics.weight_setting
    parsed = []
    for item in setting:
        name, sep, ratio = item.partition('=')
        try:
            if not sep or not name.strip():
                raise ValueError(item)
            parsed.append((name.strip(), float(ratio)))
        except ValueError:
            LOG.warning('Ignoring metrics weight_setting item %r: expected '
                        'name=ratio', item)
    return parsed


class MetricsWeigher(weights.BaseHostWeigher):
    """Weighs hosts by a weighted sum of their metrics."""

    # Aggregate metadata key overriding [metrics] weight_multiplier.
    multiplier_option = 'metrics_weight_multiplier'

    def default_multiplier(self):
        return CONF.metrics.weight_multiplier

    def weigh_objects(self, hosts, spec):
        setting = parse_weight_setting()
        return [self._weigh_with(host, setting) for host in hosts]

    def _weigh_object(self, host_state, spec):
        return self._weigh_with(host_state, parse_weight_setting())

    def _weigh_with(self, host_state, setting):
        total = 0.0
        for name, ratio in setting:
            value = host_state.metrics.get(name)
            try:
                total += float(value) * ratio
            except (TypeError, ValueError):
                LOG.debug('%s lacks metric %s', host_state, name)
                return CONF.metrics.weight_of_unavailable
        return total
