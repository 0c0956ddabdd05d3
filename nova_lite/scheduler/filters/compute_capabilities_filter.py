"""ComputeCapabilitiesFilter: flavor ``capabilities:*`` vs the host.

A flavor extra spec ``capabilities:NAME`` (nested with more colons, e.g.
``capabilities:cpu_info:arch``) is looked up on the host state: first as
an attribute, then as keys into dicts (``cpu_info`` is a dict), then in
the compute's ``stats``; the value must match the requirement (operators
in ``extra_specs_ops``). An unscoped key counts only when the host has
such an attribute or stat, so keys meant for other consumers do not reject
every host.
"""

from oslo_log import log as logging

from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import extra_specs_ops

LOG = logging.getLogger(__name__)

SCOPE = 'capabilities'
_MISSING = object()


def _lookup(host_state, path):
    head, rest = path[0], path[1:]
    value = getattr(host_state, head, _MISSING)
    if value is _MISSING or head.startswith('_'):
        value = host_state.stats.get(head, _MISSING)
    for part in rest:
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _capability_requirements(host_state, extra_specs):
    for key, requirement in extra_specs.items():
        parts = key.split(':')
        if len(parts) == 1:
            if _lookup(host_state, parts) is _MISSING:
                continue
            yield parts, requirement
        elif parts[0] == SCOPE and len(parts) > 1:
            yield parts[1:], requirement


class ComputeCapabilitiesFilter(filters.BaseHostFilter):
    """Rejects hosts whose capabilities do not match the flavor."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec):
        for path, requirement in _capability_requirements(
                host_state, spec.flavor.extra_specs):
            value = _lookup(host_state, path)
            if value is _MISSING or value is None:
                LOG.debug('%s rejected: no capability %s',
                          host_state, ':'.join(path))
                return False
            if not extra_specs_ops.match(value, requirement):
                LOG.debug('%s rejected: capability %s=%s does not match %s',
                          host_state, ':'.join(path), value, requirement)
                return False
        return True
