# The steps of stack.sh and unstack.sh, one function each.

NL_API_VHOST=$NOVA_LITE_NAME
NL_FAILED_SERVICE=""
NL_SCHEDULER_KEPT=False

# The cells this node serves: 1..NOVA_LITE_CELLS, or a cell node's one.
nl_cells() {
    if nl_is_cell_node; then echo "$NOVA_LITE_CELL_NAME"; return; fi
    local i; for i in $(seq 1 "$NOVA_LITE_CELLS"); do echo "cell$i"; done
}
nl_computes() {  # nl_computes CELL: this node's compute hosts in one cell
    local i
    for i in $(seq 1 "$NOVA_LITE_COMPUTES_PER_CELL"); do
        echo "${NOVA_LITE_COMPUTE_PREFIX}$1-compute$i"
    done
}
# Every compute host of this node (none when it runs no compute).
nl_my_computes() {
    local cell
    nl_enabled compute || return 0
    for cell in $(nl_cells); do nl_computes "$cell"; done
}
# This node's address in URLs, and the controller's URLs.
NL_HOST_URL_HOST=$(_nl_url_host "$NOVA_LITE_HOST_IP")
NL_API_URL=http://$NL_SERVICE_URL_HOST:$NOVA_LITE_API_PORT
NL_PLACEMENT_URL=http://$NL_SERVICE_URL_HOST:$NOVA_LITE_PLACEMENT_PORT
# Placement's own file, read after api-level.conf (post-config target).
NOVA_LITE_CONF=$ETC/api-level.conf
NOVA_LITE_PLACEMENT_CONF=$ETC/placement.conf
NOVA_LITE_ETC=$ETC
export NOVA_LITE_CONF NOVA_LITE_PLACEMENT_CONF NOVA_LITE_ETC

# nl_python: the interpreter for a new virtualenv (NOVA_LITE_PYTHON).
# Why the distribution's first: it is built with profile-guided and
# link-time optimisation, and an interpreter built by pyenv without
# --enable-optimizations (the python3 first on PATH on some machines) runs
# the lab's services and the OpenStack clients about 20% slower
# (doc/operators.md).
nl_python() {
    if [ -n "$NOVA_LITE_PYTHON" ]; then
        echo "$NOVA_LITE_PYTHON"
        return 0
    fi
    local candidate
    for candidate in /usr/bin/python3 python3; do
        if "$candidate" -c 'import sys, ensurepip, venv
sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
            echo "$candidate"
            return 0
        fi
    done
    echo python3
}

# nl_make_venv DIR: a new virtualenv made with nl_python, said once.
nl_make_venv() {
    local python
    python=$(nl_python)
    nl_say "making the virtualenv $1 with $python ($("$python" -V 2>&1))"
    "$python" -m venv "$1"
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
    if nl_find_uv; then
        _nl_uv_install_venv && { echo "$want" > "$VENV/.nova-lite-installed"; return 0; }
        nl_say "uv failed (last lines of $LOGS/pip.log above): pip instead"
    fi
    _nl_pip_install_venv || return 1
    echo "$want" > "$VENV/.nova-lite-installed"
}

# What the lab's virtualenv is installed with: uv (NOVA_LITE_USE_UV=auto,
# the default) when it can be had, else pip (also NOVA_LITE_USE_UV=False).
# Why: pip took 31 s of a newcomer's first stack.sh on a quiet 2-core
# machine and 25-26 CPU-s; uv 11-13 CPU-s, most of it compiling bytecode on
# both cores (doc/operators.md). uv is the one on PATH, or one stack.sh
# installed from PyPI (pip install --target) into NOVA_LITE_UV_HOME
# (default ~/.cache/nova-lite/uv), kept for the next lab.
NL_UV=""
nl_find_uv() {
    case $NOVA_LITE_USE_UV in
        False|false|0|no) nl_say "NOVA_LITE_USE_UV=$NOVA_LITE_USE_UV: pip"; return 1 ;;
    esac
    NL_UV=$(command -v uv 2>/dev/null)
    if [ -n "$NL_UV" ] && "$NL_UV" --version >/dev/null 2>&1; then
        nl_say "using $("$NL_UV" --version) from PATH ($NL_UV)"
        return 0
    fi
    NL_UV=$NOVA_LITE_UV_HOME/bin/uv
    # Labs stacked at once share it: one installs, the others wait.
    { mkdir -p "$(dirname "${NOVA_LITE_UV_HOME%/}")" &&
      ( flock 9 || exit 1; _nl_bootstrap_uv ) 9>"${NOVA_LITE_UV_HOME%/}.lock"; } || {
        nl_say "uv cannot be had (see $LOGS/uv-bootstrap.log): pip instead"
        NL_UV=""; return 1; }
    nl_say "using $("$NL_UV" --version) ($NL_UV)"
}

# Install uv from PyPI into NOVA_LITE_UV_HOME unless it is there, with
# the pip of the interpreter the virtualenv is made with (or python3's).
_nl_bootstrap_uv() {
    "$NL_UV" --version >/dev/null 2>&1 && return 0
    local python
    for python in "$(nl_python)" python3; do
        "$python" -m pip --version >/dev/null 2>&1 || continue
        nl_say "uv is not on PATH: installing it from PyPI into $NOVA_LITE_UV_HOME ($python -m pip install --target)"
        rm -rf "$NOVA_LITE_UV_HOME"
        "$python" -m pip install -q --disable-pip-version-check --target \
            "$NOVA_LITE_UV_HOME" uv >>"$LOGS/uv-bootstrap.log" 2>&1 &&
            "$NL_UV" --version >/dev/null 2>&1 && return 0
    done
    return 1
}

