"""The caller's deadline: no claim left for an answer nobody waits for.

``select_destinations`` is an RPC call: the super conductor (or a move's
conductor) waits ``rpc_response_timeout`` for the answer, then gives up,
drops the instances' claims and buries them in cell0 (a build) or fails
the move. A scheduler that is still working then - its database reads
retried through a MariaDB restart, its request kept in its queue through
a broker outage, placement slow to answer - would claim after that drop,
and the claim would stay until the super conductor's reaper found it.

The client tells the scheduler when it stops waiting (the context's
``reply_deadline``, set by :mod:`nova_lite.scheduler.rpcapi`); the
scheduler checks it before every claim and once more before answering,
keeping :data:`REPLY_MARGIN` for the answer's way back. Past it, the
request ends in NoValidHost and the claims it made are deleted. A request
without a deadline (an older client, a direct call) is never cut short.

The deadline is taken when the call starts: a caller whose publish was held
up by a broker outage waits a little longer than it says, so a request
that reaches the scheduler only then may end in NoValidHost (the build in
ERROR with this reason) where it could have been placed. That errs on the
side of a failed build with a fault over a claim nobody owns.
"""

import time

from nova_lite.scheduler import explain

# Seconds kept for the answer to reach the caller before its deadline.
REPLY_MARGIN = 1.0


def remaining(context, now=None):
    """Seconds the caller still waits (None: no deadline known)."""
    deadline = getattr(context, 'reply_deadline', None)
    if deadline is None:
        return None
    return deadline - (time.time() if now is None else now)


def check(context, doing):
    """Raise NoValidHost when the caller will have given up by the time
    the answer reaches it; ``doing`` says what was about to happen."""
    left = remaining(context)
    if left is None or left > REPLY_MARGIN:
        return
    raise explain.no_valid_host(
        'The scheduler stopped before %s: the caller stops waiting for its '
        'answer (RPC timeout) %s.' % (
            doing, 'in %.1f s' % left if left >= 0 else
            '%.1f s ago' % -left))
