# Lab settings: defaults, then devstack/local.conf, then the environment.

_nl_env_snapshot=$(env | grep -E '^(NOVA_LITE_|INSTALL_SERVICES=)' || true)
# devstack/local.conf (or NOVA_LITE_LOCAL_CONF): either shell assignments,
# or devstack's format, whose [[local|localrc]] section holds them and
# whose [[post-config|FILE]] sections stack.sh merges into the lab's
# configuration files on every run (nl_post_config).
NL_LOCAL_CONF=${NOVA_LITE_LOCAL_CONF:-$NL_DEVSTACK_DIR/local.conf}
NL_LOCAL_CONF_META=False
if [ -f "$NL_LOCAL_CONF" ]; then
    if grep -q '^\[\[' "$NL_LOCAL_CONF"; then
        NL_LOCAL_CONF_META=True
        . <(python3 "$NL_DEVSTACK_DIR/lib/localconf.py" localrc "$NL_LOCAL_CONF")
    else
        . "$NL_LOCAL_CONF"
    fi
fi
# The environment wins over local.conf.
while IFS= read -r _line; do
    [ -n "$_line" ] && export "$_line"
done <<< "$_nl_env_snapshot"

# unstack.sh describes the lab by what stack.sh recorded in its state
# directory (name prefix, ports, database, cells, Keystone), not by today's
# local.conf or defaults: a purge with only NOVA_LITE_STATE_DIR set must
# remove exactly that lab's vhosts and databases, never another lab's.
NL_RECORD=${NOVA_LITE_STATE_DIR:-$HOME/.nova-lite/lab}/lab-settings.sh
if [ "${NL_RECORDED_WINS:-False}" = True ] && [ -f "$NL_RECORD" ]; then
    . "$NL_RECORD"
    NL_USED_RECORD=True
fi

# Roles (doc/multinode.md). The address this node's services bind to and
# advertise, the controller's address (APIs, placement, Keystone, the bus
# and the databases), and the services this node runs, any of:
#   api placement scheduler conductor cell-conductor compute keystone
NOVA_LITE_HOST_IP=${NOVA_LITE_HOST_IP:-127.0.0.1}
NOVA_LITE_SERVICE_HOST=${NOVA_LITE_SERVICE_HOST:-$NOVA_LITE_HOST_IP}
NL_ALL_SERVICES="api placement scheduler conductor cell-conductor compute"
NOVA_LITE_KEYSTONE=${NOVA_LITE_KEYSTONE:-False}
case ,${NOVA_LITE_ENABLED_SERVICES:-}, in
    *,keystone,*) NOVA_LITE_KEYSTONE=True ;;
esac
case $NOVA_LITE_KEYSTONE in
    True|true|1|yes) _nl_default_services="$NL_ALL_SERVICES keystone" ;;
    *) _nl_default_services=$NL_ALL_SERVICES ;;
esac
NOVA_LITE_ENABLED_SERVICES=${NOVA_LITE_ENABLED_SERVICES:-${_nl_default_services// /,}}
# Compute host names of this node: <prefix><cell>-compute<i> (a subnode
# sets a prefix so that its hosts differ from every other node's).
NOVA_LITE_COMPUTE_PREFIX=${NOVA_LITE_COMPUTE_PREFIX:-}
# A cell node (doc/multinode.md, "Cell nodes"): NOVA_LITE_CELL_NAME is the
# one cell this node serves (its cell conductor, its computes) instead of
# cells 1..NOVA_LITE_CELLS; that cell's bus and database are at
# NOVA_LITE_CELL_HOST (default: this node), on the ports below. With the
# services rabbit and mysql this node runs them: a private RabbitMQ and a
# private MariaDB of its own (data under the state directory), never the
# machine's shared ones; it maps the cell on the controller.
NOVA_LITE_CELL_NAME=${NOVA_LITE_CELL_NAME:-}
NOVA_LITE_CELL_HOST=${NOVA_LITE_CELL_HOST:-$NOVA_LITE_HOST_IP}
NOVA_LITE_CELL_RABBIT_PORT=${NOVA_LITE_CELL_RABBIT_PORT:-5672}
NOVA_LITE_CELL_MYSQL_PORT=${NOVA_LITE_CELL_MYSQL_PORT:-3306}
# Seconds the compute API waits for a cell's database ([api] cell_timeout,
# Nova's CELL_TIMEOUT of 60 s): a refused connection is retried
# ([database] transient_retry_timeout) for no longer, then the cell is
# down. A lab whose cells live on their own nodes wants less (a dead
# node's cell makes every list wait this long).
NOVA_LITE_CELL_TIMEOUT=${NOVA_LITE_CELL_TIMEOUT:-60}

# nl_enabled SERVICE: true when this node runs SERVICE.
nl_enabled() { case ,$NOVA_LITE_ENABLED_SERVICES, in *,$1,*) return 0 ;; esac; return 1; }

# This node serves one cell of its own (NOVA_LITE_CELL_NAME).
nl_is_cell_node() { [ -n "$NOVA_LITE_CELL_NAME" ]; }
# This node runs its cell's own bus / database server.
nl_runs_cell_rabbit() { nl_is_cell_node && nl_enabled rabbit; }
nl_runs_cell_mysql() { nl_is_cell_node && nl_enabled mysql; }

# This node runs every nova_lite service (the single-machine lab).
nl_all_in_one() {
    local svc
    for svc in $NL_ALL_SERVICES; do nl_enabled "$svc" || return 1; done
}

_nl_is_loopback() { case $1 in 127.*|localhost|::1) return 0 ;; esac; return 1; }
# True when this lab is reachable beyond this machine's loopback.
nl_beyond_loopback() {
    ! _nl_is_loopback "$NOVA_LITE_HOST_IP" || ! _nl_is_loopback "$NOVA_LITE_SERVICE_HOST"
}
# The controller (runs the API): creates the vhosts, databases and users.
nl_is_controller() { nl_enabled api; }
# An address in a URL ([v6] in brackets).
_nl_url_host() { case $1 in *:*) echo "[$1]" ;; *) echo "$1" ;; esac; }
NL_SERVICE_URL_HOST=$(_nl_url_host "$NOVA_LITE_SERVICE_HOST")

