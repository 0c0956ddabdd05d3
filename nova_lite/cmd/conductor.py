"""nova-lite-conductor: the super conductor, or a cell's conductor.

Without ``--cell`` it is the super conductor on the API bus. With
``--cell NAME`` it is the conductor of that cell: its configuration files
give the cell's bus (``[DEFAULT] transport_url``) and database
(``[database] connection``), which it keeps on behalf of the cell's
computes.
"""

import sys

from oslo_config import cfg
from oslo_log import log as logging

from nova_lite import cmd
from nova_lite.conductor import manager
from nova_lite.conductor import rpcapi
from nova_lite import service

BINARY = 'nova-lite-conductor'
LOG = logging.getLogger(__name__)

cli_opts = [
    cfg.StrOpt('cell', help="""
Run as the conductor of the cell named NAME (its bus and database come
from the configuration files) instead of the super conductor.
"""),
]


def _serve():
    conf = cmd.CONF
    if conf.cell is not None:
        if not conf.cell.strip():
            raise cmd.ConfigError('--cell needs a cell name')
        if not conf.database.connection:
            raise cmd.ConfigError(
                'the conductor of cell %s needs [database] connection'
                % conf.cell)
        LOG.info('Starting the conductor of cell %s', conf.cell)
    else:
        LOG.info('Starting the super conductor')
    return service.serve(service.Service.create(
        BINARY, rpcapi.RPC_TOPIC, manager.ConductorManager))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    return cmd.run(BINARY, argv, _serve, cli_opts=cli_opts)


if __name__ == '__main__':
    sys.exit(main())
