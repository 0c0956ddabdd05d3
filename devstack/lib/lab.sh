# The steps of stack.sh and unstack.sh, one function each.

NL_API_VHOST=$NOVA_LITE_NAME
NL_FAILED_SERVICE=""
NL_SCHEDULER_KEPT=False

nl_cells() { local i; for i in $(seq 1 "$NOVA_LITE_CELLS"); do echo "cell$i"; done; }
nl_computes() {  # nl_computes CELL: compute host names of one cell
    local i; for i in $(seq 1 "$NOVA_LITE_COMPUTES_PER_CELL"); do echo "$1-compute$i"; done
}

nl_install_venv() {
    if [ -n "${NOVA_LITE_VENV:-}" ]; then
        [ -x "$VENV/bin/nova-lite-manage" ] || {
            nl_say "ERROR: NOVA_LITE_VENV=$VENV has no nova-lite-manage"; return 1; }
        nl_say "using the existing virtualenv $VENV"
        return 0
    fi
    local want have
    want=$(cat "$NL_REPO/setup.py" "$NL_REPO/requirements.txt" | sha1sum | cut -d' ' -f1)
    have=$(cat "$VENV/.nova-lite-installed" 2>/dev/null)
    if [ "$want" = "$have" ] && [ -x "$VENV/bin/nova-lite-manage" ]; then
        nl_say "virtualenv is up to date"
        return 0
    fi
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || return 1
    nl_say "installing nova_lite and the OpenStack clients into $VENV (pip)"
    "$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1
    "$VENV/bin/pip" install -q -e "$NL_REPO" python-openstackclient \
        osc-placement >"$LOGS/pip.log" 2>&1 || {
        tail -n 20 "$LOGS/pip.log"; return 1; }
    echo "$want" > "$VENV/.nova-lite-installed"
}

_nl_rabbit_is_local() {
    case $NOVA_LITE_RABBIT_URL in
        *@127.0.0.1:*|*@localhost:*|*//127.0.0.1:*|*//localhost:*) return 0 ;;
    esac
    return 1
}

_nl_rabbit_user() {
    local rest=${NOVA_LITE_RABBIT_URL#*://}
    case $rest in *@*) rest=${rest%%@*}; echo "${rest%%:*}" ;; *) echo guest ;; esac
}

nl_create_vhosts() {
    if ! _nl_rabbit_is_local || ! command -v rabbitmqctl >/dev/null 2>&1; then
        nl_say "RabbitMQ is not local: vhosts $NL_API_VHOST $(nl_cells | sed "s/^/${NOVA_LITE_NAME}_/" | tr '\n' ' ')must exist"
        return 0
    fi
    local existing vhost user; user=$(_nl_rabbit_user)
    existing=$(rabbitmqctl -q list_vhosts 2>/dev/null) || {
        nl_say "ERROR: rabbitmqctl cannot reach RabbitMQ (run as root?)"; return 1; }
    for vhost in $NL_API_VHOST $(nl_cells | sed "s/^/${NOVA_LITE_NAME}_/"); do
        if ! grep -qx "$vhost" <<< "$existing"; then
            rabbitmqctl -q add_vhost "$vhost" >/dev/null || return 1
            nl_say "created vhost $vhost"
        fi
        rabbitmqctl -q set_permissions -p "$vhost" "$user" '.*' '.*' '.*' >/dev/null || return 1
    done
}

nl_all_databases() {
    echo "${NOVA_LITE_NAME}_api ${NOVA_LITE_NAME}_placement ${NOVA_LITE_NAME}_cell0"
    nl_cells | sed "s/^/${NOVA_LITE_NAME}_/"
}

nl_create_databases() {
    if [ "$NOVA_LITE_DATABASE" != mysql ]; then
        nl_say "SQLite files under $DBDIR"
        return 0
    fi
    "$VENV/bin/python" - "$NOVA_LITE_MYSQL_URL" $(nl_all_databases) <<'PY'
import sys
import sqlalchemy
engine = sqlalchemy.create_engine(sys.argv[1] + '/')
with engine.connect() as conn:
    for name in sys.argv[2:]:
        conn.exec_driver_sql('CREATE DATABASE IF NOT EXISTS `%s` '
                             'CHARACTER SET utf8mb4' % name)
print('[nova-lite] MySQL databases: %s' % ' '.join(sys.argv[2:]))
PY
}

