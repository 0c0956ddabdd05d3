"""Affinity filters: server groups and the same/different host hints.

- ServerGroupAffinityFilter: an ``affinity`` group's instances all go to the
  host(s) its members already use; the first member goes anywhere.
- ServerGroupAntiAffinityFilter: an ``anti-affinity`` group puts at most
  ``rules['max_server_per_host']`` (default 1) members on one host. The
  instance's own current host passes (a move may stay).
- SameHostFilter / DifferentHostFilter: hints ``same_host`` /
  ``different_host`` list instance uuids the new instance must share a host
  with / keep away from.
- SimpleCIDRAffinityFilter: hints ``build_near_host_ip`` and ``cidr``
  (default ``/0``) keep the instance on hosts whose IP is in that network.

Members placed earlier in the same request count, because the manager
records each pick in the group and the host state
(``host_state.consume_selected_host``).
"""

import ipaddress

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.scheduler import filters

LOG = logging.getLogger(__name__)


class ServerGroupAffinityFilter(filters.BaseHostFilter):
    """Keeps an affinity group's instances on the group's host."""

    def filter_all(self, hosts, spec):
        return _unless_policy(self, 'affinity', hosts, spec)

    def host_passes(self, host_state, spec):
        group = spec.instance_group
        if group is None or group.policy != 'affinity':
            return True
        if not group.hosts or host_state.host in group.hosts:
            return True
        LOG.debug('%s rejected: affinity group %s is on %s',
                  host_state, group.uuid, sorted(set(group.hosts)))
        return False


def _unless_policy(host_filter, policy, hosts, spec):
    """Every host when the request has no group of ``policy`` (decided
    once per request, not per host); else the filter's own answer."""
    group = spec.instance_group
    if group is None or group.policy != policy:
        return list(hosts)
    return filters.BaseHostFilter.filter_all(host_filter, hosts, spec)


def max_server_per_host(group):
    """The anti-affinity rule value (1 when unset)."""
    value = group.rules.get('max_server_per_host', 1)
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise exception.InvalidSchedulerRequest(
            'max_server_per_host', 'not an integer: %r' % (value,))
    if value < 1:
        raise exception.InvalidSchedulerRequest(
            'max_server_per_host', 'must be at least 1, got %d' % value)
    return value


class ServerGroupAntiAffinityFilter(filters.BaseHostFilter):
    """Spreads an anti-affinity group's instances over hosts."""

    def filter_all(self, hosts, spec):
        return _unless_policy(self, 'anti-affinity', hosts, spec)

    def host_passes(self, host_state, spec):
        group = spec.instance_group
        if group is None or group.policy != 'anti-affinity':
            return True
        if spec.instance_uuid and spec.instance_uuid in host_state.instances:
            return True
        limit = max_server_per_host(group)
        # A host's other nodes count: a pick made earlier in this request
        # on a sibling node is in the group's hosts, not in this node's
        # instances.
        on_host = max(len(set(host_state.instances) & set(group.members)),
                      list(group.hosts).count(host_state.host))
        if on_host < limit:
            return True
        LOG.debug('%s rejected: %d members of anti-affinity group %s '
                  'already there (max %d)', host_state, on_host, group.uuid,
                  limit)
        return False


class SameHostFilter(filters.BaseHostFilter):
    """Hint ``same_host``: a host running one of the listed instances."""

    RUN_ON_REBUILD = False

    def filter_all(self, hosts, spec):
        # The hint is read once, not once per host (reading the request
        # spec costs more than the check).
        wanted = spec.get_hint_list('same_host')
        if not wanted:
            return list(hosts)
        return [host for host in hosts if _runs_any(host, wanted)]

    def host_passes(self, host_state, spec):
        wanted = spec.get_hint_list('same_host')
        return not wanted or _runs_any(host_state, wanted)


class DifferentHostFilter(filters.BaseHostFilter):
    """Hint ``different_host``: no host running a listed instance."""

    RUN_ON_REBUILD = False

    def filter_all(self, hosts, spec):
        avoided = spec.get_hint_list('different_host')
        if not avoided:
            return list(hosts)
        return [host for host in hosts if not _runs_any(host, avoided)]

    def host_passes(self, host_state, spec):
        return not _runs_any(host_state, spec.get_hint_list('different_host'))


def _runs_any(host_state, instance_uuids):
    return any(uuid in host_state.instances for uuid in instance_uuids)


def _near_network(spec):
    near_ip = spec.get_hint('build_near_host_ip')
    if not near_ip:
        return None
    cidr = str(spec.get_hint('cidr', '/0'))
    if not cidr.startswith('/'):
        cidr = '/' + cidr
    try:
        return ipaddress.ip_network('%s%s' % (near_ip, cidr), strict=False)
    except ValueError as err:
        raise exception.InvalidSchedulerRequest(
            'build_near_host_ip/cidr', str(err))


class SimpleCIDRAffinityFilter(filters.BaseHostFilter):
    """Hints ``build_near_host_ip`` + ``cidr``: hosts in that network."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec):
        network = _near_network(spec)
        if network is None:
            return True
        if not host_state.host_ip:
            return False
        try:
            return ipaddress.ip_address(host_state.host_ip) in network
        except ValueError:
            LOG.warning('%s has an invalid host_ip %r', host_state,
                        host_state.host_ip)
            return False
