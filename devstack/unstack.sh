#!/bin/bash
# Stop the nova_lite lab started by devstack/stack.sh.
#
#   devstack/unstack.sh          # stop every lab process (data kept)
#   devstack/unstack.sh --purge  # also remove databases, vhosts and state
set -u
NL_DEVSTACK_DIR=$(cd "$(dirname "$0")" && pwd)
. "$NL_DEVSTACK_DIR/lib/services.sh"
. "$NL_DEVSTACK_DIR/lib/settings.sh"
. "$NL_DEVSTACK_DIR/lib/processes.sh"
. "$NL_DEVSTACK_DIR/lib/lab.sh"

PURGE=False
for arg in "$@"; do
    case $arg in
        --purge) PURGE=True ;;
        *) echo "usage: $0 [--purge]" >&2; exit 2 ;;
    esac
done

# Computes first, API last: nothing new arrives at a stopped service.
for name in $(nl_service_names_stop_order); do
    nl_stop "$name"
done
if [ "$PURGE" = True ]; then
    nl_purge
fi
nl_say "lab stopped${PURGE:+ }$( [ "$PURGE" = True ] && echo "and purged" )"