_nl_common_opts() {
    cat <<CONF
[DEFAULT]
state_path = $STATE
report_interval = 10
service_down_time = 60
# As devstack: a lab may have one compute per cell, and resizes must work.
allow_resize_to_same_host = True

[filter_scheduler]
# As devstack: the default filters plus the same/different host hints.
enabled_filters = ComputeFilter,AvailabilityZoneFilter,ComputeCapabilitiesFilter,ImagePropertiesFilter,ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter,SameHostFilter,DifferentHostFilter

[compute]
instance_build_timeout = $NOVA_LITE_BUILD_TIMEOUT

[oslo_messaging_rabbit]
# Durable, replicated RPC queues: a cast queued for a service survives a
# RabbitMQ crash (classic queues are not durable by default and lose it).
rabbit_quorum_queue = $NOVA_LITE_RABBIT_QUORUM
# Reply (and fanout) queues too: a classic reply queue dies with the broker
# and comes back only when its caller's connection has reconnected; a
# server whose reply finds no queue for kombu_missing_consumer_retry_timeout
# then drops every reply to that caller for a minute (oslo.messaging's
# obsolete reply queue cache), so calls made just after an outage time out.
# A quorum reply queue survives the restart and keeps the replies.
rabbit_transient_quorum_queue = $NOVA_LITE_RABBIT_QUORUM
# With quorum queues amqp_durable_queues is implied; without them, at least
# make the queues durable.
amqp_durable_queues = True
# A dead broker connection is noticed within this many seconds.
heartbeat_timeout_threshold = $NOVA_LITE_RABBIT_HEARTBEAT

[placement]
endpoint = http://127.0.0.1:$NOVA_LITE_PLACEMENT_PORT
CONF
    if nl_keystone_enabled; then nl_keystone_placement_auth; else echo "token = admin"; fi
    # The image API the computes store snapshots through (the /image of
    # nova-lite-api), with the same service credentials.
    printf '\n[glance]\nendpoint = http://127.0.0.1:%s/image\n' "$NOVA_LITE_API_PORT"
    if nl_keystone_enabled; then nl_keystone_placement_auth; else echo "token = admin"; fi
}

# The auth_strategy of both APIs.
_nl_auth_strategy() {
    if nl_keystone_enabled; then echo keystone; else echo noauth2; fi
}

nl_write_configs() {
    {
        _nl_common_opts
        cat <<CONF
transport_url = $(nl_rabbit_url $NL_API_VHOST)

[api_database]
connection = $(nl_db_url "${NOVA_LITE_NAME}_api")

[database]
connection = $(nl_db_url "${NOVA_LITE_NAME}_cell1")

[placement_database]
connection = $(nl_db_url "${NOVA_LITE_NAME}_placement")

[api]
bind_host = 127.0.0.1
bind_port = $NOVA_LITE_API_PORT
workers = 2
auth_strategy = $(_nl_auth_strategy)

[placement_api]
bind_host = 127.0.0.1
bind_port = $NOVA_LITE_PLACEMENT_PORT
workers = 2
auth_strategy = $(_nl_auth_strategy)

[scheduler]
# Computes added to the running lab are mapped without nova-lite-manage.
discover_hosts_in_cells_interval = 10
CONF
        if nl_keystone_enabled; then nl_keystone_api_options; fi
    } > "$ETC/api-level.conf.new"
    # transport_url belongs in [DEFAULT]: move it up there.
    sed -i '/^transport_url = /d' "$ETC/api-level.conf.new"
    sed -i "/^\[DEFAULT\]/a transport_url = $(nl_rabbit_url $NL_API_VHOST)" "$ETC/api-level.conf.new"
    mv "$ETC/api-level.conf.new" "$ETC/api-level.conf"

    local cell host
    for cell in $(nl_cells); do
        { _nl_common_opts; printf '\n[database]\nconnection = %s\n' "$(nl_db_url "${NOVA_LITE_NAME}_$cell")"; } \
            > "$ETC/$cell.conf"
        sed -i "/^\[DEFAULT\]/a transport_url = $(nl_rabbit_url "${NOVA_LITE_NAME}_$cell")\nhost = $cell-conductor" "$ETC/$cell.conf"
        for host in $(nl_computes "$cell"); do
            { _nl_common_opts; printf '\n[fake_driver]\nnodes = %s\n' "$NOVA_LITE_NODES_PER_COMPUTE"; } \
                > "$ETC/$host.conf"
            sed -i "/^\[DEFAULT\]/a transport_url = $(nl_rabbit_url "${NOVA_LITE_NAME}_$cell")\nhost = $host" "$ETC/$host.conf"
            # Local overrides of one compute (fault injection, inventory):
            # *.conf files here are read after $host.conf and never touched.
            mkdir -p "$ETC/$host.conf.d"
        done
    done
    nl_say "wrote $(ls "$ETC"/*.conf | wc -l) files"
}

