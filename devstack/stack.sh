#!/bin/bash
# Set up and run a nova_lite lab cloud on this machine.
#
#   devstack/stack.sh            # settings from devstack/local.conf or env
#
# Idempotent: running it again keeps what is there (data, servers) and
# starts what is missing. devstack/unstack.sh stops the lab.
set -u
NL_DEVSTACK_DIR=$(cd "$(dirname "$0")" && pwd)
NL_REPO=$(dirname "$NL_DEVSTACK_DIR")
. "$NL_DEVSTACK_DIR/lib/services.sh"
. "$NL_DEVSTACK_DIR/lib/settings.sh"
. "$NL_DEVSTACK_DIR/lib/processes.sh"
. "$NL_DEVSTACK_DIR/lib/lab.sh"
. "$NL_DEVSTACK_DIR/lib/cellnode.sh"
. "$NL_DEVSTACK_DIR/lib/keystone.sh"
. "$NL_DEVSTACK_DIR/lib/networks.sh"

START=$(date +%s)
STEP=""
STEP_START=$START
# Each step's seconds are said when the next starts, and in the summary.
PHASES=""
step() {
    local now; now=$(date +%s)
    [ -n "$STEP" ] && PHASES="$PHASES  $(printf '%4d s  %s' $((now - STEP_START)) "$STEP")
"
    STEP=$1; STEP_START=$now; nl_say "== $1 (at $((now - START)) s)"
}
fail() {
    nl_say "FAILED at step: $STEP"
    [ -n "${1:-}" ] && [ -f "$LOGS/$1.log" ] && {
        nl_say "last lines of $LOGS/$1.log:"; tail -n 20 "$LOGS/$1.log" | sed 's/^/    /'; }
    exit 1
}

mkdir -p "$STATE" "$ETC" "$PIDS" "$LOGS" "$DBDIR"
step "roles and authentication"
nl_check_roles || fail
# First, so that unstack.sh --purge finds what a failed stack created.
nl_record_settings || fail

step "message bus and database servers"
if nl_is_controller; then
    nl_ensure_rabbitmq || fail
    if [ "$NOVA_LITE_DATABASE" = mysql ]; then nl_ensure_mariadb || fail; fi
else
    # A cell node's own RabbitMQ and MariaDB (private instances).
    if nl_runs_cell_rabbit || nl_runs_cell_mysql; then nl_cell_servers_start || fail; fi
    nl_check_controller_reachable || fail
    nl_check_cell_reachable || fail
fi

step "virtualenv with nova_lite ($VENV)"
nl_install_venv || fail

if nl_keystone_here; then
    step "Keystone virtualenv ($KS_VENV)"
    nl_keystone_install || fail keystone-pip
fi

if nl_is_controller; then
    step "RabbitMQ vhosts (one per bus)"
    nl_create_vhosts || fail

    step "databases ($NOVA_LITE_DATABASE)"
    nl_create_databases || fail
elif nl_runs_cell_rabbit || nl_runs_cell_mysql; then
    step "vhost and database of $NOVA_LITE_CELL_NAME on this node's servers"
    { nl_cell_vhost && nl_cell_database; } || fail
fi

step "configuration files ($ETC)"
nl_write_configs || fail
nl_post_config || fail

if nl_is_controller; then
    step "schemas and cell mappings"
    nl_sync_and_map || fail manage
elif nl_runs_cell_mysql; then
    step "schema of $NOVA_LITE_CELL_NAME, its mapping on the controller"
    nl_cell_sync_and_map || fail manage
fi

if nl_keystone_here; then
    step "Keystone at $KS_URL (identity, users, catalog)"
    { nl_keystone_write_config && nl_keystone_bootstrap; } || fail keystone-manage
    nl_keystone_start || fail keystone
    nl_keystone_register || fail
fi

step "starting services"
nl_start_services || fail
nl_wait_services || fail "$NL_FAILED_SERVICE"

if nl_enabled compute || nl_is_controller; then
    step "discovering compute hosts"
    nl_discover_hosts || fail manage
fi

if nl_enabled compute && [[ $NOVA_LITE_WAIT_NODES =~ ^(True|true|1|yes)$ ]]; then
    step "waiting for every node to register (rows and placement inventories)"
    nl_wait_nodes || fail "$NL_FAILED_SERVICE"
fi

step "clouds.yaml"
nl_write_clouds_yaml || fail

if nl_is_controller && nl_default_networks_wanted; then
    step "default networks (public, private, router1)"
    nl_default_networks || fail
fi

step "done"
nl_summary "$(( $(date +%s) - START ))"
printf 'Seconds per step:\n%s' "$PHASES"