# The default lab: one cell with two computes, the smallest lab in which
# every move of the README's tour has somewhere to go (a live migration
# needs another host in the server's cell); NOVA_LITE_CELLS=2 adds a cell.
NOVA_LITE_CELLS=${NOVA_LITE_CELLS:-1}
NOVA_LITE_COMPUTES_PER_CELL=${NOVA_LITE_COMPUTES_PER_CELL:-2}
NOVA_LITE_NODES_PER_COMPUTE=${NOVA_LITE_NODES_PER_COMPUTE:-10}
# The lab's size is cells x computes x nodes (doc/benchmarks.md, "10,000-node
# lab"). Placement requests all of this node's computes keep in flight
# together while registering their nodes: each compute gets
# [placement] max_parallel_requests = this / its computes (at least 1, at
# most 8). Placement serves [placement_api] workers x 4 requests at a time;
# 20 computes x 8 requests queued a reshape behind 150 others until the
# compute's 30 s timeout gave up on it.
NOVA_LITE_PLACEMENT_INFLIGHT=${NOVA_LITE_PLACEMENT_INFLIGHT:-16}
# Seconds a compute waits for a placement answer ([placement] timeout;
# nova_lite's default is 30, Nova's keystoneauth session has none). A
# registering lab of thousands of nodes on a loaded 2-core machine had
# reshapes of 250 providers answered after 30 s: applied, but taken for
# an outage and checked again a period later.
NOVA_LITE_PLACEMENT_TIMEOUT=${NOVA_LITE_PLACEMENT_TIMEOUT:-120}
NOVA_LITE_PLACEMENT_WORKERS=${NOVA_LITE_PLACEMENT_WORKERS:-2}
# True: stack.sh returns only when every node of this node's computes has
# its compute_nodes row and its inventory in placement, and every compute
# has sent its first heartbeat (schedulable), for up to
# NOVA_LITE_WAIT_NODES_TIMEOUT seconds.
NOVA_LITE_WAIT_NODES=${NOVA_LITE_WAIT_NODES:-True}
NOVA_LITE_WAIT_NODES_TIMEOUT=${NOVA_LITE_WAIT_NODES_TIMEOUT:-600}
# devstack's default networks (devstack/lib/networks.sh): the external
# network public (NOVA_LITE_FLOATING_RANGE, gateway
# NOVA_LITE_PUBLIC_NETWORK_GATEWAY), the demo project's private
# (NOVA_LITE_FIXED_RANGE) and router1 joining them, with IPv4 and/or IPv6
# subnets per NOVA_LITE_IP_VERSION (4, 6 or 4+6, devstack's IP_VERSION).
NOVA_LITE_DEFAULT_NETWORKS=${NOVA_LITE_DEFAULT_NETWORKS:-True}
NOVA_LITE_IP_VERSION=${NOVA_LITE_IP_VERSION:-4+6}
NOVA_LITE_FIXED_RANGE=${NOVA_LITE_FIXED_RANGE:-10.0.0.0/26}
NOVA_LITE_FLOATING_RANGE=${NOVA_LITE_FLOATING_RANGE:-172.24.4.0/24}
NOVA_LITE_PUBLIC_NETWORK_GATEWAY=${NOVA_LITE_PUBLIC_NETWORK_GATEWAY:-172.24.4.1}
NOVA_LITE_DATABASE=${NOVA_LITE_DATABASE:-sqlite}
NOVA_LITE_STATE_DIR=${NOVA_LITE_STATE_DIR:-$HOME/.nova-lite/lab}
NOVA_LITE_API_PORT=${NOVA_LITE_API_PORT:-8774}
NOVA_LITE_PLACEMENT_PORT=${NOVA_LITE_PLACEMENT_PORT:-8778}
# With NOVA_LITE_KEYSTONE=True: Keystone's port, the password of the
# admin, nova_lite (service) and demo users, the pip requirement it is
# installed from, and its virtualenv (default: next to the nova_lite one,
# <venv>-keystone).
NOVA_LITE_KEYSTONE_PORT=${NOVA_LITE_KEYSTONE_PORT:-5000}
NOVA_LITE_KEYSTONE_PASSWORD=${NOVA_LITE_KEYSTONE_PASSWORD:-nova-lite}
NOVA_LITE_KEYSTONE_PIP=${NOVA_LITE_KEYSTONE_PIP:-keystone}
INSTALL_SERVICES=${INSTALL_SERVICES:-auto}
# Fault tolerance of the lab (doc/operators.md, "Faults"): seconds after
# which a build still in BUILD is put in ERROR and its claim freed
# ([compute] instance_build_timeout; nova_lite's default is 1800), and
# whether RPC queues are RabbitMQ quorum queues (durable, replicated;
# RabbitMQ >= 3.8, Debian 12 ships 3.10.8) so that casts survive a broker
# crash. Switching the queue type of an existing lab needs ./unstack.sh
# --purge first (a queue cannot change type).
NOVA_LITE_BUILD_TIMEOUT=${NOVA_LITE_BUILD_TIMEOUT:-300}
NOVA_LITE_RABBIT_QUORUM=${NOVA_LITE_RABBIT_QUORUM:-True}
NOVA_LITE_RABBIT_HEARTBEAT=${NOVA_LITE_RABBIT_HEARTBEAT:-30}
# Nova's notifications ([notifications] notification_format: versioned,
# unversioned, both or none), sent on the API bus (the lab's first vhost)
# whatever the sender's cell, to the topics versioned_notifications
# (versioned) and notifications (unversioned); `nova-lite-manage
# notifications listen` prints them. A queue nobody reads keeps at most
# NOVA_LITE_NOTIFICATION_QUEUE_MAX messages (a RabbitMQ max-length policy
# on the API vhost drops the oldest; 0: no limit).
NOVA_LITE_NOTIFICATIONS=${NOVA_LITE_NOTIFICATIONS:-versioned}
NOVA_LITE_NOTIFICATION_QUEUE_MAX=${NOVA_LITE_NOTIFICATION_QUEUE_MAX:-10000}
# Database connections each cell conductor keeps open ([database]
# max_pool_size of its cell's file; oslo.db's default is 5).
NOVA_LITE_CELL_DB_POOL=${NOVA_LITE_CELL_DB_POOL:-20}
# Prefix of the lab's RabbitMQ vhosts and MySQL databases, so that several
# labs (or a lab and the tests) can share one RabbitMQ and one MariaDB.
NOVA_LITE_NAME=${NOVA_LITE_NAME:-nova_lite}