nl_manage() {
    echo "+ nova-lite-manage $*" >> "$LOGS/manage.log"
    "$VENV/bin/nova-lite-manage" --config-file "$ETC/api-level.conf" "$@" >> "$LOGS/manage.log" 2>&1
}

nl_sync_and_map() {
    nl_manage api_db sync || return 1
    nl_manage placement db sync || return 1
    nl_manage cell_v2 map_cell0 --database_connection "$(nl_db_url "${NOVA_LITE_NAME}_cell0")" || return 1
    local cell rc
    for cell in $(nl_cells); do
        nl_manage cell_v2 create_cell --name "$cell" \
            --transport-url "$(nl_rabbit_url "${NOVA_LITE_NAME}_$cell")" \
            --database_connection "$(nl_db_url "${NOVA_LITE_NAME}_$cell")"
        rc=$?
        # 2: the cell is mapped already (a re-run).
        [ $rc = 0 ] || [ $rc = 2 ] || return 1
    done
    nl_manage db sync || return 1
    nl_say "API, placement, cell0 and $NOVA_LITE_CELLS cell database(s) at head; cells mapped"
}

# Forget the pid files of processes that died (a crash, a kill): the
# re-run starts them again instead of failing on them.
_nl_forget_dead() {
    local name pid
    for name in $(nl_started_names); do
        pid=$(cat "$PIDS/$name.pid")
        if ! kill -0 "$pid" 2>/dev/null; then
            nl_say "$name (pid $pid) is not running: starting it again"
            rm -f "$PIDS/$name.pid"
        fi
    done
}

nl_start_services() {
    local api_conf=$ETC/api-level.conf cell host
    _nl_forget_dead
    NL_SCHEDULER_KEPT=False
    [ -f "$PIDS/scheduler.pid" ] && NL_SCHEDULER_KEPT=True
    nl_start placement "$VENV/bin/nova-lite-placement" --config-file "$api_conf"
    nl_start api "$VENV/bin/nova-lite-api" --config-file "$api_conf"
    nl_start scheduler "$VENV/bin/nova-lite-scheduler" --config-file "$api_conf"
    nl_start conductor "$VENV/bin/nova-lite-conductor" --config-file "$api_conf"
    for cell in $(nl_cells); do
        nl_start "conductor-$cell" "$VENV/bin/nova-lite-conductor" \
            --config-file "$ETC/$cell.conf" --cell "$cell"
    done
    # Computes keep their records through their cell conductor: start them
    # once every cell conductor consumes.
    # (+1: the super conductor records itself in the default cell.)
    nl_wait_up $((NOVA_LITE_CELLS + 1)) 60 --binary nova-lite-conductor || return 1
    for cell in $(nl_cells); do
        for host in $(nl_computes "$cell"); do
            nl_start "compute-$host" "$VENV/bin/nova-lite-compute" \
                --config-file "$ETC/$host.conf" --config-dir "$ETC/$host.conf.d"
        done
    done
}

