"""Helpers shared by the aggregate filters and weighers."""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def aggregate_number(host_state, key, default, cast=float):
    """The smallest number in metadata ``key`` of the host's aggregates.

    Several aggregates may set ``key``; the most restrictive (smallest)
    value wins, as in Nova. Values that do not parse are logged and
    ignored; with no valid value the ``default`` applies.
    """
    numbers = []
    for value in host_state.aggregate_values(key):
        try:
            numbers.append(cast(value))
        except (TypeError, ValueError):
            LOG.warning('Ignoring aggregate metadata %s=%r on host %s: '
                        'not a number', key, value, host_state.host)
    return min(numbers) if numbers else default
