# Finding, starting and installing RabbitMQ and MariaDB.
#
# Sourced by devstack/stack.sh and .ci/run. Every function says on stdout
# what it found and what it did. Start commands work without systemd
# (containers, CI machines): see doc/operators.md.

NL_RABBIT_HOST=${NL_RABBIT_HOST:-127.0.0.1}
NL_RABBIT_PORT=${NL_RABBIT_PORT:-5672}
NL_MYSQL_HOST=${NL_MYSQL_HOST:-127.0.0.1}
NL_MYSQL_PORT=${NL_MYSQL_PORT:-3306}

nl_say() { echo "[nova-lite] $*"; }

nl_port_open() {
    # nl_port_open HOST PORT: true when something accepts TCP connections.
    (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

nl_wait_for() {
    # nl_wait_for SECONDS DESCRIPTION COMMAND...: poll until COMMAND succeeds.
    local timeout=$1 what=$2; shift 2
    local waited=0
    until "$@" >/dev/null 2>&1; do
        if [ "$waited" -ge "$timeout" ]; then
            nl_say "ERROR: $what did not come up within ${timeout}s"
            return 1
        fi
        sleep 1; waited=$((waited + 1))
    done
}

nl_can_install() {
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1
}

nl_apt_install() {
    nl_say "installing $* from the distribution (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

nl_ensure_chromium() {
    # Headless Chromium and its WebDriver, for the dashboard's browser test.
    if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
        nl_say "Chromium and chromedriver found (left as they are)"
        return 0
    fi
    if [ "${INSTALL_SERVICES:-auto}" = "False" ] || ! nl_can_install; then
        nl_say "ERROR: chromium and chromium-driver are not installed"
        return 1
    fi
    nl_apt_install chromium chromium-driver || return 1
    nl_say "Chromium installed"
}

nl_ensure_rabbitmq() {
    if nl_port_open "$NL_RABBIT_HOST" "$NL_RABBIT_PORT"; then
        nl_say "RabbitMQ answers on $NL_RABBIT_HOST:$NL_RABBIT_PORT (left as it is)"
        return 0
    fi
    if ! command -v rabbitmq-server >/dev/null 2>&1; then
        if [ "${INSTALL_SERVICES:-auto}" = "False" ] || ! nl_can_install; then
            nl_say "ERROR: RabbitMQ is not running and not installed; install rabbitmq-server or set NOVA_LITE_RABBIT_URL"
            return 1
        fi
        nl_apt_install rabbitmq-server || return 1
    fi
    nl_say "starting RabbitMQ (rabbitmq-server -detached)"
    rabbitmq-server -detached >/dev/null 2>&1
    nl_wait_for 90 RabbitMQ nl_port_open "$NL_RABBIT_HOST" "$NL_RABBIT_PORT" || return 1
    nl_wait_for 60 "RabbitMQ status" rabbitmqctl -q status || return 1
    nl_say "RabbitMQ started"
}

nl_ensure_mariadb() {
    if nl_port_open "$NL_MYSQL_HOST" "$NL_MYSQL_PORT"; then
        nl_say "MariaDB answers on $NL_MYSQL_HOST:$NL_MYSQL_PORT (left as it is)"
        return 0
    fi
    if [ ! -x /usr/sbin/mariadbd ] && [ ! -x /usr/sbin/mysqld ]; then
        if [ "${INSTALL_SERVICES:-auto}" = "False" ] || ! nl_can_install; then
            nl_say "ERROR: MariaDB is not running and not installed; install mariadb-server"
            return 1
        fi
        nl_apt_install mariadb-server || return 1
    fi
    local daemon=/usr/sbin/mariadbd
    [ -x "$daemon" ] || daemon=/usr/sbin/mysqld
    nl_say "starting MariaDB ($daemon --user=mysql)"
    mkdir -p /run/mysqld && chown mysql: /run/mysqld 2>/dev/null
    start-stop-daemon --start --oknodo --background --exec "$daemon" -- --user=mysql
    nl_wait_for 60 MariaDB nl_port_open "$NL_MYSQL_HOST" "$NL_MYSQL_PORT" || return 1
    nl_say "MariaDB started"
}

nl_install_service_packages() {
    # The RabbitMQ and MariaDB packages, installed when their binaries are
    # missing; nothing is started. The fault suite and the big fuzz run
    # (tests/faults, tests/fuzz) run private servers from these binaries
    # on their own ports and data directories. With the argument "galera":
    # also MariaDB's Galera provider (galera-4) and rsync (its state
    # transfers), for the fault suite's private Galera cluster.
    local missing=""
    [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || missing="rabbitmq-server"
    if [ ! -x /usr/sbin/mariadbd ] && [ ! -x /usr/sbin/mysqld ]; then
        missing="$missing mariadb-server"
    fi
    if [ "${1:-}" = "galera" ]; then
        [ -e /usr/lib/galera/libgalera_smm.so ] || missing="$missing galera-4"
        command -v rsync >/dev/null 2>&1 || missing="$missing rsync"
    fi
    if [ -z "$missing" ]; then
        nl_say "RabbitMQ and MariaDB binaries are installed${1:+ (and galera-4, rsync)}"
        return 0
    fi
    if [ "${INSTALL_SERVICES:-auto}" = "False" ] || ! nl_can_install; then
        nl_say "ERROR: missing $missing; install it (as root, apt-get) or set INSTALL_SERVICES=True as root"
        return 1
    fi
    # shellcheck disable=SC2086 # one word per package
    nl_apt_install $missing
}
