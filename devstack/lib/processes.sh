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

# nl_stop NAME...: TERM every named process (and its process group), wait
# for all of them together, KILL what is left after NL_STOP_TIMEOUT seconds.
# A process a chaos scenario froze (SIGSTOP) is continued first, so that
# it takes the TERM as any other.
nl_stop() {
    local timeout=${NL_STOP_TIMEOUT:-30} name pid
    local -A pids=()
    for name in "$@"; do
        [ -f "$PIDS/$name.pid" ] || continue
        pid=$(cat "$PIDS/$name.pid")
        if kill -0 "$pid" 2>/dev/null; then
            kill -CONT -- "-$pid" 2>/dev/null || kill -CONT "$pid" 2>/dev/null
            kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
            pids[$name]=$pid
        else
            rm -f "$PIDS/$name.pid"
        fi
    done
    local waited=0
    while [ ${#pids[@]} -gt 0 ]; do
        for name in "${!pids[@]}"; do
            pid=${pids[$name]}
            if ! kill -0 "$pid" 2>/dev/null; then
                # Workers of a pre-fork server share the process group.
                kill -KILL -- "-$pid" 2>/dev/null
                nl_say "stopped $name (pid $pid)"
                rm -f "$PIDS/$name.pid"; unset "pids[$name]"
            elif [ "$waited" -ge "$((timeout * 10))" ]; then
                nl_say "$name did not stop within ${timeout}s; killing it"
                kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
            fi
        done
        [ ${#pids[@]} -gt 0 ] && { sleep 0.1; waited=$((waited + 1)); }
    done
}

# nl_wait_http NAME URL SECONDS: wait until URL answers with any HTTP
# status; fail at once when NAME's process died.
nl_wait_http() {
    local name=$1 url=$2 timeout=${3:-60} waited=0
    until "$VENV/bin/python" -c "import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except urllib.error.HTTPError:
    pass" "$url" >/dev/null 2>&1; do
        nl_check_alive "$name" || return 1
        if [ "$waited" -ge "$((timeout * 5))" ]; then
            nl_say "ERROR: $url did not answer within ${timeout}s"
            return 1
        fi
        sleep 0.2; waited=$((waited + 1))
    done
}
