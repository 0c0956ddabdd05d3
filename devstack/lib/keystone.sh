# Keystone for the lab (NOVA_LITE_KEYSTONE=True): install, set up, run.
#
# Keystone comes from PyPI into its own virtualenv (its pins are not
# nova_lite's business), keeps its database where the lab keeps its own
# (the MySQL database ${NOVA_LITE_NAME}_keystone, created and dropped with
# the lab's, or an SQLite file under the state directory) and its fernet
# and credential keys under the state directory, and runs under gunicorn
# like the lab's APIs, with a pid file and a log as every lab process.
#
# On SQLite Keystone runs one request at a time (one worker, one thread):
# SQLite has one writer, and two concurrent token or user writes from
# parallel clients (Tempest's workers) answered 500 "database is locked".

# Next to the nova_lite virtualenv; kept by unstack.sh --purge like it.
KS_VENV=${NOVA_LITE_KEYSTONE_VENV:-${VENV%/}-keystone}
KS_STATE=$STATE/keystone
KS_ETC=$ETC/keystone
KS_URL=http://$NL_SERVICE_URL_HOST:$NOVA_LITE_KEYSTONE_PORT/v3
KS_REGION=RegionOne

# The lab authenticates with Keystone (on the controller).
nl_keystone_enabled() {
    case $NOVA_LITE_KEYSTONE in
        True|true|1|yes) return 0 ;;
    esac
    return 1
}

# This node runs Keystone.
nl_keystone_here() { nl_keystone_enabled && nl_enabled keystone; }

# Labs stacked at once share the virtualenv: one installs, the others
# wait for it (a lock next to the virtualenv).
nl_keystone_install() {
    mkdir -p "$(dirname "${KS_VENV%/}")"
    (
        flock 9 || exit 1
        _nl_keystone_install_locked
    ) 9>"${KS_VENV%/}.lock"
}

_nl_keystone_install_locked() {
    local want="$NOVA_LITE_KEYSTONE_PIP gunicorn pymysql"
    if [ -x "$KS_VENV/bin/keystone-manage" ] &&
            [ "$(cat "$KS_VENV/.nova-lite-installed" 2>/dev/null)" = "$want" ]; then
        nl_say "Keystone virtualenv $KS_VENV is up to date"
        return 0
    fi
    [ -x "$KS_VENV/bin/python" ] || nl_make_venv "$KS_VENV" || return 1
    nl_say "installing $want into $KS_VENV (pip)"
    "$KS_VENV/bin/pip" install -q $want >"$LOGS/keystone-pip.log" 2>&1 || {
        grep -v '^WARNING: Location' "$LOGS/keystone-pip.log" | tail -n 20
        return 1; }
    echo "$want" > "$KS_VENV/.nova-lite-installed"
    nl_say "installed $("$KS_VENV/bin/keystone-manage" --version 2>/dev/null | sed 's/^/keystone /')"
}

# The database of the lab's Keystone: next to the lab's own.
nl_keystone_db_url() {
    if [ "$NOVA_LITE_DATABASE" = mysql ]; then
        nl_db_url "${NOVA_LITE_NAME}_keystone"
    else
        # A writer waits up to 30 s for the lock rather than failing.
        echo "sqlite:///$KS_STATE/keystone.sqlite?timeout=30"
    fi
}

# Concurrent requests: one at a time on SQLite (see above).
nl_keystone_threads() {
    if [ "$NOVA_LITE_DATABASE" = mysql ]; then echo 4; else echo 1; fi
}

nl_keystone_write_config() {
    mkdir -p "$KS_ETC" "$KS_STATE"
    cat > "$KS_ETC/keystone.conf.new" <<CONF
# Written by devstack/stack.sh (NOVA_LITE_KEYSTONE=True).
[DEFAULT]
use_stderr = true

[database]
connection = $(nl_keystone_db_url)

[token]
provider = fernet

[fernet_tokens]
key_repository = $KS_STATE/fernet-keys

[credential]
key_repository = $KS_STATE/credential-keys

[identity]
# A lab: the cheapest bcrypt cost keeps password logins fast.
password_hash_rounds = 4
CONF
    mv "$KS_ETC/keystone.conf.new" "$KS_ETC/keystone.conf"
}

_nl_keystone_manage() {
    echo "+ keystone-manage $*" >> "$LOGS/keystone-manage.log"
    "$KS_VENV/bin/keystone-manage" --config-file "$KS_ETC/keystone.conf" \
        "$@" >> "$LOGS/keystone-manage.log" 2>&1
}

