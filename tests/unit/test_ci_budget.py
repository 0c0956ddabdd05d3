"""CI's time budget for the extra envs (tests/ci_budget.sh)."""

import os
import subprocess

import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def fits(entry, defaults_s, elapsed_s, budget='3600', reference='1920'):
    """(whether the entry starts, what was said) after ``elapsed_s`` s."""
    env = {'PATH': os.environ['PATH'],
           'NOVA_LITE_DEFAULT_ENVS_REFERENCE_S': reference}
    if budget is not None:
        env['NOVA_LITE_CI_BUDGET_S'] = budget
    script = ('nl_say() { echo "$*"; }; . tests/ci_budget.sh; '
              'SECONDS=%d; nl_extra_env_fits %s %d'
              % (elapsed_s, entry, defaults_s))
    result = subprocess.run(['bash', '-c', script], cwd=ROOT, env=env,
                            capture_output=True, text=True)
    return result.returncode == 0, result.stdout


class TestExtraEnvBudget(testtools.TestCase):
    def test_every_extra_env_runs_where_the_times_were_measured(self):
        # Default envs as long as the reference's, 690 s of extra envs
        # done: 990 s left, the last one's 780 s unscaled.
        self.assertTrue(fits('tempest:780', 1920, 1920 + 690)[0])

    def test_time_scaled_by_a_slower_machine(self):
        # 3,120 s for the default envs: fuzz's 180 s becomes 292 s.
        self.assertTrue(fits('fuzz:180', 3120, 3200)[0])
        started, said = fits('fuzz:180', 3120, 3320)
        self.assertFalse(started)
        self.assertIn('NOT running tox -e fuzz: it would take ~292 s', said)
        self.assertIn('280 s are left of the budget', said)

    def test_a_faster_machine_is_not_given_less_time(self):
        started, said = fits('faults:450', 960, 3200)
        self.assertFalse(started)
        self.assertIn('~450 s here', said)

    def test_no_budget_or_no_time_always_runs(self):
        self.assertTrue(fits('tempest:780', 9000, 9000, budget=None)[0])
        self.assertTrue(fits('tempest', 9000, 9000)[0])
