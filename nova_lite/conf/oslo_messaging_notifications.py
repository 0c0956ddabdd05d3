"""Options in [oslo_messaging_notifications]: oslo.messaging's own.

oslo.messaging registers this group only when a Notifier is built; nova_lite
registers it up front so that the sample configuration lists it and entry
points can read ``driver`` and ``transport_url`` before any notifier exists.
The options (``driver``, ``transport_url``, ``topics``, ``retry``) are
oslo.messaging's, with its help text.
"""

from oslo_messaging import opts as messaging_opts

GROUP = 'oslo_messaging_notifications'


def _opts():
    return [opt for group, opts in messaging_opts.list_opts()
            if group == GROUP for opt in opts]


def register_opts(conf):
    conf.register_opts(_opts(), group=GROUP)


def list_opts():
    # NOTE(nova_lite): the generator's oslo.messaging namespace already
    # writes this group into the sample; listing it here too would repeat
    # every option.
    return []