# The virtualenv (with pip in it, for the user) and its packages by uv;
# bytecode compiled as pip does, so that the lab's first processes do not
# all compile the same modules side by side.
_nl_uv_install_venv() {
    local python
    python=$(nl_python)
    if [ ! -x "$VENV/bin/python" ]; then
        nl_say "making the virtualenv $VENV with $python ($("$python" -V 2>&1)), uv"
        "$NL_UV" venv -q --seed --python "$python" "$VENV" >"$LOGS/pip.log" 2>&1 || {
            tail -n 20 "$LOGS/pip.log"; rm -rf "$VENV"; return 1; }
    fi
    nl_say "installing nova_lite and the OpenStack clients into $VENV (uv)"
    "$NL_UV" pip install -q --python "$VENV/bin/python" --compile-bytecode \
        -e "$NL_REPO" python-openstackclient osc-placement >>"$LOGS/pip.log" 2>&1 || {
        tail -n 20 "$LOGS/pip.log"; return 1; }
}

_nl_pip_install_venv() {
    [ -x "$VENV/bin/pip" ] || nl_make_venv "$VENV" || return 1
    nl_say "installing nova_lite and the OpenStack clients into $VENV (pip)"
    "$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1
    "$VENV/bin/pip" install -q -e "$NL_REPO" python-openstackclient \
        osc-placement >"$LOGS/pip.log" 2>&1 || {
        tail -n 20 "$LOGS/pip.log"; return 1; }
}

# The broker is this machine's (rabbitmqctl manages it): its URL names
# loopback, or this node's own address on the controller.
_nl_rabbit_is_local() {
    local rest=${NOVA_LITE_RABBIT_URL#*://}
    rest=${rest#*@}; rest=${rest%%[:/,]*}
    case $rest in 127.0.0.1|localhost) return 0 ;; esac
    nl_is_controller && [ "$rest" = "$NOVA_LITE_HOST_IP" ]
}

_nl_rabbit_user() {
    local rest=${NOVA_LITE_RABBIT_URL#*://}
    case $rest in *@*) rest=${rest%%@*}; echo "${rest%%:*}" ;; *) echo guest ;; esac
}

_nl_rabbit_password() {
    local rest=${NOVA_LITE_RABBIT_URL#*://}
    case $rest in *:*@*) rest=${rest%%@*}; echo "${rest#*:}" ;; esac
}

# The lab's own broker user (beyond loopback): created, or its password
# set, with the password of NOVA_LITE_RABBIT_URL.
_nl_rabbit_ensure_user() {
    local user=$1 password
    [ "$user" = guest ] && return 0
    password=$(_nl_rabbit_password)
    if rabbitmqctl -q list_users 2>/dev/null | awk '{print $1}' | grep -qx "$user"; then
        rabbitmqctl -q change_password "$user" "$password" >/dev/null || return 1
    else
        rabbitmqctl -q add_user "$user" "$password" >/dev/null || return 1
        nl_say "created RabbitMQ user $user (generated password)"
    fi
}

nl_create_vhosts() {
    if ! _nl_rabbit_is_local || ! command -v rabbitmqctl >/dev/null 2>&1; then
        nl_say "RabbitMQ is not local: vhosts $NL_API_VHOST $(nl_cells | sed "s/^/${NOVA_LITE_NAME}_/" | tr '\n' ' ')must exist"
        return 0
    fi
    local existing vhost user; user=$(_nl_rabbit_user)
    existing=$(rabbitmqctl -q list_vhosts 2>/dev/null) || {
        nl_say "ERROR: rabbitmqctl cannot reach RabbitMQ (run as root?)"; return 1; }
    _nl_rabbit_ensure_user "$user" || return 1
    # Each rabbitmqctl call starts an Erlang VM (1-4 s on a loaded
    # machine): the vhosts are made side by side.
    local pids=() pid rc=0
    for vhost in $NL_API_VHOST $(nl_cells | sed "s/^/${NOVA_LITE_NAME}_/"); do
        _nl_make_vhost "$vhost" "$user" "$existing" & pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
    return $rc
}

# _nl_make_vhost VHOST USER EXISTING: create VHOST unless listed in
# EXISTING, and give USER every permission on it.
_nl_make_vhost() {
    if ! grep -qx "$1" <<< "$3"; then
        rabbitmqctl -q add_vhost "$1" >/dev/null || return 1
        nl_say "created vhost $1"
    fi
    rabbitmqctl -q set_permissions -p "$1" "$2" '.*' '.*' '.*' >/dev/null || return 1
    if [ "$1" = "$NL_API_VHOST" ] && [ "$NOVA_LITE_NOTIFICATION_QUEUE_MAX" -gt 0 ]; then
        # Notifications nobody consumes must not fill the broker.
        rabbitmqctl -q set_policy -p "$1" --apply-to queues \
            nova-lite-notifications '^(versioned_)?notifications\.' \
            "{\"max-length\": $NOVA_LITE_NOTIFICATION_QUEUE_MAX}" >/dev/null
    fi
}

