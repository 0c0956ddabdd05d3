# A cell node (doc/multinode.md, "Cell nodes"): a node that serves one
# cell (NOVA_LITE_CELL_NAME) and, with the services rabbit and mysql, runs
# that cell's own RabbitMQ and MariaDB (devstack/lib/cell_servers.py),
# creates the cell's vhost, database and users on them, syncs the cell's
# schema and maps the cell on the controller with this node's URLs.

NL_CELL_SERVERS=$STATE/servers

# Roles of a cell node, checked with the others before anything is done.
nl_check_cell_node_roles() {
    if ! nl_is_cell_node; then
        if nl_enabled rabbit || nl_enabled mysql; then
            nl_say "ERROR: the services rabbit and mysql are a cell node's own servers: set NOVA_LITE_CELL_NAME (the controller uses the machine's RabbitMQ and MariaDB)"
            return 1
        fi
        return 0
    fi
    if [[ ! $NOVA_LITE_CELL_NAME =~ ^[A-Za-z0-9_]+$ ]] || [ "$NOVA_LITE_CELL_NAME" = cell0 ]; then
        nl_say "ERROR: NOVA_LITE_CELL_NAME=$NOVA_LITE_CELL_NAME: letters, digits and _ only, not cell0"
        return 1
    fi
    if nl_is_controller; then
        nl_say "ERROR: NOVA_LITE_CELL_NAME is for a cell node; the controller (api) serves cells 1..NOVA_LITE_CELLS"
        return 1
    fi
    if { nl_runs_cell_rabbit || nl_runs_cell_mysql; } && [ "$NOVA_LITE_CELL_HOST" != "$NOVA_LITE_HOST_IP" ]; then
        nl_say "ERROR: this node runs its cell's servers: NOVA_LITE_CELL_HOST must be its own address ($NOVA_LITE_HOST_IP)"
        return 1
    fi
    nl_say "cell node of $NOVA_LITE_CELL_NAME: bus $NL_CELL_URL_HOST:$NOVA_LITE_CELL_RABBIT_PORT, database $NL_CELL_URL_HOST:$NOVA_LITE_CELL_MYSQL_PORT$(nl_runs_cell_rabbit && echo ' (own RabbitMQ)')$(nl_runs_cell_mysql && echo ' (own MariaDB)')"
}

# _nl_cell_server ACTION KIND [-- ARGS]: cell_servers.py on this node's
# server of KIND (rabbit or mysql).
_nl_cell_server() {
    local action=$1 kind=$2 port; shift 2
    port=$NOVA_LITE_CELL_RABBIT_PORT
    [ "$kind" = mysql ] && port=$NOVA_LITE_CELL_MYSQL_PORT
    python3 "$NL_DEVSTACK_DIR/lib/cell_servers.py" "$action" "$kind" \
        "$NL_CELL_SERVERS" "$NOVA_LITE_HOST_IP" "$port" "$PIDS/cell-$kind.pid" \
        "${NOVA_LITE_NAME}_$NOVA_LITE_CELL_NAME" "$@"
}

