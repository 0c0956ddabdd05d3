"""devstack/lib/localconf.py (local.conf meta-sections, ini merging) and
the role settings of devstack/lib/settings.sh."""

import importlib.util
import os
import subprocess

import fixtures
import testtools

DEVSTACK = os.path.join(os.path.dirname(__file__), '..', '..', 'devstack')
_spec = importlib.util.spec_from_file_location(
    'nl_localconf', os.path.join(DEVSTACK, 'lib', 'localconf.py'))
localconf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(localconf)

CONF = """\
[DEFAULT]
# the state
state_path = /x
debug = False

[filter_scheduler]
# As devstack: the filters.
enabled_filters = A,B

[fake_driver]
nodes = 2
"""


class TestMerge(testtools.TestCase):

    def merged(self, snippet):
        return '\n'.join(localconf.merge(
            CONF.splitlines(), localconf.parse_ini(snippet.splitlines())))

    def test_replaces_in_place_and_keeps_comments(self):
        out = self.merged('[filter_scheduler]\nenabled_filters = C\n')
        self.assertIn('# As devstack: the filters.\nenabled_filters = C\n',
                      out)
        self.assertNotIn('A,B', out)
        self.assertIn('# the state', out)

    def test_new_option_goes_into_its_section(self):
        out = self.merged('[filter_scheduler]\nhost_subset_size = 3\n')
        section = out.split('[filter_scheduler]')[1].split('\n[')[0]
        self.assertIn('enabled_filters = A,B\nhost_subset_size = 3', section)

    def test_new_section_at_the_end(self):
        out = self.merged('[compute]\ninstance_build_timeout = 7\n')
        self.assertTrue(out.endswith(
            '\n\n[compute]\ninstance_build_timeout = 7'), out)

    def test_default_section_without_header(self):
        out = self.merged('debug = True\n')
        self.assertIn('state_path = /x\ndebug = True', out)

    def test_merging_twice_changes_nothing(self):
        snippet = localconf.parse_ini(['[a]', 'b = 1', '[DEFAULT]', 'c = 2'])
        once = localconf.merge(CONF.splitlines(), snippet)
        self.assertEqual(once, localconf.merge(once, snippet))


class TestLocalConfFile(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.local = os.path.join(self.dir, 'local.conf')
        for name in ('api.conf', 'c1.conf', 'c2.conf'):
            with open(os.path.join(self.dir, name), 'w') as f:
                f.write(CONF)

    def run_tool(self, *args, **env):
        return subprocess.run(
            ['python3', os.path.join(DEVSTACK, 'lib', 'localconf.py'),
             *args], env=dict(os.environ, **env), capture_output=True,
            text=True, timeout=30, check=True).stdout

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def test_localrc_and_post_config(self):
        with open(self.local, 'w') as f:
            f.write('[[local|localrc]]\nNOVA_LITE_CELLS=3\n\n'
                    '[[post-config|$NOVA_LITE_CONF]]\n'
                    '[filter_scheduler]\nhost_subset_size = 3\n'
                    '[[post-config|$NOVA_LITE_CPU_CONF]]\n'
                    '[fake_driver]\nmemory_mb = 100\n'
                    '[[post-config|$NOVA_LITE_ETC/gone.conf]]\n'
                    '[x]\ny = 1\n')
        self.assertEqual('NOVA_LITE_CELLS=3',
                         self.run_tool('localrc', self.local).strip())
        out = self.run_tool(
            'post-config', self.local,
            NOVA_LITE_CONF=os.path.join(self.dir, 'api.conf'),
            NOVA_LITE_ETC=self.dir,
            NL_COMPUTE_CONFS=' '.join(os.path.join(self.dir, n)
                                      for n in ('c1.conf', 'c2.conf')))
        self.assertIn('host_subset_size = 3', self.read('api.conf'))
        self.assertNotIn('memory_mb', self.read('api.conf'))
        for name in ('c1.conf', 'c2.conf'):
            self.assertIn('nodes = 2\nmemory_mb = 100', self.read(name))
        self.assertIn('gone.conf is not on this node', out)


class TestRoleSettings(testtools.TestCase):

    def settings(self, script, **env):
        env = dict({k: v for k, v in os.environ.items()
                    if not k.startswith('NOVA_LITE_')},
                   NOVA_LITE_STATE_DIR=self.useFixture(
                       fixtures.TempDir()).path,
                   NOVA_LITE_LOCAL_CONF='/nonexistent', **env)
        return subprocess.run(
            ['bash', '-c', 'NL_DEVSTACK_DIR=$PWD; source lib/services.sh; '
             'source lib/settings.sh; source lib/keystone.sh; '
             'source lib/lab.sh; source lib/cellnode.sh; ' + script],
            cwd=DEVSTACK, env=env, capture_output=True, text=True,
            timeout=30)

    def test_loopback_is_unchanged(self):
        out = self.settings('echo $NOVA_LITE_AUTH $NOVA_LITE_RABBIT_URL '
                            '$NOVA_LITE_MYSQL_URL').stdout.split()
        self.assertEqual(['noauth2', 'rabbit://guest:guest@127.0.0.1:5672/',
                          'mysql+pymysql://root@127.0.0.1:3306'], out)

    def test_database_tls_off_on_loopback_only(self):
        # PyMySQL's "preferred" TLS loads the CA bundle for every new
        # connection; on loopback the lab turns it off, beyond it not.
        script = 'NOVA_LITE_DATABASE=mysql; nl_db_url lab_api'
        self.assertEqual(
            'mysql+pymysql://root@127.0.0.1:3306/lab_api'
            '?charset=utf8mb4&ssl_disabled=True',
            self.settings(script).stdout.strip())
        beyond = self.settings(script, NOVA_LITE_HOST_IP='192.0.2.10',
                               NOVA_LITE_NAME='lab1').stdout.strip()
        self.assertTrue(beyond.endswith('/lab_api?charset=utf8mb4'), beyond)
        forced = self.settings(script, NOVA_LITE_DATABASE_TLS='preferred')
        self.assertTrue(forced.stdout.strip().endswith('?charset=utf8mb4'))

    def test_beyond_loopback_http_basic_and_generated_passwords(self):
        out = self.settings(
            'echo $NOVA_LITE_AUTH $NOVA_LITE_RABBIT_URL',
            NOVA_LITE_HOST_IP='192.0.2.10', NOVA_LITE_NAME='lab1').stdout
        auth, url = out.split()
        self.assertEqual('http_basic', auth)
        self.assertRegex(url, r'^rabbit://lab1:[0-9a-f]{32}@192\.0\.2\.10'
                              r':5672/$')

    def test_beyond_loopback_refuses_noauth2(self):
        result = self.settings('nl_check_roles',
                               NOVA_LITE_HOST_IP='192.0.2.10',
                               NOVA_LITE_AUTH='noauth2')
        self.assertEqual(1, result.returncode)
        self.assertIn('refusing noauth2', result.stdout)

    def test_subnode_without_passwords_says_which(self):
        result = self.settings(
            'nl_check_roles', NOVA_LITE_HOST_IP='192.0.2.11',
            NOVA_LITE_SERVICE_HOST='192.0.2.10', NOVA_LITE_DATABASE='mysql',
            NOVA_LITE_ENABLED_SERVICES='compute')
        self.assertEqual(1, result.returncode, result.stdout)
        for var in ('NOVA_LITE_ADMIN_PASSWORD', 'NOVA_LITE_RABBIT_PASSWORD',
                    'NOVA_LITE_DATABASE_PASSWORD'):
            self.assertIn(var, result.stdout)
