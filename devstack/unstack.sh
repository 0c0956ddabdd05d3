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
. "$NL_DEVSTACK_DIR/lib/keystone.sh"

PURGE=False
for arg in "$@"; do
    case $arg in
        --purge) PURGE=True ;;
        *) echo "usage: $0 [--purge]" >&2; exit 2 ;;
    esac
done

# Computes first, then everything else together, Keystone (if any) last.
nl_stop $(nl_service_names_stop_order | grep '^compute-')
nl_stop $(nl_service_names_stop_order | grep -vx keystone)
nl_stop keystone
if [ "$PURGE" = True ]; then
    nl_purge
fi
nl_say "lab stopped"
