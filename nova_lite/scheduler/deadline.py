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

The deadline is taken when the call starts, but oslo.messaging starts the
caller's wait only once the request is published: a publish held up by a
broker restart makes the caller wait longer than it said, and the
scheduler may give up on a caller still waiting. That NoValidHost carries
``past_deadline``; a client that receives it was plainly still waiting, and
asks once more with a fresh deadline (the scheduler released what it had
claimed before answering).
"""

import time

from nova_lite.scheduler import explain

# Seconds kept for the answer to reach the caller before its deadline.
REPLY_MARGIN = 1.0
# The NoValidHost kwarg of a request given up for its deadline.
PAST_DEADLINE = 'past_deadline'


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
    error = explain.no_valid_host(
        'The scheduler stopped before %s: the caller stops waiting for its '
        'answer (RPC timeout) %s.' % (
            doing, 'in %.1f s' % left if left >= 0 else
            '%.1f s ago' % -left))
    error.kwargs[PAST_DEADLINE] = True
    raise error