nl_all_databases() {
    echo "${NOVA_LITE_NAME}_api ${NOVA_LITE_NAME}_placement ${NOVA_LITE_NAME}_cell0"
    if nl_keystone_enabled; then echo "${NOVA_LITE_NAME}_keystone"; fi
    nl_cells | sed "s/^/${NOVA_LITE_NAME}_/"
}

nl_create_databases() {
    if [ "$NOVA_LITE_DATABASE" != mysql ]; then
        nl_say "SQLite files under $DBDIR"
        return 0
    fi
    local admin=$NOVA_LITE_MYSQL_URL
    # Beyond loopback the lab connects as its own user; root (on the
    # controller) creates the databases and that user.
    nl_beyond_loopback && admin=$NOVA_LITE_MYSQL_ADMIN_URL
    "$VENV/bin/python" - "$admin" "$NOVA_LITE_MYSQL_URL" $(nl_all_databases) <<'PY'
import sys
import sqlalchemy
from sqlalchemy.engine import make_url
admin, lab = sys.argv[1], make_url(sys.argv[2])
engine = sqlalchemy.create_engine(admin + '/')
with engine.connect() as conn:
    for name in sys.argv[3:]:
        conn.exec_driver_sql('CREATE DATABASE IF NOT EXISTS `%s` '
                             'CHARACTER SET utf8mb4' % name)
    if admin != sys.argv[2] and lab.username and lab.username != 'root':
        who = (lab.username, lab.password)
        conn.exec_driver_sql(
            "CREATE USER IF NOT EXISTS %s@'%%' IDENTIFIED BY %s", who)
        conn.exec_driver_sql("ALTER USER %s@'%%' IDENTIFIED BY %s", who)
        for name in sys.argv[3:]:
            conn.exec_driver_sql(
                "GRANT ALL PRIVILEGES ON `" + name + "`.* TO %s@'%%'",
                (lab.username,))
        print('[nova-lite] MySQL user %s (generated password) owns them'
              % lab.username)
    conn.commit()
print('[nova-lite] MySQL databases: %s' % ' '.join(sys.argv[3:]))
PY
}

_nl_common_opts() {
    cat <<CONF
[DEFAULT]
state_path = $STATE
# This node's address (the host_ip of its computes' nodes).
my_ip = $NOVA_LITE_HOST_IP
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

[notifications]
notification_format = $NOVA_LITE_NOTIFICATIONS

[oslo_messaging_notifications]
# Every service notifies on the API bus, as Nova's cells v2 does (a cell
# node's services on their cell's bus: they use no other).
driver = $(_nl_notification_driver)
transport_url = $(_nl_notification_url)

[placement]
endpoint = $NL_PLACEMENT_URL
CONF
    _nl_service_auth
    # The image API the computes store snapshots through (the /image of
    # nova-lite-api), with the same service credentials.
    printf '\n[glance]\nendpoint = %s/image\n' "$NL_API_URL"
    _nl_service_auth
}

_nl_notification_url() {
    if nl_is_cell_node; then
        nl_rabbit_url "${NOVA_LITE_NAME}_$NOVA_LITE_CELL_NAME"
    else
        nl_rabbit_url "$NL_API_VHOST"
    fi
}

# messagingv2 unless notifications are off (noop sends nothing).
_nl_notification_driver() {
    if [ "$NOVA_LITE_NOTIFICATIONS" = none ]; then echo noop; else echo messagingv2; fi
}

# How the lab's services authenticate to placement and the image API.
_nl_service_auth() {
    case $NOVA_LITE_AUTH in
        keystone) nl_keystone_placement_auth ;;
        http_basic) printf 'auth_type = http_basic\nusername = nova_lite\npassword = %s\n' \
                        "$NOVA_LITE_ADMIN_PASSWORD" ;;
        *) echo "token = admin" ;;
    esac
}

# The auth_strategy of both APIs.
_nl_auth_strategy() { echo "$NOVA_LITE_AUTH"; }

# http_basic: the users of both APIs (bcrypt), admin and nova_lite (the
# service user) are admins, demo a member of project demo.
nl_write_htpasswd() {
    [ "$NOVA_LITE_AUTH" = http_basic ] || return 0
    ( umask 077
      "$VENV/bin/python" - "$NOVA_LITE_ADMIN_PASSWORD" > "$ETC/htpasswd" <<'PY'
import sys
import bcrypt
for user in ('admin', 'nova_lite', 'demo'):
    print('%s:%s' % (user, bcrypt.hashpw(sys.argv[1].encode(),
                                         bcrypt.gensalt(4)).decode()))
PY
    ) || return 1
    nl_say "wrote $ETC/htpasswd (users admin, nova_lite, demo; http_basic)"
}

_nl_http_basic_opts() {
    [ "$NOVA_LITE_AUTH" = http_basic ] || return 0
    printf 'http_basic_auth_user_file = %s\nhttp_basic_admin_users = admin,nova_lite\n' "$ETC/htpasswd"
}

# The API-level services (api, placement, scheduler, super conductor)
# read api-level.conf.
_nl_runs_api_level() {
    nl_enabled api || nl_enabled placement || nl_enabled scheduler || nl_enabled conductor
}

