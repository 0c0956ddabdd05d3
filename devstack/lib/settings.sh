# Lab settings: defaults, then devstack/local.conf, then the environment.

_nl_env_snapshot=$(env | grep -E '^(NOVA_LITE_|INSTALL_SERVICES=)' || true)
[ -f "$NL_DEVSTACK_DIR/local.conf" ] && . "$NL_DEVSTACK_DIR/local.conf"
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

NOVA_LITE_CELLS=${NOVA_LITE_CELLS:-2}
NOVA_LITE_COMPUTES_PER_CELL=${NOVA_LITE_COMPUTES_PER_CELL:-1}
NOVA_LITE_NODES_PER_COMPUTE=${NOVA_LITE_NODES_PER_COMPUTE:-10}
NOVA_LITE_DATABASE=${NOVA_LITE_DATABASE:-sqlite}
NOVA_LITE_RABBIT_URL=${NOVA_LITE_RABBIT_URL:-rabbit://guest:guest@127.0.0.1:5672/}
NOVA_LITE_STATE_DIR=${NOVA_LITE_STATE_DIR:-$HOME/.nova-lite/lab}
NOVA_LITE_API_PORT=${NOVA_LITE_API_PORT:-8774}
NOVA_LITE_PLACEMENT_PORT=${NOVA_LITE_PLACEMENT_PORT:-8778}
NOVA_LITE_KEYSTONE=${NOVA_LITE_KEYSTONE:-False}
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
# Database connections each cell conductor keeps open ([database]
# max_pool_size of its cell's file; oslo.db's default is 5).
NOVA_LITE_CELL_DB_POOL=${NOVA_LITE_CELL_DB_POOL:-20}
# Prefix of the lab's RabbitMQ vhosts and MySQL databases, so that several
# labs (or a lab and the tests) can share one RabbitMQ and one MariaDB.
NOVA_LITE_NAME=${NOVA_LITE_NAME:-nova_lite}
NOVA_LITE_MYSQL_URL=${NOVA_LITE_MYSQL_URL:-mysql+pymysql://root@127.0.0.1:3306}

STATE=$NOVA_LITE_STATE_DIR
# NOVA_LITE_VENV: use an existing virtualenv that has nova_lite installed
# (tests, developers) instead of making one under the state directory.
VENV=${NOVA_LITE_VENV:-$STATE/venv}
ETC=$STATE/etc
PIDS=$STATE/pids
LOGS=$STATE/logs
DBDIR=$STATE/db

# nl_rabbit_url VHOST: the bus URL of one vhost under NOVA_LITE_RABBIT_URL.
nl_rabbit_url() { echo "${NOVA_LITE_RABBIT_URL%/}/$1"; }

# nl_db_url NAME: the database URL of one database of the lab.
nl_db_url() {
    if [ "$NOVA_LITE_DATABASE" = mysql ]; then
        echo "$NOVA_LITE_MYSQL_URL/$1?charset=utf8mb4"
    else
        echo "sqlite:///$DBDIR/$1.sqlite"
    fi
}

# Settings that say which lab this is; stack.sh records them (see above).
NL_RECORDED_SETTINGS="NOVA_LITE_NAME NOVA_LITE_DATABASE NOVA_LITE_MYSQL_URL
NOVA_LITE_RABBIT_URL NOVA_LITE_API_PORT NOVA_LITE_PLACEMENT_PORT
NOVA_LITE_CELLS NOVA_LITE_COMPUTES_PER_CELL NOVA_LITE_NODES_PER_COMPUTE
NOVA_LITE_KEYSTONE NOVA_LITE_KEYSTONE_PORT NOVA_LITE_KEYSTONE_VENV"

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
    } > "$NL_RECORD.new" && mv "$NL_RECORD.new" "$NL_RECORD"
}
