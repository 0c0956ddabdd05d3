"""Client side of the scheduler RPC API (API bus, topic ``scheduler``)."""

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import rpc
from nova_lite.scheduler import deadline

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

RPC_TOPIC = 'scheduler'


class SchedulerAPI:
    """Client of the scheduler.

    Version history:

    * 1.0 - Initial version: select_destinations; with
      ``return_decisions`` the chosen Selection and a NoValidHost carry
      the scheduler's decision record.
    """

    VERSION = '1.0'

    def __init__(self, transport=None):
        target = messaging.Target(topic=RPC_TOPIC, version=self.VERSION)
        self.client = rpc.get_client(target, transport=transport)

    def select_destinations(self, context, request_spec, instance_uuids,
                            return_alternates=True, timeout=None,
                            return_decisions=True):
        """Call: per instance (same order as ``instance_uuids``), a list of
        ``objects.Selection``: the chosen host, claimed in placement for
        the instance, then up to ``[scheduler] max_attempts - 1``
        alternates of the same cell (not claimed).

        :param request_spec: an ``objects.RequestSpec``.
        :param timeout: seconds to wait for the answer (default ``[DEFAULT]
            rpc_response_timeout``); the scheduler is told when that
            ends, and does not leave claims for an answer nobody waits for
            (:mod:`nova_lite.scheduler.deadline`).
        :param return_decisions: ask for the decision records: JSON in
            the chosen Selection's ``decision`` and in a NoValidHost's
            ``decision`` kwarg.
        :raises nova_lite.exception.NoValidHost: with the explanation.
        """
        kwargs = {'request_spec': request_spec,
                  'instance_uuids': list(instance_uuids or []),
                  'return_alternates': return_alternates,
                  'return_decisions': return_decisions}
        if timeout is None:
            timeout = CONF.rpc_response_timeout
        cctxt = self.client.prepare(timeout=timeout)
        try:
            return cctxt.call(context.with_reply_deadline(timeout),
                              'select_destinations', **kwargs)
        except exception.NoValidHost as error:
            if not error.kwargs.get(deadline.PAST_DEADLINE):
                raise
            # NOTE(nova_lite): the scheduler thought this caller gone, yet
            # it is waiting: its publish was held up (a broker restart).
            LOG.info('The scheduler answered after the deadline of this '
                     'call (its request was late); asking again')
        return cctxt.call(context.with_reply_deadline(timeout),
                          'select_destinations', **kwargs)