# Schema, keys and the bootstrap admin: once per state directory.
nl_keystone_bootstrap() {
    if [ -f "$KS_STATE/.bootstrapped" ]; then
        nl_say "Keystone database and keys exist ($KS_STATE)"
        return 0
    fi
    local user group
    user=$(id -un); group=$(id -gn)
    _nl_keystone_manage db_sync || return 1
    _nl_keystone_manage fernet_setup --keystone-user "$user" --keystone-group "$group" || return 1
    _nl_keystone_manage credential_setup --keystone-user "$user" --keystone-group "$group" || return 1
    _nl_keystone_manage bootstrap --bootstrap-password "$NOVA_LITE_KEYSTONE_PASSWORD" \
        --bootstrap-region-id "$KS_REGION" \
        --bootstrap-admin-url "$KS_URL" --bootstrap-internal-url "$KS_URL" \
        --bootstrap-public-url "$KS_URL" || return 1
    touch "$KS_STATE/.bootstrapped"
    nl_say "Keystone database synced, fernet and credential keys made, admin bootstrapped"
}

# gunicorn reads everything from a config file: Keystone parses the
# command line of the process it runs in, and would refuse gunicorn's.
nl_keystone_write_gunicorn_config() {
    cat > "$KS_ETC/gunicorn.conf.py" <<PY
# Written by devstack/stack.sh: gunicorn settings of the lab's Keystone.
import sys

wsgi_app = 'keystone.wsgi.api:application'
bind = '$(_nl_url_host "$NOVA_LITE_HOST_IP"):$NOVA_LITE_KEYSTONE_PORT'
workers = 1
worker_class = 'gthread'
threads = $(nl_keystone_threads)
proc_name = 'keystone'
# Longer than a polling client's pause (gunicorn's 2 s races a 2 s poll),
# as nova-lite-api and -placement do ([wsgi] keep_alive_timeout).
keepalive = 30
accesslog = '-'
errorlog = '-'
control_socket_disable = True
raw_env = ['OS_KEYSTONE_CONFIG_DIR=$KS_ETC']


def post_fork(server, worker):
    # Keystone's oslo.config parses sys.argv when the app loads.
    del sys.argv[1:]
PY
}

nl_keystone_start() {
    nl_keystone_write_gunicorn_config
    nl_start keystone "$KS_VENV/bin/gunicorn" -c "$KS_ETC/gunicorn.conf.py"
    nl_wait_http keystone "http://$(_nl_url_host "$NOVA_LITE_HOST_IP"):$NOVA_LITE_KEYSTONE_PORT/v3" 60
}

nl_keystone_register() {
    "$KS_VENV/bin/python" "$NL_DEVSTACK_DIR/lib/keystone_register.py" \
        "$KS_URL" "$NOVA_LITE_KEYSTONE_PASSWORD" "$KS_REGION" \
        "http://$NL_SERVICE_URL_HOST:$NOVA_LITE_API_PORT/v2.1" \
        "http://$NL_SERVICE_URL_HOST:$NOVA_LITE_API_PORT/image" \
        "http://$NL_SERVICE_URL_HOST:$NOVA_LITE_PLACEMENT_PORT" \
        "http://$NL_SERVICE_URL_HOST:$NOVA_LITE_API_PORT/network" \
        2>> "$LOGS/keystone-manage.log" || {
        nl_say "ERROR: registering in Keystone failed; see $LOGS/keystone-manage.log"
        tail -n 5 "$LOGS/keystone-manage.log"; return 1; }
}

# [placement] options of every lab service: a Keystone password login of
# the nova_lite service user.
nl_keystone_placement_auth() {
    cat <<CONF
auth_type = password
auth_url = $KS_URL
username = nova_lite
password = $NOVA_LITE_KEYSTONE_PASSWORD
project_name = service
user_domain_name = Default
project_domain_name = Default
CONF
}

# Options of the API-level configuration (both APIs read it).
nl_keystone_api_options() {
    cat <<CONF

[keystone_authtoken]
www_authenticate_uri = $KS_URL
auth_url = $KS_URL
auth_type = password
username = nova_lite
password = $NOVA_LITE_KEYSTONE_PASSWORD
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = $KS_REGION
CONF
}

_nl_keystone_cloud() {  # _nl_keystone_cloud NAME USER PROJECT
    cat <<YAML
  $1:
    auth:
      auth_url: $KS_URL
      username: $2
      password: $NOVA_LITE_KEYSTONE_PASSWORD
      project_name: $3
      user_domain_name: Default
      project_domain_name: Default
    region_name: $KS_REGION
    identity_api_version: "3"
YAML
}

nl_keystone_clouds_yaml() {
    cat <<YAML
# Written by devstack/stack.sh (NOVA_LITE_KEYSTONE=True): password logins
# at $KS_URL; compute, image and placement come from the catalog. Use:
#   export OS_CLIENT_CONFIG_FILE=$STATE/clouds.yaml
#   openstack --os-cloud nova-lite server list
clouds:
YAML
    _nl_keystone_cloud nova-lite demo demo
    _nl_keystone_cloud nova-lite-admin admin admin
    _nl_keystone_cloud nova-lite-placement admin admin
}

nl_keystone_purge() {
    rm -rf "$KS_STATE" "$KS_ETC"
}
