#!/bin/bash
# Stop the nova_lite lab started by devstack/stack.sh.
#
#   devstack/unstack.sh          # stop every lab process (data kept)
#   devstack/unstack.sh --purge  # also remove databases, vhosts and state
set -u
NL_DEVSTACK_DIR=$(cd "$(dirname "$0")" && pwd)
# The lab is the one stack.sh recorded in $NOVA_LITE_STATE_DIR.
NL_RECORDED_WINS=True
. "$NL_DEVSTACK_DIR/lib/services.sh"
. "$NL_DEVSTACK_DIR/lib/settings.sh"
. "$NL_DEVSTACK_DIR/lib/processes.sh"
. "$NL_DEVSTACK_DIR/lib/lab.sh"
. "$NL_DEVSTACK_DIR/lib/cellnode.sh"
. "$NL_DEVSTACK_DIR/lib/keystone.sh"

PURGE=False
for arg in "$@"; do
    case $arg in
        --purge) PURGE=True ;;
        *) echo "usage: $0 [--purge]" >&2; exit 2 ;;
    esac
done

if [ "${NL_USED_RECORD:-False}" = True ]; then
    nl_say "lab $NOVA_LITE_NAME (settings recorded in $NL_RECORD)"
else
    nl_say "no $NL_RECORD: using local.conf and the environment"
fi
# A cell database a chaos scenario cut for the API gets its real
# connection back, and a REST fault (placement, compute API) goes (with
# every rule, fault and frozen process) while the services still run.
if [ -f "$STATE/chaos-cell-databases.json" ] ||
        [ -f "$STATE/chaos-api-faults.json" ]; then
    nl_manage chaos clear --state-dir "$STATE" || nl_say "WARNING: chaos clear failed (see $LOGS/manage.log)"
fi
# Computes first, then everything else together, Keystone (if any) last.
nl_stop $(nl_service_names_stop_order | grep '^compute-')
nl_stop $(nl_service_names_stop_order | grep -vx keystone)
nl_stop keystone
# A cell node's own RabbitMQ and MariaDB, last.
nl_cell_servers_stop
# The record of the processes a chaos scenario froze (all stopped now).
rm -f "$STATE/chaos-frozen.json"
# A REST fault the services would read again at the next stack.sh.
rm -f "$STATE/chaos-api-faults.json"
if [ "$PURGE" = True ]; then
    nl_purge
fi
nl_say "lab stopped"
