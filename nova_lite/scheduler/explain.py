"""Why no host was found: the text of a NoValidHost.

The explanation reaches the instance fault, so it is written for the user:
how many candidates placement returned, then each filter that removed
hosts, in the order they ran. For example::

    No valid host was found. Placement returned 3 allocation candidates on
    3 hosts; filters: ComputeFilter removed 0 of 3 hosts,
    ServerGroupAntiAffinityFilter removed 3 of 3 hosts (none left).

The placement query itself is no business of a project member (it shows
the cloud's inner workings: root traits, member_of, limits): it travels
with the exception as ``placement_query`` and lands in the fault's details,
which only admins see, and the manager logs it at INFO with the text.
"""

from nova_lite import exception


def describe_candidates(num_candidates, num_hosts):
    """'Placement returned N allocation candidates on M hosts'."""
    if not num_candidates:
        return ('Placement returned no allocation candidates for the '
                'requested resources and traits')
    return ('Placement returned %d allocation candidate%s on %d host%s'
            % (num_candidates, _s(num_candidates), num_hosts,
               _s(num_hosts)))


def describe_steps(steps):
    """'filters: F removed a of b hosts, ...' (skipped filters left out)."""
    parts = []
    for step in steps:
        if step.skipped:
            continue
        text = '%s removed %d of %d host%s' % (
            step.name, step.removed, step.hosts_in, _s(step.hosts_in))
        if step.hosts_out == 0 and step.hosts_in:
            text += ' (none left)'
        parts.append(text)
    if not parts:
        return 'no filter ran'
    return 'filters: ' + ', '.join(parts)


def explain_filtered(num_candidates, num_hosts, filter_result,
                     instance_index=0, num_instances=1):
    """Reason for a request whose hosts were all filtered out."""
    text = describe_candidates(num_candidates, num_hosts)
    if num_instances > 1:
        text += '; for instance %d of %d' % (instance_index + 1,
                                             num_instances)
    return '%s; %s.' % (text, describe_steps(filter_result.steps))


def explain_no_candidates():
    """Reason when placement found nothing."""
    return describe_candidates(0, 0) + '.'


def explain_invalid_request(error):
    """Reason for a malformed request (names the offending key)."""
    key = getattr(error, 'key', None)
    reason = getattr(error, 'reason', None) or str(error)
    if key:
        return 'The request is invalid: %s: %s.' % (key, reason)
    return 'The request is invalid: %s.' % reason


def explain_not_enough_hosts(needed, placed):
    """Reason when a multi-instance request ran out of hosts."""
    return ('There are not enough hosts available: %d instance%s '
            'requested, %d placed.' % (needed, _s(needed), placed))


def no_valid_host(reason, query=None):
    """The NoValidHost exception carrying ``reason`` (for everyone) and
    the placement ``query`` (for admins: the fault's details)."""
    if query is None:
        return exception.NoValidHost(reason=reason)
    return exception.NoValidHost(reason=reason, placement_query=str(query))


def _s(count):
    return '' if count == 1 else 's'