nl_write_configs() {
    if _nl_runs_api_level; then nl_write_api_level_config || return 1; fi
    if nl_enabled placement && [ ! -f "$NOVA_LITE_PLACEMENT_CONF" ]; then
        printf '# Options of nova-lite-placement only, read after api-level.conf\n# ([[post-config|$NOVA_LITE_PLACEMENT_CONF]] of local.conf).\n' \
            > "$NOVA_LITE_PLACEMENT_CONF"
    fi
    nl_write_htpasswd || return 1
    if nl_is_cell_node && ! _nl_runs_api_level; then
        # nova-lite-manage on a cell node: the controller's API database
        # (the cell's mapping), this cell's database.
        printf '[api_database]\nconnection = %s\n\n[database]\nconnection = %s\n' \
            "$(nl_db_url "${NOVA_LITE_NAME}_api")" \
            "$(nl_db_url "${NOVA_LITE_NAME}_$NOVA_LITE_CELL_NAME")" > "$ETC/manage.conf"
    fi
    local cell host
    for cell in $(nl_cells); do
        if nl_enabled cell-conductor; then
            # A cell conductor serves a burst of builds from many RPC
            # threads: oslo.db's pool of 5 made it open (and TLS-set-up) a
            # new MariaDB connection for most transactions, half its CPU.
            { _nl_common_opts; printf '\n[database]\nconnection = %s\nmax_pool_size = %s\n' \
                "$(nl_db_url "${NOVA_LITE_NAME}_$cell")" "$NOVA_LITE_CELL_DB_POOL"; } \
                > "$ETC/$cell.conf"
            sed -i "/^\[DEFAULT\]/a transport_url = $(nl_rabbit_url "${NOVA_LITE_NAME}_$cell")\nhost = $cell-conductor" "$ETC/$cell.conf"
        fi
        nl_enabled compute || continue
        for host in $(nl_computes "$cell"); do
            { _nl_common_opts; printf '\n[fake_driver]\nnodes = %s\n' "$NOVA_LITE_NODES_PER_COMPUTE"; } \
                > "$ETC/$host.conf"
            sed -i "/^\[DEFAULT\]/a transport_url = $(nl_rabbit_url "${NOVA_LITE_NAME}_$cell")\nhost = $host" "$ETC/$host.conf"
            sed -i "/^\[placement\]/a max_parallel_requests = $(nl_placement_parallel)\ntimeout = $NOVA_LITE_PLACEMENT_TIMEOUT" "$ETC/$host.conf"
            # Local overrides of one compute (fault injection, inventory):
            # *.conf files here are read after $host.conf and never touched.
            mkdir -p "$ETC/$host.conf.d"
        done
    done
    nl_say "wrote $(ls "$ETC"/*.conf 2>/dev/null | wc -l) files"
}

# [placement] max_parallel_requests of each compute: this node's share
# of NOVA_LITE_PLACEMENT_INFLIGHT, between 1 and 8 (settings.sh says why).
nl_placement_parallel() {
    local computes share
    computes=$(nl_my_computes | wc -l)
    share=$(( NOVA_LITE_PLACEMENT_INFLIGHT / (computes > 0 ? computes : 1) ))
    [ "$share" -lt 1 ] && share=1
    [ "$share" -gt 8 ] && share=8
    echo "$share"
}

# [[post-config|FILE]] sections of a devstack-format local.conf, merged
# into the files just written (so on every run).
nl_post_config() {
    [ "$NL_LOCAL_CONF_META" = True ] || return 0
    local confs="" host
    for host in $(nl_my_computes); do confs="$confs $ETC/$host.conf"; done
    NL_COMPUTE_CONFS=$confs python3 "$NL_DEVSTACK_DIR/lib/localconf.py" \
        post-config "$NL_LOCAL_CONF"
}

nl_write_api_level_config() {
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
bind_host = $NOVA_LITE_HOST_IP
bind_port = $NOVA_LITE_API_PORT
workers = 2
auth_strategy = $(_nl_auth_strategy)
$(_nl_http_basic_opts)
# Seconds a list or show waits for a cell's database before it takes the
# cell for down (minimal records from 2.69, left out before).
cell_timeout = $NOVA_LITE_CELL_TIMEOUT

[placement_api]
bind_host = $NOVA_LITE_HOST_IP
bind_port = $NOVA_LITE_PLACEMENT_PORT
workers = $NOVA_LITE_PLACEMENT_WORKERS
auth_strategy = $(_nl_auth_strategy)
$(_nl_http_basic_opts)

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
}

nl_manage() {
    # Passwords of URLs are not logged.
    echo "+ nova-lite-manage $*" | sed -E 's#://([^:/@]+):[^@/]*@#://\1:***@#g' >> "$LOGS/manage.log"
    local conf=$ETC/api-level.conf
    [ -f "$conf" ] || conf=$ETC/manage.conf
    "$VENV/bin/nova-lite-manage" --config-file "$conf" "$@" >> "$LOGS/manage.log" 2>&1
}

