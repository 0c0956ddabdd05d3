"""Configuration: every group is listed, every option has help text."""

import testtools

from nova_lite import conf as nl_conf
from nova_lite.conf import opts

REQUIRED_GROUPS = {
    'DEFAULT', 'api_database', 'database', 'placement_database', 'placement',
    'placement_api', 'scheduler', 'filter_scheduler', 'compute', 'conductor',
    'fake_driver', 'api',
}


def _group_name(group):
    return getattr(group, 'name', group)


class TestConfigurationOptions(testtools.TestCase):

    def test_every_required_group_is_listed(self):
        listed = {_group_name(group) for group, _ in opts.list_opts()}
        self.assertTrue(REQUIRED_GROUPS <= listed,
                        REQUIRED_GROUPS - listed)

    def test_every_option_has_help_text(self):
        missing = ['%s.%s' % (_group_name(group), opt.name)
                   for group, options in opts.list_opts()
                   for opt in options if not (opt.help or '').strip()]
        self.assertEqual([], missing)

    def test_options_are_registered_on_the_global_conf(self):
        for group, options in opts.list_opts():
            name = _group_name(group)
            section = (nl_conf.CONF if name == 'DEFAULT'
                       else getattr(nl_conf.CONF, name))
            for opt in options:
                # Reading an unregistered option raises NoSuchOptError.
                getattr(section, opt.dest)

    def test_defaults_match_the_architecture(self):
        conf = nl_conf.CONF
        self.assertEqual(10, conf.report_interval)
        self.assertEqual(60, conf.service_down_time)
        self.assertEqual(8774, conf.api.bind_port)
        self.assertEqual(8778, conf.placement_api.bind_port)
        self.assertEqual(3, conf.scheduler.max_attempts)
        self.assertEqual(1000, conf.scheduler.max_placement_results)
        self.assertEqual('filter_scheduler', conf.scheduler.driver)
        self.assertEqual('noauth2', conf.api.auth_strategy)