# Start this node's own servers (both at once: each takes seconds).
nl_cell_servers_start() {
    local pids=() pid rc=0
    mkdir -p "$NL_CELL_SERVERS"
    if nl_runs_cell_rabbit; then
        [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || {
            nl_say "ERROR: rabbitmq-server is not installed (apt-get install rabbitmq-server; nothing of it is started but this node's own)"; return 1; }
        _nl_cell_server start rabbit & pids+=($!)
    fi
    if nl_runs_cell_mysql; then
        [ -x /usr/sbin/mariadbd ] || [ -x /usr/sbin/mysqld ] || {
            nl_say "ERROR: mariadbd is not installed (apt-get install mariadb-server)"; return 1; }
        _nl_cell_server start mysql & pids+=($!)
    fi
    for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
    return $rc
}

# Stop them (unstack.sh), after every other process of the node.
nl_cell_servers_stop() {
    local kind
    for kind in rabbit mysql; do
        [ -f "$PIDS/cell-$kind.pid" ] && _nl_cell_server stop "$kind"
    done
    return 0
}

# The cell's vhost on this node's RabbitMQ, and the lab's user on it.
nl_cell_vhost() {
    nl_runs_cell_rabbit || return 0
    local vhost=${NOVA_LITE_NAME}_$NOVA_LITE_CELL_NAME user
    user=$(NOVA_LITE_RABBIT_URL=$NL_CELL_RABBIT_URL _nl_rabbit_user)
    if [ "$user" != guest ]; then
        if _nl_cell_server rabbitmqctl rabbit -- -q list_users | awk '{print $1}' | grep -qx "$user"; then
            _nl_cell_server rabbitmqctl rabbit -- -q change_password "$user" "$NOVA_LITE_RABBIT_PASSWORD" >/dev/null || return 1
        else
            _nl_cell_server rabbitmqctl rabbit -- -q add_user "$user" "$NOVA_LITE_RABBIT_PASSWORD" >/dev/null || return 1
        fi
    fi
    if ! _nl_cell_server rabbitmqctl rabbit -- -q list_vhosts | grep -qx "$vhost"; then
        _nl_cell_server rabbitmqctl rabbit -- -q add_vhost "$vhost" >/dev/null || return 1
    fi
    _nl_cell_server rabbitmqctl rabbit -- -q set_permissions -p "$vhost" "$user" '.*' '.*' '.*' >/dev/null || return 1
    nl_say "vhost $vhost on this node's RabbitMQ (user $user)"
}

# The cell's database on this node's MariaDB, and the lab's user on it
# (root through the server's own socket).
nl_cell_database() {
    nl_runs_cell_mysql || return 0
    "$VENV/bin/python" - "$NL_CELL_SERVERS/mysql/mysqld.sock" "$NL_CELL_MYSQL_URL" \
        "${NOVA_LITE_NAME}_$NOVA_LITE_CELL_NAME" <<'PY'
import sys
import sqlalchemy
from sqlalchemy.engine import make_url
socket, lab, name = sys.argv[1], make_url(sys.argv[2]), sys.argv[3]
engine = sqlalchemy.create_engine(
    'mysql+pymysql://root@localhost/?unix_socket=%s' % socket)
with engine.connect() as conn:
    conn.exec_driver_sql('CREATE DATABASE IF NOT EXISTS `%s` '
                         'CHARACTER SET utf8mb4' % name)
    if lab.username and lab.username != 'root':
        who = (lab.username, lab.password)
        conn.exec_driver_sql(
            "CREATE USER IF NOT EXISTS %s@'%%' IDENTIFIED BY %s", who)
        conn.exec_driver_sql("ALTER USER %s@'%%' IDENTIFIED BY %s", who)
        conn.exec_driver_sql(
            "GRANT ALL PRIVILEGES ON `" + name + "`.* TO %s@'%%'",
            (lab.username,))
    conn.commit()
print("[nova-lite] database %s on this node's MariaDB (user %s)"
      % (name, lab.username))
PY
}

# The cell's schema, and its mapping in the controller's API database
# with this node's URLs (kept when it is there with them; another cell of
# that name is an error).
nl_cell_sync_and_map() {
    local vhost=${NOVA_LITE_NAME}_$NOVA_LITE_CELL_NAME transport db found
    transport=$(nl_rabbit_url "$vhost")
    db=$(nl_db_url "$vhost")
    nl_manage db sync --database_connection "$db" || return 1
    found=$("$VENV/bin/python" - "$(nl_db_url "${NOVA_LITE_NAME}_api")" \
        "$NOVA_LITE_CELL_NAME" "$transport" "$db" <<'PY'
import sys
import sqlalchemy
api, name, transport, db = sys.argv[1:]
engine = sqlalchemy.create_engine(api)
with engine.connect() as conn:
    rows = conn.exec_driver_sql(
        'SELECT transport_url, database_connection FROM cell_mappings '
        'WHERE name = %s', (name,)).all()
engine.dispose()
print('none' if not rows else
      'same' if (transport, db) in [tuple(r) for r in rows] else 'other')
PY
    ) || return 1
    case $found in
        same) nl_say "cell $NOVA_LITE_CELL_NAME is mapped on the controller with this node's URLs" ;;
        none) nl_manage cell_v2 create_cell --name "$NOVA_LITE_CELL_NAME" \
                  --transport-url "$transport" --database_connection "$db" || return 1
              nl_say "mapped cell $NOVA_LITE_CELL_NAME on the controller (bus and database of $NOVA_LITE_CELL_HOST)" ;;
        *) nl_say "ERROR: a cell named $NOVA_LITE_CELL_NAME is mapped on the controller with other URLs: choose another NOVA_LITE_CELL_NAME, or change that mapping (nova-lite-manage cell_v2 update_cell)"
           return 1 ;;
    esac
}

# A node of a cell whose servers run elsewhere: they must answer.
nl_check_cell_reachable() {
    nl_is_cell_node || return 0
    nl_runs_cell_rabbit || {
        nl_wait_for 60 "RabbitMQ of $NOVA_LITE_CELL_NAME at $NOVA_LITE_CELL_HOST:$NOVA_LITE_CELL_RABBIT_PORT" \
            nl_port_open "$NOVA_LITE_CELL_HOST" "$NOVA_LITE_CELL_RABBIT_PORT" || return 1; }
    nl_runs_cell_mysql || {
        nl_wait_for 60 "MariaDB of $NOVA_LITE_CELL_NAME at $NOVA_LITE_CELL_HOST:$NOVA_LITE_CELL_MYSQL_PORT" \
            nl_port_open "$NOVA_LITE_CELL_HOST" "$NOVA_LITE_CELL_MYSQL_PORT" || return 1; }
    nl_say "the bus and database of $NOVA_LITE_CELL_NAME answer at $NOVA_LITE_CELL_HOST"
}
