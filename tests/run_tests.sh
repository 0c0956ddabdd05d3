#!/bin/bash
# The test command of the README: sets up what the suite needs, then runs tox.
#
#   tests/run_tests.sh                       # the default envs (tox.ini)
#   tests/run_tests.sh -m ci                 # what CI runs: every suite
#   tests/run_tests.sh -e py3                # one env
#   tests/run_tests.sh -e integration -- test_lab   # tox arguments pass through
#
# Like devstack/stack.sh for the lab, it installs what is missing and says so:
# - tox: the one on the PATH when there is one; otherwise a private
#   virtualenv ($NOVA_LITE_TOX_VENV, default .venv-tox in this clone),
#   created once and reused, with tox and its uv plugin (tox-uv: uv makes
#   the test virtualenvs several times faster than pip), or tox alone when
#   tox-uv cannot be installed;
# - RabbitMQ and MariaDB when the envs to run include an integration env
#   or tempest, or are a label (-m), and Chromium and chromedriver (the
#   dashboard's browser test) for integration-long or a label: found on
#   127.0.0.1, started when installed but stopped, installed with apt-get
#   when missing and running as root (devstack/lib/services.sh, the same
#   code as stack.sh).
#   Without them the integration tests skip, or fail when
#   NOVA_LITE_REQUIRE_SERVICES=1 (CI).
# Whatever ran, and even when tox itself failed, it ends with one plain
# "N passed, M failed, K skipped" line over every env that ran
# (tests/summary.py: the tests of each env, each check of pep8, an env that
# could not run its tests as one failure), and exits non-zero when anything
# failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. devstack/lib/services.sh

nl_envs_from_args() {
    # The -e/--env value of tox's arguments, "label:NAME" for -m/--labels,
    # or "default" (tox.ini's envlist).
    local prev=""
    for arg in "$@"; do
        [ "$arg" = "--" ] && break
        case "$prev" in -e|--env) echo "$arg"; return ;;
                        -m|--labels) echo "label:$arg"; return ;; esac
        case "$arg" in -e?*) echo "${arg#-e}"; return ;;
                       --env=*) echo "${arg#--env=}"; return ;;
                       -m?*) echo "label:${arg#-m}"; return ;;
                       --labels=*) echo "label:${arg#--labels=}"; return ;;
        esac
        prev=$arg
    done
    echo default
}

nl_ensure_test_services() {
    local envs
    envs=$(nl_envs_from_args "$@")
    case "$envs" in
        default|label:*|*integration*|*tempest*|*ecosystem*) ;;
        *) return 0 ;;
    esac
    # NOTE: the dashboard's browser test (integration-long) needs
    # Chromium; CI must have it.
    case "$envs" in
        label:*|*integration-long*)
            if ! nl_ensure_chromium &&
                    [ -n "${NOVA_LITE_REQUIRE_SERVICES:-}" ]; then
                nl_say "ERROR: the dashboard's browser test needs chromium and chromium-driver"
                return 1
            fi ;;
    esac
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
        nl_say "tox is not on the PATH: creating $venv with tox and tox-uv (pip)" >&2
        python3 -m venv "$venv" >&2 &&
            "$venv/bin/pip" install -q tox >&2 || return 1
        nl_add_tox_uv "$venv"
    elif [ -z "${NOVA_LITE_TOX_VENV:-}" ] && [ ! -e "$venv/.no-tox-uv" ] &&
            ! "$venv/bin/python" -c 'import tox_uv' 2>/dev/null; then
        # This clone's own tox from before it had tox-uv (a shared one,
        # $NOVA_LITE_TOX_VENV, is left as it is).
        nl_add_tox_uv "$venv"
    fi
    nl_say "using $venv/bin/tox" >&2
    echo "$venv/bin/tox"
}

nl_add_tox_uv() {
    # uv makes the test virtualenvs several times faster than pip; without
    # it (no network to PyPI, no wheel for this platform) pip does, once
    # said and not tried again.
    "$1/bin/pip" install -q tox-uv >&2 && return 0
    nl_say "could not install tox-uv: pip makes the test virtualenvs" \
        "(rm $1/.no-tox-uv to try again)" >&2
    touch "$1/.no-tox-uv"
}

nl_fail() {
    # A failure before tox could run: said, and counted in the line.
    nl_say "ERROR: $*"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
}

nl_summary_python() {
    # A python that reads subunit (a test env's), else any python3: pep8's
    # counts and tox's report are plain JSON.
    local py
    for py in .tox/*/bin/python; do
        if "$py" -c 'import subunit, testtools' 2>/dev/null; then
            echo "$py"
            return
        fi
    done
    command -v python3
}

nl_ensure_test_services "$@" || nl_fail "the services the tests need are missing"
rm -rf .ci-results
mkdir -p .ci-results/tox
TOX=$(nl_find_tox) || nl_fail "could not install tox"
# tox's own report of the run: which envs ran and how each ended, so that
# an env that could not run its tests counts as a failure in the line.
"$TOX" --result-json .ci-results/tox/run.json "$@"
rc=$?
"$(nl_summary_python)" tests/summary.py .ci-results \
    --tox-json .ci-results/tox/run.json --tox-exit-code $rc
summary_rc=$?
[ $rc -ne 0 ] || rc=$summary_rc
exit $rc