# The schemas are independent of each other and each nova-lite-manage
# run costs a Python start-up (seconds on a loaded machine): the API,
# placement, cell0 and every cell database are synced side by side, then
# cell0 and the cells are mapped side by side.
nl_sync_and_map() {
    local cell pids=() pid rc=0
    nl_manage api_db sync & pids+=($!)
    nl_manage placement db sync & pids+=($!)
    for cell in cell0 $(nl_cells); do
        nl_manage db sync --database_connection "$(nl_db_url "${NOVA_LITE_NAME}_$cell")" & pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
    [ $rc = 0 ] || return 1
    # The mappings all go to the API database: side by side on MariaDB,
    # one after the other on SQLite (one writer at a time).
    if [ "$NOVA_LITE_DATABASE" != mysql ]; then
        nl_manage cell_v2 map_cell0 --database_connection "$(nl_db_url "${NOVA_LITE_NAME}_cell0")" || return 1
        for cell in $(nl_cells); do _nl_create_cell "$cell" || return 1; done
    else
        pids=()
        nl_manage cell_v2 map_cell0 --database_connection "$(nl_db_url "${NOVA_LITE_NAME}_cell0")" & pids+=($!)
        for cell in $(nl_cells); do _nl_create_cell "$cell" & pids+=($!); done
        for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
        [ $rc = 0 ] || return 1
    fi
    nl_say "API, placement, cell0 and $NOVA_LITE_CELLS cell database(s) at head; cells mapped"
}

