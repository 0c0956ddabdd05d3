"""nova-lite-scheduler: picks hosts for builds and moves (API bus)."""

import sys

from nova_lite import cmd
from nova_lite.scheduler import manager
from nova_lite.scheduler import rpcapi
from nova_lite import service

BINARY = 'nova-lite-scheduler'


def _serve():
    return service.serve(service.Service.create(
        BINARY, rpcapi.RPC_TOPIC, manager.SchedulerManager))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    return cmd.run(BINARY, argv, _serve)


if __name__ == '__main__':
    sys.exit(main())
