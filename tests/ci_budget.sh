# CI's time budget for the extra envs, sourced by tests/run_tests.sh (and
# tests/unit/test_ci_budget.py): nl_extra_env_fits. Needs nl_say
# (devstack/lib/services.sh).

# How long the default envs took where CI's extra env times (.ci/run)
# were measured (the README's 32 minutes).
NL_DEFAULT_ENVS_REFERENCE_S=${NOVA_LITE_DEFAULT_ENVS_REFERENCE_S:-1920}

nl_extra_env_fits() {
    # Whether extra env entry $1 (env or env:seconds) fits in the budget,
    # the default envs having taken $2 seconds here.
    local entry=$1 defaults_s=$2 budget=${NOVA_LITE_CI_BUDGET_S:-}
    local env=${entry%%:*} base=${entry#*:}
    [ -n "$budget" ] && [ "$base" != "$entry" ] || return 0
    local expected=$(( base * defaults_s / NL_DEFAULT_ENVS_REFERENCE_S ))
    [ "$expected" -ge "$base" ] || expected=$base
    local left=$(( budget - SECONDS ))
    [ "$expected" -gt "$left" ] || return 0
    nl_say "NOT running tox -e $env: it would take ~$expected s here" \
        "($base s where the default envs took" \
        "$NL_DEFAULT_ENVS_REFERENCE_S s; here they took $defaults_s s)," \
        "and $left s are left of the budget (NOVA_LITE_CI_BUDGET_S=$budget)"
    return 1
}