_nl_create_cell() {
    nl_manage cell_v2 create_cell --name "$1" \
        --transport-url "$(nl_rabbit_url "${NOVA_LITE_NAME}_$1")" \
        --database_connection "$(nl_db_url "${NOVA_LITE_NAME}_$1")"
    local rc=$?
    # 2: the cell is mapped already (a re-run).
    [ $rc = 0 ] || [ $rc = 2 ]
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
    nl_enabled placement && nl_start placement "$VENV/bin/nova-lite-placement" \
        --config-file "$api_conf" --config-file "$NOVA_LITE_PLACEMENT_CONF"
    nl_enabled api && nl_start api "$VENV/bin/nova-lite-api" --config-file "$api_conf"
    nl_enabled scheduler && nl_start scheduler "$VENV/bin/nova-lite-scheduler" --config-file "$api_conf"
    nl_enabled conductor && nl_start conductor "$VENV/bin/nova-lite-conductor" --config-file "$api_conf"
    if nl_enabled cell-conductor; then
        for cell in $(nl_cells); do
            nl_start "conductor-$cell" "$VENV/bin/nova-lite-conductor" \
                --config-file "$ETC/$cell.conf" --cell "$cell"
        done
    fi
    nl_enabled compute || return 0
    # Computes keep their records through their cell conductor: start them
    # once every cell conductor consumes (those of a compute node run on
    # other nodes: it waits for them the same way).
    # (+1: the super conductor records itself in the default cell; a cell
    # node waits for its cell's conductor only.)
    local conductors=$((NOVA_LITE_CELLS + 1))
    nl_is_cell_node && conductors=1
    nl_wait_up "$conductors" 60 --binary nova-lite-conductor || return 1
    for host in $(nl_my_computes); do
        nl_start "compute-$host" "$VENV/bin/nova-lite-compute" \
            --config-file "$ETC/$host.conf" --config-dir "$ETC/$host.conf.d"
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
    # A cell node's own bus and database servers are stopped after them
    # (nl_cell_servers_stop), not here.
    for f in "$PIDS"/compute-*.pid "$PIDS"/conductor-*.pid "$PIDS"/conductor.pid \
             "$PIDS"/scheduler.pid "$PIDS"/api.pid "$PIDS"/placement.pid "$PIDS"/*.pid; do
        [ -f "$f" ] && basename "$f" .pid
    done | awk '!seen[$0]++' | grep -vx -e cell-rabbit -e cell-mysql
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
hosts = None
if args[:1] == ['--binary']:
    binary, args = args[1], args[2:]
if args[:1] == ['--hosts']:
    hosts, args = set(args[1].split(',')), args[2:]
now = datetime.datetime.utcnow()
up = 0
for url in args:
    engine = sqlalchemy.create_engine(url)
    # Built with SQLAlchemy so that `binary` (reserved in MySQL) is quoted.
    services = sqlalchemy.table(
        'services', sqlalchemy.column('binary'), sqlalchemy.column('host'),
        sqlalchemy.column('last_seen_up'), sqlalchemy.column('created_at'))
    query = sqlalchemy.select(
        services.c.binary, services.c.host, services.c.last_seen_up,
        services.c.created_at)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    engine.dispose()
    for name, host, last, created in rows:
        seen = last or created
        if isinstance(seen, str):
            seen = datetime.datetime.fromisoformat(seen)
        if binary not in (None, name) or seen is None:
            continue
        if hosts is not None and host not in hosts:
            continue
        if (now - seen).total_seconds() <= 60:
            up += 1
print(up)
PY
}

# nl_wait_up WANT SECONDS [--binary NAME] [--hosts H1,H2]: wait until WANT
# services are up.
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
    if nl_enabled placement; then
        nl_wait_http placement "http://$NL_HOST_URL_HOST:$NOVA_LITE_PLACEMENT_PORT/" 60 || {
            NL_FAILED_SERVICE=placement; return 1; }
    fi
    if nl_enabled api; then
        nl_wait_http api "http://$NL_HOST_URL_HOST:$NOVA_LITE_API_PORT/" 60 || {
            NL_FAILED_SERVICE=api; return 1; }
    fi
    if nl_all_in_one; then
        # scheduler + super conductor (default cell) + per cell: conductor
        # and computes
        nl_wait_up $((2 + NOVA_LITE_CELLS * (1 + NOVA_LITE_COMPUTES_PER_CELL))) 90
        return
    fi
    # A node with some roles: its own services, by host name.
    local hosts="" want=0 cell
    if nl_enabled cell-conductor; then
        for cell in $(nl_cells); do hosts="$hosts,$cell-conductor"; want=$((want + 1)); done
    fi
    for cell in $(nl_my_computes); do hosts="$hosts,$cell"; want=$((want + 1)); done
    if [ "$want" -gt 0 ]; then nl_wait_up "$want" 90 --hosts "${hosts#,}" || return 1; fi
    if nl_enabled scheduler; then nl_wait_up 1 90 --binary nova-lite-scheduler || return 1; fi
}

# This node's compute hosts that have no host mapping yet.
_nl_unmapped_hosts() {
    "$VENV/bin/python" - "$(nl_db_url "${NOVA_LITE_NAME}_api")" \
        $(nl_my_computes) <<'PY'
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
    # A node without the scheduler: the controller's scheduler maps its
    # hosts ([scheduler] discover_hosts_in_cells_interval).
    nl_enabled scheduler || { NL_SCHEDULER_KEPT=True; limit=60; }
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
    if ! nl_is_controller; then
        nl_say "ERROR: run nova-lite-manage cell_v2 discover_hosts on the controller"
        return 1
    fi
    nl_manage cell_v2 discover_hosts --by-service || return 1
    nl_say "compute hosts mapped to their cells (nova-lite-manage)"
}

# Nodes of this node's computes that are registered: a compute_nodes row
# (what the hypervisor listing shows) and, of those, the ones whose
# provider has an inventory in placement; then the computes that have
# sent a heartbeat (a compute starts its heartbeat once its first
# resource update is done, traits included: until then the scheduler
# takes it for down).
_nl_nodes_registered() {
    "$VENV/bin/python" - "$(nl_db_url "${NOVA_LITE_NAME}_placement")" \
        "$(nl_my_computes | tr '\n' ',')" \
        $(for cell in $(nl_cells); do nl_db_url "${NOVA_LITE_NAME}_$cell"; done) <<'PY'
import sys
import sqlalchemy
placement, hosts, cells = sys.argv[1], sys.argv[2].strip(','), sys.argv[3:]
hosts = set(hosts.split(','))
uuids = set()
beating = 0
for url in cells:
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as conn:
        for uuid, host in conn.exec_driver_sql(
                'SELECT uuid, host FROM compute_nodes WHERE deleted = 0'):
            if host in hosts:
                uuids.add(uuid)
        for (host,) in conn.exec_driver_sql(
                'SELECT host FROM services '
                'WHERE last_seen_up IS NOT NULL'):
            beating += host in hosts
    engine.dispose()
engine = sqlalchemy.create_engine(placement)
with engine.connect() as conn:
    with_inventory = {row[0] for row in conn.exec_driver_sql(
        'SELECT DISTINCT rp.uuid FROM resource_providers rp '
        'JOIN inventories i ON i.resource_provider_id = rp.id')}
engine.dispose()
print(len(uuids), len(uuids & with_inventory), beating)
PY
}

# Wait until every node of this node's computes is registered (a row and
# an inventory); report how long it took and how far it got. A compute
# heartbeats only once its first resource update is done, so "every
# compute up and every row with an inventory" means every node is in,
# whatever node count a compute's own conf.d gives it; the lab-wide
# NOVA_LITE_NODES_PER_COMPUTE is only the expectation the messages name.
nl_wait_nodes() {
    local want rows ready beating started now name computes
    computes=$(nl_my_computes | wc -l)
    want=$(( computes * NOVA_LITE_NODES_PER_COMPUTE ))
    [ "$computes" -gt 0 ] || return 0
    started=$(date +%s)
    while :; do
        read -r rows ready beating < <(_nl_nodes_registered) || {
            nl_say "ERROR: cannot read compute_nodes or placement"; return 1; }
        now=$(date +%s)
        if [ "${beating:-0}" -ge "$computes" ] && [ "${rows:-0}" -ge "$computes" ] \
                && [ "${ready:-0}" -ge "${rows:-0}" ]; then
            nl_say "all $rows nodes registered ($((now - started)) s: rows, inventories, $computes computes up)"
            return 0
        fi
        if [ $((now - started)) -ge "$NOVA_LITE_WAIT_NODES_TIMEOUT" ]; then
            nl_say "ERROR: $rows nodes (about $want expected) have a row, $ready an inventory, $beating of $computes computes are up after ${NOVA_LITE_WAIT_NODES_TIMEOUT}s"
            return 1
        fi
        for name in $(nl_started_names); do
            nl_check_alive "$name" || { NL_FAILED_SERVICE=$name; return 1; }
        done
        sleep 2
    done
}

nl_write_clouds_yaml() {
    local api=$NL_API_URL
    if [ "$NOVA_LITE_AUTH" = http_basic ]; then
        ( umask 077; _nl_http_basic_clouds_yaml > "$STATE/clouds.yaml" )
        nl_say "wrote $STATE/clouds.yaml (http_basic logins: admin, demo)"
        return 0
    fi
    if nl_keystone_enabled; then
        nl_keystone_clouds_yaml > "$STATE/clouds.yaml"
        nl_say "wrote $STATE/clouds.yaml (Keystone password logins)"
        return 0
    fi
    cat > "$STATE/clouds.yaml" <<YAML
# Written by devstack/stack.sh. Use:
#   export OS_CLIENT_CONFIG_FILE=$STATE/clouds.yaml
#   openstack --os-cloud nova-lite server list
# noauth2 takes the token for who calls: "demo" is the member demo of the
# project demo (as in a lab with Keystone), "admin" an admin. keystoneauth's
# admin_token plugin sends a token of our choice (auth_type none always
# sends "notused"); any token may be sent, it proves nothing on noauth2.
clouds:
  nova-lite:
    auth_type: admin_token
    auth:
      endpoint: $api/v2.1
      token: demo
    identity_api_version: "3"
    identity_endpoint_override: $api/v2.1
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
      endpoint: $NL_PLACEMENT_URL
      token: admin
YAML
    nl_say "wrote $STATE/clouds.yaml"
}

_nl_http_basic_cloud() {  # _nl_http_basic_cloud NAME USER ENDPOINT
    cat <<YAML
  $1:
    auth_type: http_basic
    auth:
      endpoint: $3
      username: $2
      password: $NOVA_LITE_ADMIN_PASSWORD
    identity_api_version: "3"
    image_endpoint_override: $NL_API_URL/image
    network_endpoint_override: $NL_API_URL/network
    placement_endpoint_override: $NL_PLACEMENT_URL
YAML
}

_nl_http_basic_clouds_yaml() {
    cat <<YAML
# Written by devstack/stack.sh: the lab binds beyond loopback, so both APIs
# use http_basic (users admin, demo; password in $NL_PASSWORDS). Use:
#   export OS_CLIENT_CONFIG_FILE=$STATE/clouds.yaml
#   openstack --os-cloud nova-lite server list
clouds:
YAML
    _nl_http_basic_cloud nova-lite demo "$NL_API_URL/v2.1"
    _nl_http_basic_cloud nova-lite-admin admin "$NL_API_URL/v2.1"
    _nl_http_basic_cloud nova-lite-placement admin "$NL_PLACEMENT_URL"
}

nl_summary() {
    local secs=$1 cell identity=""
    nl_keystone_enabled && identity="
  identity       $KS_URL (Keystone: users admin, demo, nova_lite)"
    cat <<EOT

nova_lite lab is up ($secs s)
  this node      $NOVA_LITE_HOST_IP runs $NOVA_LITE_ENABLED_SERVICES
  compute API    $NL_API_URL/v2.1 (auth: $NOVA_LITE_AUTH)
  placement      $NL_PLACEMENT_URL/$identity
  database       $NOVA_LITE_DATABASE
  cells          cell0 $(nl_cells | tr '\n' ' ')$(nl_is_cell_node && printf '\n  cell node      %s: bus %s:%s, database %s:%s' "$NOVA_LITE_CELL_NAME" "$NL_CELL_URL_HOST" "$NOVA_LITE_CELL_RABBIT_PORT" "$NL_CELL_URL_HOST" "$NOVA_LITE_CELL_MYSQL_PORT")
$(nl_enabled compute && for cell in $(nl_cells); do echo "  $cell hosts    $(nl_computes "$cell" | tr '\n' ' ')($NOVA_LITE_NODES_PER_COMPUTE fake nodes each)"; done)
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
    # The controller owns the databases, vhosts and users; a subnode
    # removes only its own state.
    if nl_is_cell_node && { nl_runs_cell_rabbit || nl_runs_cell_mysql; }; then
        rm -rf "$NL_CELL_SERVERS"
        nl_say "removed this cell node's RabbitMQ and MariaDB data ($NL_CELL_SERVERS); the mapping of $NOVA_LITE_CELL_NAME on the controller goes with the controller's purge (or nova-lite-manage cell_v2 delete_cell)"
    fi
    if ! nl_is_controller; then
        nl_say "not the controller: the lab's databases and vhosts are left to it"
    elif [ "$NOVA_LITE_DATABASE" = mysql ] && [ -x "$VENV/bin/python" ]; then
        local admin=$NOVA_LITE_MYSQL_URL
        nl_beyond_loopback && admin=$NOVA_LITE_MYSQL_ADMIN_URL
        "$VENV/bin/python" - "$admin" "$NOVA_LITE_MYSQL_URL" $(nl_all_databases) <<'PY'
import sys
import sqlalchemy
from sqlalchemy.engine import make_url
admin, lab = sys.argv[1], make_url(sys.argv[2])
engine = sqlalchemy.create_engine(admin + '/')
with engine.connect() as conn:
    for name in sys.argv[3:]:
        conn.exec_driver_sql('DROP DATABASE IF EXISTS `%s`' % name)
    if admin != sys.argv[2] and lab.username and lab.username != 'root':
        conn.exec_driver_sql("DROP USER IF EXISTS %s@'%%'", (lab.username,))
PY
        nl_say "dropped the lab's MySQL databases"
    fi
    if nl_is_controller && _nl_rabbit_is_local && command -v rabbitmqctl >/dev/null 2>&1; then
        local vhost user
        for vhost in $NL_API_VHOST $(nl_cells | sed "s/^/${NOVA_LITE_NAME}_/"); do
            rabbitmqctl -q delete_vhost "$vhost" >/dev/null 2>&1 && nl_say "deleted vhost $vhost"
        done
        user=$(_nl_rabbit_user)
        if [ "$user" != guest ] && [ "$user" = "$NOVA_LITE_NAME" ]; then
            rabbitmqctl -q delete_user "$user" >/dev/null 2>&1 && nl_say "deleted RabbitMQ user $user"
        fi
    fi
    nl_keystone_purge
    # state_path of the computes: fake guests and provider tree caches.
    rm -rf "$STATE/fake_driver" "$STATE"/provider-trees-*.json
    rm -rf "$DBDIR" "$ETC" "$PIDS" "$LOGS" "$STATE/clouds.yaml" "$STATE/state" "$STATE/images" \
        "$NL_PASSWORDS"
    nl_say "removed the lab state under $STATE (the virtualenv is kept)"
}

# Roles and authentication of this node, checked before anything is done.
nl_check_roles() {
    local svc
    for svc in ${NOVA_LITE_ENABLED_SERVICES//,/ }; do
        case " $NL_ALL_SERVICES keystone rabbit mysql " in
            *" $svc "*) ;;
            *) nl_say "ERROR: unknown service '$svc' in NOVA_LITE_ENABLED_SERVICES (known: $NL_ALL_SERVICES keystone rabbit mysql)"
               return 1 ;;
        esac
    done
    nl_check_cell_node_roles || return 1
    nl_say "this node ($NOVA_LITE_HOST_IP) runs: $NOVA_LITE_ENABLED_SERVICES; controller: $NOVA_LITE_SERVICE_HOST"
    if ! nl_all_in_one && [ "$NOVA_LITE_DATABASE" != mysql ]; then
        nl_say "ERROR: a lab split over several nodes needs NOVA_LITE_DATABASE=mysql"
        return 1
    fi
    if ! nl_beyond_loopback; then
        nl_say "APIs on loopback only: authentication $NOVA_LITE_AUTH"
        return 0
    fi
    if [ "$NOVA_LITE_AUTH" = noauth2 ]; then
        nl_say "ERROR: refusing noauth2: the lab binds to $NOVA_LITE_HOST_IP (controller $NOVA_LITE_SERVICE_HOST), beyond loopback, and noauth2 trusts any token (the token 'admin' is a cloud admin); leave NOVA_LITE_AUTH unset (http_basic) or set NOVA_LITE_KEYSTONE=True"
        return 1
    fi
    case $NOVA_LITE_AUTH in
        http_basic|keystone) ;;
        *) nl_say "ERROR: NOVA_LITE_AUTH=$NOVA_LITE_AUTH: use http_basic or keystone"; return 1 ;;
    esac
    nl_say "the lab binds beyond loopback: the APIs use $NOVA_LITE_AUTH (not noauth2); users admin, nova_lite, demo"
    [ -n "$NL_GENERATED_PASSWORDS" ] &&
        nl_say "generated${NL_GENERATED_PASSWORDS}; kept in $NL_PASSWORDS (give the other nodes the same)"
    local missing=""
    [ -n "${NOVA_LITE_ADMIN_PASSWORD:-}" ] || missing="$missing NOVA_LITE_ADMIN_PASSWORD"
    case $NOVA_LITE_RABBIT_URL in *:@*) missing="$missing NOVA_LITE_RABBIT_PASSWORD" ;; esac
    if [ "$NOVA_LITE_DATABASE" = mysql ]; then
        case $NOVA_LITE_MYSQL_URL in *:@*) missing="$missing NOVA_LITE_DATABASE_PASSWORD" ;; esac
    fi
    if [ -n "$missing" ]; then
        nl_say "ERROR: set$missing on this node: the values of the controller's $NL_PASSWORDS"
        return 1
    fi
}

# host port of the first host of a URL (rabbit://u:p@h:port/, mysql...).
_nl_url_host_port() {
    local rest=${1#*://}
    rest=${rest#*@}; rest=${rest%%[/,?]*}
    case $rest in
        \[*\]:*) echo "${rest%%]*}" | tr -d '[' ; echo "${rest##*:}" ;;
        *:*) echo "${rest%%:*}"; echo "${rest##*:}" ;;
        *) echo "$rest"; echo "$2" ;;
    esac
}

# A node that is not the controller uses the controller's bus and
# databases: they must answer.
nl_check_controller_reachable() {
    local hp
    hp=($(_nl_url_host_port "$NOVA_LITE_RABBIT_URL" 5672))
    nl_wait_for 60 "RabbitMQ at ${hp[0]}:${hp[1]}" nl_port_open "${hp[0]}" "${hp[1]}" || return 1
    nl_say "RabbitMQ answers at ${hp[0]}:${hp[1]}"
    if [ "$NOVA_LITE_DATABASE" = mysql ]; then
        hp=($(_nl_url_host_port "$NOVA_LITE_MYSQL_URL" 3306))
        nl_wait_for 60 "MariaDB at ${hp[0]}:${hp[1]}" nl_port_open "${hp[0]}" "${hp[1]}" || return 1
        nl_say "MariaDB answers at ${hp[0]}:${hp[1]}"
    fi
}
