"""AggregateImagePropertiesIsolation: image properties vs aggregates.

For each aggregate metadata key of the host (restricted to a namespace by
``aggregate_image_properties_isolation_namespace`` and ``..._separator``)
that the image also sets, the image's value must be one of the aggregate's
values. Keys the image does not set do not count.
"""

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler import filters

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


def _in_namespace(key):
    opts = CONF.filter_scheduler
    namespace = opts.aggregate_image_properties_isolation_namespace
    if not namespace:
        return True
    separator = opts.aggregate_image_properties_isolation_separator
    return key.startswith(namespace + separator)


def _as_strings(value):
    if isinstance(value, (list, tuple, set)):
        return {str(v) for v in value}
    return {str(value)}


class AggregateImagePropertiesIsolation(filters.BaseHostFilter):
    """Rejects hosts whose aggregates pin other image property values."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = True

    def host_passes(self, host_state, spec):
        properties = spec.image.properties
        for key, values in host_state.aggregate_metadata().items():
            if not _in_namespace(key):
                continue
            prop = properties.get(key)
            if prop is None or prop == '':
                continue
            if not _as_strings(prop) & values:
                LOG.debug('%s rejected: image %s=%s, aggregate allows %s',
                          host_state, key, prop, sorted(values))
                return False
        return True
