"""nova-lite-compute: runs guests on its host's nodes (cell bus).

A compute holds no database credentials: its service record, like every
persistent change it makes, goes through its cell conductor over RPC, so
``[database] connection`` must stay unset.
"""

import sys

from nova_lite import cmd
from nova_lite.compute import manager
from nova_lite.compute import rpcapi
from nova_lite import service

BINARY = 'nova-lite-compute'


def _serve():
    if cmd.CONF.database.connection:
        raise cmd.ConfigError(
            'nova-lite-compute must not have [database] connection: '
            'computes reach their cell database through the cell conductor')
    return service.serve(service.Service.create(
        BINARY, rpcapi.RPC_TOPIC, manager.ComputeManager))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    return cmd.run(BINARY, argv, _serve)


if __name__ == '__main__':
    sys.exit(main())
