# Starting and stopping lab processes with pid files and logs.

# nl_start NAME COMMAND...: start COMMAND in its own session, log to
# $LOGS/NAME.log, record the pid in $PIDS/NAME.pid. A live pid is kept.
nl_start() {
    local name=$1; shift
    local pidfile=$PIDS/$name.pid
    if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        nl_say "$name already running (pid $(cat "$pidfile"))"
        return 0
    fi
    setsid "$@" >>"$LOGS/$name.log" 2>&1 < /dev/null &
    echo $! > "$pidfile"
    nl_say "started $name (pid $!, log $LOGS/$name.log)"
}

# nl_check_alive NAME: fail with the log's tail when NAME's process died.
nl_check_alive() {
    local name=$1 pidfile=$PIDS/$1.pid
    if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        return 0
    fi
    nl_say "ERROR: $name is not running; last lines of $LOGS/$name.log:"
    tail -n 20 "$LOGS/$name.log" 2>/dev/null | sed 's/^/    /'
    return 1
}

# nl_stop NAME: TERM, then KILL after NL_STOP_TIMEOUT seconds.
nl_stop() {
    local name=$1 pidfile=$PIDS/$1.pid timeout=${NL_STOP_TIMEOUT:-30}
    [ -f "$pidfile" ] || return 0
    local pid; pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
        local waited=0
        while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$((timeout * 10))" ]; do
            sleep 0.1; waited=$((waited + 1))
        done
        if kill -0 "$pid" 2>/dev/null; then
            nl_say "$name did not stop within ${timeout}s; killing it"
            kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
        fi
        # Workers of a pre-fork server are in the same process group.
        kill -KILL -- "-$pid" 2>/dev/null
        nl_say "stopped $name (pid $pid)"
    fi
    rm -f "$pidfile"
}

# nl_wait_http URL SECONDS: wait until URL answers with any HTTP status.
nl_wait_http() {
    local url=$1 timeout=${2:-60}
    nl_wait_for "$timeout" "$url" "$VENV/bin/python" -c \
        "import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except urllib.error.HTTPError:
    pass" "$url"
}
