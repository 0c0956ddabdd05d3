"""Options in [upgrade_levels]: RPC version caps, one per RPC API.

During a rolling upgrade, capping a client at the version the oldest peer
understands keeps newer senders from using methods or arguments the old
servers would reject.
"""

from oslo_config import cfg

upgrade_group = cfg.OptGroup('upgrade_levels', title='RPC version caps',
                             help=__doc__)

upgrade_opts = [
    cfg.StrOpt('compute', help='Highest compute RPC API version to send.'),
    cfg.StrOpt('conductor',
               help='Highest conductor RPC API version to send.'),
    cfg.StrOpt('scheduler',
               help='Highest scheduler RPC API version to send.'),
]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_opts, group=upgrade_group)


def list_opts():
    return [(upgrade_group, upgrade_opts)]
