#!/bin/bash
# The test command of the README: sets up what the suite needs, then runs tox.
#
#   tests/run_tests.sh                       # what CI runs: every default env
#   tests/run_tests.sh -e py3                # one env
#   tests/run_tests.sh -e integration -- test_lab   # tox arguments pass through
#
# Like devstack/stack.sh for the lab, it installs what is missing and says so:
# - tox: the one on the PATH when there is one; otherwise a private
#   virtualenv with tox ($NOVA_LITE_TOX_VENV, default .venv-tox in this clone),
#   created once and reused;
# - Chromium and chromedriver (the dashboard's browser test), and
#   RabbitMQ and MariaDB, when the envs to run include integration or
#   tempest (a lab; CI's extra envs run after the default ones): found on
#   127.0.0.1, started when installed but stopped, installed with apt-get when
#   missing and running as root (devstack/lib/services.sh, the same code as
#   stack.sh). Without them the integration tests skip, or fail when
#   NOVA_LITE_REQUIRE_SERVICES=1 (CI).
# With no arguments it then runs the envs named in $NOVA_LITE_EXTRA_ENVS
# (CI: compat, upstream Placement's suites; faults and fuzz, issue 16's
# suites on private RabbitMQ and MariaDB servers; tempest, Tempest's compute
# API and smoke tests against a Keystone lab; see .ci/run), each in turn.
# An entry of $NOVA_LITE_EXTRA_ENVS may carry its time on a reference
# machine (env:seconds); with a budget ($NOVA_LITE_CI_BUDGET_S, seconds
# from this script's start; CI's is in .ci/run) an extra env starts only
# when that time, scaled by how much slower than the reference the default
# envs ran here, fits in what is left, and says so when it does not: a slow
# machine runs fewer extra envs instead of outrunning CI's limit. An env
# that started always finishes.
# It ends with one plain "N passed, M failed, K skipped" line over every
# slice that ran, and exits non-zero when any env failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. devstack/lib/services.sh
. tests/ci_budget.sh

nl_envs_from_args() {
    # The -e/--env value of tox's arguments, or the default envlist.
    local prev=""
    for arg in "$@"; do
        [ "$arg" = "--" ] && break
        case "$prev" in -e|--env) echo "$arg"; return ;; esac
        case "$arg" in -e?*) echo "${arg#-e}"; return ;;
                       --env=*) echo "${arg#--env=}"; return ;; esac
        prev=$arg
    done
    echo default
}

nl_ensure_test_services() {
    case "$(nl_envs_from_args "$@")" in
        default|*integration*|*tempest*|*ecosystem*) ;;
        *) return 0 ;;
    esac
    # NOTE: the dashboard's browser test needs Chromium; CI must have it.
    if ! nl_ensure_chromium && [ -n "${NOVA_LITE_REQUIRE_SERVICES:-}" ]; then
        nl_say "ERROR: the dashboard's browser test needs chromium and chromium-driver"
        return 1
    fi
    if nl_ensure_rabbitmq && nl_ensure_mariadb; then
        return 0
    fi
    if [ -n "${NOVA_LITE_REQUIRE_SERVICES:-}" ]; then
        nl_say "ERROR: the integration tests need RabbitMQ and MariaDB"
        return 1
    fi
    nl_say "WARNING: without RabbitMQ and MariaDB the integration tests skip"
}

nl_find_tox() {
    local venv=${NOVA_LITE_TOX_VENV:-$ROOT/.venv-tox}
    if [ -z "${NOVA_LITE_TOX_VENV:-}" ] && command -v tox >/dev/null 2>&1; then
        nl_say "using $(command -v tox) ($(tox --version 2>/dev/null | head -1))" >&2
        command -v tox
        return 0
    fi
    if [ ! -x "$venv/bin/tox" ]; then
        nl_say "tox is not on the PATH: creating $venv with tox (pip)" >&2
        python3 -m venv "$venv" >&2 &&
            "$venv/bin/pip" install -q tox >&2 || return 1
    fi
    nl_say "using $venv/bin/tox" >&2
    echo "$venv/bin/tox"
}

nl_summary() {
    # One plain line over the subunit streams the slices left.
    compgen -G '.ci-results/*.subunit' >/dev/null ||
        compgen -G '.ci-results/*.json' >/dev/null || return 0
    local py
    for py in .tox/*/bin/python; do
        if "$py" -c 'import subunit, testtools' 2>/dev/null; then
            "$py" -m tests.summary .ci-results
            return
        fi
    done
}

nl_ensure_test_services "$@" || exit 1
TOX=$(nl_find_tox) || { nl_say "ERROR: could not install tox"; exit 1; }
rm -rf .ci-results
"$TOX" "$@"
rc=$?
if [ $# -eq 0 ]; then
    defaults_s=$SECONDS
    not_run=""
    for entry in ${NOVA_LITE_EXTRA_ENVS:-}; do
        env=${entry%%:*}
        if ! nl_extra_env_fits "$entry" "$defaults_s"; then
            not_run="$not_run $env"
            continue
        fi
        nl_say "also running tox -e $env (NOVA_LITE_EXTRA_ENVS)"
        "$TOX" -e "$env" || rc=1
    done
    [ -z "$not_run" ] || nl_say "not run (CI's time budget):$not_run"
fi
nl_summary || { echo "0 passed, 1 failed"; [ $rc -ne 0 ] || rc=1; }
exit $rc