# Passwords of a lab beyond loopback: the lab's own RabbitMQ user, its own
# MariaDB user, and the API users (admin, nova_lite, demo) of http_basic or
# Keystone. The controller generates the ones not set and keeps them in
# $NOVA_LITE_STATE_DIR/passwords (mode 600); every other node must be given
# the same ones (local.conf), as with devstack.
NL_PASSWORDS=$NOVA_LITE_STATE_DIR/passwords
NL_PASSWORD_VARS="NOVA_LITE_RABBIT_PASSWORD NOVA_LITE_DATABASE_PASSWORD NOVA_LITE_ADMIN_PASSWORD"
if [ -f "$NL_PASSWORDS" ]; then
    for _var in $NL_PASSWORD_VARS; do
        [ -n "${!_var:-}" ] || eval "$(grep "^$_var=" "$NL_PASSWORDS")"
    done
fi
NL_GENERATED_PASSWORDS=""
if nl_beyond_loopback && nl_is_controller; then
    for _var in $NL_PASSWORD_VARS; do
        if [ -z "${!_var:-}" ]; then
            printf -v "$_var" '%s' "$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
            NL_GENERATED_PASSWORDS="$NL_GENERATED_PASSWORDS $_var"
        fi
    done
fi

# Where the lab's bus and databases are. On loopback: the machine's guest
# user and password-less root, as always. Beyond it: the lab's own users
# (named $NOVA_LITE_NAME) with the passwords above, on the controller.
if nl_beyond_loopback; then
    NOVA_LITE_RABBIT_URL=${NOVA_LITE_RABBIT_URL:-rabbit://$NOVA_LITE_NAME:${NOVA_LITE_RABBIT_PASSWORD:-}@$NL_SERVICE_URL_HOST:${NL_RABBIT_PORT:-5672}/}
    NOVA_LITE_MYSQL_URL=${NOVA_LITE_MYSQL_URL:-mysql+pymysql://$NOVA_LITE_NAME:${NOVA_LITE_DATABASE_PASSWORD:-}@$NL_SERVICE_URL_HOST:${NL_MYSQL_PORT:-3306}}
    NOVA_LITE_KEYSTONE_PASSWORD=${NOVA_LITE_KEYSTONE_PASSWORD:-${NOVA_LITE_ADMIN_PASSWORD:-}}
else
    NOVA_LITE_RABBIT_URL=${NOVA_LITE_RABBIT_URL:-rabbit://guest:guest@127.0.0.1:5672/}
    NOVA_LITE_MYSQL_URL=${NOVA_LITE_MYSQL_URL:-mysql+pymysql://root@127.0.0.1:3306}
fi
# The cell node's bus and database (NOVA_LITE_CELL_HOST), with the lab's
# users beyond loopback as above.
NL_CELL_URL_HOST=$(_nl_url_host "$NOVA_LITE_CELL_HOST")
if nl_beyond_loopback; then
    NL_CELL_RABBIT_URL=rabbit://$NOVA_LITE_NAME:${NOVA_LITE_RABBIT_PASSWORD:-}@$NL_CELL_URL_HOST:$NOVA_LITE_CELL_RABBIT_PORT/
    NL_CELL_MYSQL_URL=mysql+pymysql://$NOVA_LITE_NAME:${NOVA_LITE_DATABASE_PASSWORD:-}@$NL_CELL_URL_HOST:$NOVA_LITE_CELL_MYSQL_PORT
else
    NL_CELL_RABBIT_URL=rabbit://guest:guest@$NL_CELL_URL_HOST:$NOVA_LITE_CELL_RABBIT_PORT/
    NL_CELL_MYSQL_URL=mysql+pymysql://root@$NL_CELL_URL_HOST:$NOVA_LITE_CELL_MYSQL_PORT
fi
# TLS to the database: PyMySQL's default ("preferred") builds a TLS
# context, loading the system CA bundle, for every new connection (~24 ms
# of CPU each, measured), even when the server has no TLS; a pool's
# overflow connections pay it again in every burst. On loopback there is
# nothing to protect, so the lab turns it off; beyond loopback it stays
# PyMySQL's default. NOVA_LITE_DATABASE_TLS=off|preferred.
if nl_beyond_loopback; then
    NOVA_LITE_DATABASE_TLS=${NOVA_LITE_DATABASE_TLS:-preferred}
else
    NOVA_LITE_DATABASE_TLS=${NOVA_LITE_DATABASE_TLS:-off}
fi
# The controller's administrator connection to its MariaDB (creates the
# databases and the lab's user): root on the controller itself.
NOVA_LITE_MYSQL_ADMIN_URL=${NOVA_LITE_MYSQL_ADMIN_URL:-mysql+pymysql://root@127.0.0.1:${NL_MYSQL_PORT:-3306}}

# How both APIs authenticate: keystone with NOVA_LITE_KEYSTONE=True;
# otherwise noauth2 on loopback and http_basic beyond it (noauth2 trusts
# any token, and the token admin is a cloud admin: stack.sh refuses it
# beyond loopback).
if [[ $NOVA_LITE_KEYSTONE =~ ^(True|true|1|yes)$ ]]; then
    NOVA_LITE_AUTH=${NOVA_LITE_AUTH:-keystone}
elif nl_beyond_loopback; then
    NOVA_LITE_AUTH=${NOVA_LITE_AUTH:-http_basic}
else
    NOVA_LITE_AUTH=${NOVA_LITE_AUTH:-noauth2}
fi

STATE=$NOVA_LITE_STATE_DIR
# NOVA_LITE_VENV: use an existing virtualenv that has nova_lite installed
# (tests, developers) instead of making one under the state directory.
VENV=${NOVA_LITE_VENV:-$STATE/venv}
# NOVA_LITE_PYTHON: the interpreter the lab's virtualenvs are made with.
# Empty: the distribution's python3 when it is 3.11 or newer and can make
# a virtualenv (as devstack uses the system's), else python3 on PATH
# (nl_python, devstack/lib/lab.sh).
NOVA_LITE_PYTHON=${NOVA_LITE_PYTHON:-}
# NOVA_LITE_USE_UV: auto (uv makes and fills the virtualenv when it can be
# had, else pip) or False (pip); NOVA_LITE_UV_HOME: where stack.sh
# installs uv when it is not on PATH (nl_find_uv, devstack/lib/lab.sh).
NOVA_LITE_USE_UV=${NOVA_LITE_USE_UV:-auto}
NOVA_LITE_UV_HOME=${NOVA_LITE_UV_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/nova-lite/uv}
ETC=$STATE/etc
PIDS=$STATE/pids
LOGS=$STATE/logs
DBDIR=$STATE/db

# The vhost and database of a cell node's cell (on its own servers).
_nl_cell_node_name() { nl_is_cell_node && [ "$1" = "${NOVA_LITE_NAME}_$NOVA_LITE_CELL_NAME" ]; }

# nl_rabbit_url VHOST: the bus URL of one vhost under NOVA_LITE_RABBIT_URL
# (a cell node's cell: under its own bus).
nl_rabbit_url() {
    if _nl_cell_node_name "$1"; then echo "${NL_CELL_RABBIT_URL%/}/$1"; return; fi
    echo "${NOVA_LITE_RABBIT_URL%/}/$1"
}

# nl_db_url NAME: the database URL of one database of the lab (a cell
# node's cell: on its own server).
nl_db_url() {
    if [ "$NOVA_LITE_DATABASE" = mysql ]; then
        local server=$NOVA_LITE_MYSQL_URL
        _nl_cell_node_name "$1" && server=$NL_CELL_MYSQL_URL
        case $NOVA_LITE_DATABASE_TLS in
            off) echo "$server/$1?charset=utf8mb4&ssl_disabled=True" ;;
            *) echo "$server/$1?charset=utf8mb4" ;;
        esac
    else
        echo "sqlite:///$DBDIR/$1.sqlite"
    fi
}

# Settings that say which lab this is; stack.sh records them (see above).
NL_RECORDED_SETTINGS="NOVA_LITE_NAME NOVA_LITE_DATABASE NOVA_LITE_MYSQL_URL
NOVA_LITE_RABBIT_URL NOVA_LITE_API_PORT NOVA_LITE_PLACEMENT_PORT
NOVA_LITE_CELLS NOVA_LITE_COMPUTES_PER_CELL NOVA_LITE_NODES_PER_COMPUTE
NOVA_LITE_KEYSTONE NOVA_LITE_KEYSTONE_PORT NOVA_LITE_KEYSTONE_VENV
NOVA_LITE_HOST_IP NOVA_LITE_SERVICE_HOST NOVA_LITE_ENABLED_SERVICES
NOVA_LITE_COMPUTE_PREFIX NOVA_LITE_MYSQL_ADMIN_URL NOVA_LITE_AUTH
NOVA_LITE_DATABASE_TLS NOVA_LITE_CELL_NAME NOVA_LITE_CELL_HOST
NOVA_LITE_CELL_RABBIT_PORT NOVA_LITE_CELL_MYSQL_PORT"

# nl_record_settings: write the lab's identity into $NL_RECORD.
nl_record_settings() {
    local var
    {
        echo "# Written by devstack/stack.sh: the settings of the lab in this"
        echo "# directory, read by devstack/unstack.sh (they win there)."
        for var in $NL_RECORDED_SETTINGS; do
            [ -n "${!var:-}" ] && printf '%s=%q\n' "$var" "${!var}"
        done
        printf 'NOVA_LITE_VENV=%q\n' "$VENV"
    } > "$NL_RECORD.new" && chmod 600 "$NL_RECORD.new" && mv "$NL_RECORD.new" "$NL_RECORD"
    # Passwords of a lab beyond loopback, kept for the next run.
    if nl_beyond_loopback; then
        ( umask 077
          for var in $NL_PASSWORD_VARS; do
              [ -n "${!var:-}" ] && printf '%s=%q\n' "$var" "${!var}"
          done > "$NL_PASSWORDS" )
    fi
}