# The lab processes started so far (those with a pid file).
nl_started_names() {
    local f
    for f in "$PIDS"/*.pid; do [ -f "$f" ] && basename "$f" .pid; done
}

nl_lab_service_names() {
    echo placement api scheduler conductor
    local cell host
    for cell in $(nl_cells); do
        echo "conductor-$cell"
        for host in $(nl_computes "$cell"); do echo "compute-$host"; done
    done
}

nl_service_names_stop_order() {
    # Every pid file, computes first, then cell conductors, API level last.
    local f
    for f in "$PIDS"/compute-*.pid "$PIDS"/conductor-*.pid "$PIDS"/conductor.pid \
             "$PIDS"/scheduler.pid "$PIDS"/api.pid "$PIDS"/placement.pid "$PIDS"/*.pid; do
        [ -f "$f" ] && basename "$f" .pid
    done | awk '!seen[$0]++'
}

# Count the services that heartbeat within service_down_time, all cells.
# Arguments: [--binary NAME] DB_URL...
_nl_services_up() {
    "$VENV/bin/python" - "$@" <<'PY'
import datetime
import sys
import sqlalchemy

args = sys.argv[1:]
binary = None
if args[:1] == ['--binary']:
    binary, args = args[1], args[2:]
now = datetime.datetime.utcnow()
up = 0
for url in args:
    engine = sqlalchemy.create_engine(url)
    # Built with SQLAlchemy so that `binary` (reserved in MySQL) is quoted.
    services = sqlalchemy.table(
        'services', sqlalchemy.column('binary'),
        sqlalchemy.column('last_seen_up'), sqlalchemy.column('created_at'))
    query = sqlalchemy.select(
        services.c.binary, services.c.last_seen_up, services.c.created_at)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    engine.dispose()
    for name, last, created in rows:
        seen = last or created
        if isinstance(seen, str):
            seen = datetime.datetime.fromisoformat(seen)
        if binary not in (None, name) or seen is None:
            continue
        if (now - seen).total_seconds() <= 60:
            up += 1
print(up)
PY
}

# nl_wait_up WANT SECONDS [--binary NAME]: wait until WANT services are up.
nl_wait_up() {
    local want=$1 timeout=$2; shift 2
    local urls cell waited=0 up=0 name
    urls=$(for cell in $(nl_cells); do nl_db_url "${NOVA_LITE_NAME}_$cell"; done)
    while :; do
        for name in $(nl_started_names); do
            nl_check_alive "$name" || { NL_FAILED_SERVICE=$name; return 1; }
        done
        up=$(_nl_services_up "$@" $urls) || {
            nl_say "ERROR: cannot read the services tables"; return 1; }
        [ "$up" -ge "$want" ] && break
        if [ $waited -ge "$timeout" ]; then
            nl_say "ERROR: only $up of $want services report up after ${timeout}s"
            return 1
        fi
        sleep 1; waited=$((waited + 1))
    done
    nl_say "$up services report up${2:+ ($2)}"
}

nl_wait_services() {
    nl_wait_http placement "http://127.0.0.1:$NOVA_LITE_PLACEMENT_PORT/" 60 || { NL_FAILED_SERVICE=placement; return 1; }
    nl_wait_http api "http://127.0.0.1:$NOVA_LITE_API_PORT/" 60 || { NL_FAILED_SERVICE=api; return 1; }
    # scheduler + super conductor (default cell) + per cell: conductor and computes
    nl_wait_up $((2 + NOVA_LITE_CELLS * (1 + NOVA_LITE_COMPUTES_PER_CELL))) 90
}

# The lab's compute hosts that have no host mapping yet.
_nl_unmapped_hosts() {
    local cell
    "$VENV/bin/python" - "$(nl_db_url "${NOVA_LITE_NAME}_api")" \
        $(for cell in $(nl_cells); do nl_computes "$cell"; done) <<'PY'
import sys
import sqlalchemy
engine = sqlalchemy.create_engine(sys.argv[1])
with engine.connect() as conn:
    mapped = {row[0] for row in conn.exec_driver_sql(
        'SELECT host FROM host_mappings')}
engine.dispose()
print(' '.join(h for h in sys.argv[2:] if h not in mapped))
PY
}

# Map every compute host to its cell. A scheduler that was already running
# (a re-run growing the lab) maps new hosts by itself every [scheduler]
# discover_hosts_in_cells_interval: wait for it. A scheduler started now
# looked before the computes existed, so nova-lite-manage maps them (also
# the fallback when the scheduler does not).
nl_discover_hosts() {
    local unmapped waited=0 limit=25
    unmapped=$(_nl_unmapped_hosts) || return 1
    if [ -z "$unmapped" ]; then
        nl_say "every compute host is mapped to its cell"
        return 0
    fi
    if [ "$NL_SCHEDULER_KEPT" = True ]; then
        nl_say "waiting for the running scheduler to discover $unmapped"
        while [ -n "$unmapped" ] && [ $waited -lt $limit ]; do
            sleep 1; waited=$((waited + 1))
            unmapped=$(_nl_unmapped_hosts) || return 1
        done
        if [ -z "$unmapped" ]; then
            nl_say "the scheduler mapped the new hosts to their cells (${waited}s)"
            return 0
        fi
        nl_say "WARNING: the scheduler did not map $unmapped within ${limit}s; see $LOGS/scheduler.log"
    fi
    nl_manage cell_v2 discover_hosts --by-service || return 1
    nl_say "compute hosts mapped to their cells (nova-lite-manage)"
}

nl_write_clouds_yaml() {
    local api=http://127.0.0.1:$NOVA_LITE_API_PORT
    if nl_keystone_enabled; then
        nl_keystone_clouds_yaml > "$STATE/clouds.yaml"
        nl_say "wrote $STATE/clouds.yaml (Keystone password logins)"
        return 0
    fi
    cat > "$STATE/clouds.yaml" <<YAML
# Written by devstack/stack.sh. Use:
#   export OS_CLIENT_CONFIG_FILE=$STATE/clouds.yaml
#   openstack --os-cloud nova-lite server list
clouds:
  nova-lite:
    auth_type: none
    auth:
      endpoint: $api/v2.1
    identity_api_version: "3"
    image_endpoint_override: $api/image
    network_endpoint_override: $api/network
  nova-lite-admin:
    auth_type: admin_token
    auth:
      endpoint: $api/v2.1
      token: admin
    identity_api_version: "3"
    identity_endpoint_override: $api/v2.1
    image_endpoint_override: $api/image
    network_endpoint_override: $api/network
  nova-lite-placement:
    auth_type: admin_token
    auth:
      endpoint: http://127.0.0.1:$NOVA_LITE_PLACEMENT_PORT
      token: admin
YAML
    nl_say "wrote $STATE/clouds.yaml"
}

nl_summary() {
    local secs=$1 cell identity=""
    nl_keystone_enabled && identity="
  identity       $KS_URL (Keystone: users admin, demo, nova_lite)"
    cat <<EOT

nova_lite lab is up ($secs s)
  compute API    http://127.0.0.1:$NOVA_LITE_API_PORT/v2.1
  placement      http://127.0.0.1:$NOVA_LITE_PLACEMENT_PORT/$identity
  database       $NOVA_LITE_DATABASE
  cells          cell0 $(nl_cells | tr '\n' ' ')
$(for cell in $(nl_cells); do echo "  $cell hosts    $(nl_computes "$cell" | tr '\n' ' ')($NOVA_LITE_NODES_PER_COMPUTE fake nodes each)"; done)
  logs           $LOGS
  pid files      $PIDS

Try it:
  export OS_CLIENT_CONFIG_FILE=$STATE/clouds.yaml
  $VENV/bin/openstack --os-cloud nova-lite-admin hypervisor list
  $VENV/bin/openstack --os-cloud nova-lite-placement resource provider list
Stop it:  devstack/unstack.sh   (add --purge to remove its data)
EOT
}

nl_purge() {
    if [ "$NOVA_LITE_DATABASE" = mysql ] && [ -x "$VENV/bin/python" ]; then
        "$VENV/bin/python" - "$NOVA_LITE_MYSQL_URL" $(nl_all_databases) <<'PY'
import sys
import sqlalchemy
engine = sqlalchemy.create_engine(sys.argv[1] + '/')
with engine.connect() as conn:
    for name in sys.argv[2:]:
        conn.exec_driver_sql('DROP DATABASE IF EXISTS `%s`' % name)
PY
        nl_say "dropped the lab's MySQL databases"
    fi
    if _nl_rabbit_is_local && command -v rabbitmqctl >/dev/null 2>&1; then
        local vhost
        for vhost in $NL_API_VHOST $(nl_cells | sed "s/^/${NOVA_LITE_NAME}_/"); do
            rabbitmqctl -q delete_vhost "$vhost" >/dev/null 2>&1 && nl_say "deleted vhost $vhost"
        done
    fi
    nl_keystone_purge
    # state_path of the computes: fake guests and provider tree caches.
    rm -rf "$STATE/fake_driver" "$STATE"/provider-trees-*.json
    rm -rf "$DBDIR" "$ETC" "$PIDS" "$LOGS" "$STATE/clouds.yaml" "$STATE/state" "$STATE/images"
    nl_say "removed the lab state under $STATE (the virtualenv is kept)"
}
