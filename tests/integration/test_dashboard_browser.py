"""The capacity dashboard in a real browser, on a stacked 2-cell lab.

Headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven
by selenium) logs in through the form, sees every host and node with the
usage placement reports, watches the numbers change during a burst of
boots without reloading, opens a server and sees its filter funnel and
weight bars. Screenshots go to ``$NOVA_LITE_SCREENSHOT_DIR`` (default:
the lab's state directory). A member gets 403 on the page and its data
API.

Without Chromium the test skips and says why, except with
``NOVA_LITE_REQUIRE_SERVICES=1`` (CI: ``tests/run_tests.sh`` installs it
through ``devstack/lib/services.sh``), where it fails.
"""

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

from tests.integration import lab as lab_mod
from tests.integration import test_services as base

SERVER_LINK = 'a[href="/dashboard/servers/%s"]'
# The lab's default image (devstack's image catalog).
IMAGE_ID = 'c1a7e0a5-5e1f-4b7b-9f0e-0000000000c1'


def chromium_missing():
    """Why the browser cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return 'selenium is not installed (test-requirements.txt)'
    for tool in ('chromium', 'chromedriver'):
        if shutil.which(tool) is None:
            return ('%s is not installed (apt-get install chromium '
                    'chromium-driver)' % tool)
    return None


def start_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome import service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which('chromium')
    for arg in ('--headless=new', '--no-sandbox', '--disable-gpu',
                '--disable-dev-shm-usage', '--window-size=1200,900'):
        options.add_argument(arg)
    return webdriver.Chrome(
        service=service.Service(shutil.which('chromedriver')),
        options=options)


class TestDashboardInBrowser(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=2, computes_per_cell=1, nodes_per_compute=2,
                      database='sqlite', name_prefix='nl_dash')
    # Every build on this node fails (and is rescheduled in its cell).
    FAILING_NODE = 'cell1-compute1-node-1'

    @classmethod
    def prepare_lab(cls, lab):
        lab.set_compute_conf('cell1-compute1', '[fake_driver]\n'
                             'fail_spawn_nodes = %s\n' % cls.FAILING_NODE)

    def setUp(self):
        reason = chromium_missing()
        base.require_service(self, reason is None, reason)
        super().setUp()
        self.shots = os.environ.get('NOVA_LITE_SCREENSHOT_DIR',
                                    self.lab.state)
        # The servers here are the admin's (the dashboard is an admin's).
        status, body = self.lab.compute(
            'PUT', '/os-quota-sets/admin', {'quota_set': {
                'instances': 1000, 'cores': 16000, 'ram': 65536000}})
        self.assertEqual(200, status, body)

    def open_browser(self):
        self.browser = start_browser()
        self.addCleanup(self.browser.quit)

    def explain(self, server_id, *args):
        result = subprocess.run(
            [os.path.join(sys.prefix, 'bin', 'nova-lite-manage'),
             '--config-file', os.path.join(self.lab.state, 'etc',
                                           'api-level.conf'),
             'scheduler', 'explain', server_id, *args],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    # -- helpers -------------------------------------------------------------

    def boot(self, count, prefix):
        ids = []
        for i in range(count):
            status, reply = self.lab.compute('POST', '/servers', {'server': {
                'name': '%s-%d' % (prefix, i), 'flavorRef': '1',
                'imageRef': IMAGE_ID,
                'networks': 'none'}})
            self.assertEqual(202, status, reply)
            ids.append(reply['server']['id'])
        return ids

    def node_providers(self):
        return {rp['name']: rp['uuid'] for rp in self.lab.providers()
                if rp['uuid'] == rp.get('root_provider_uuid', rp['uuid'])}

    def placement_numbers(self, rp_uuid):
        usages = self.lab.placement_get(
            '/resource_providers/%s/usages' % rp_uuid)['usages']
        inventories = self.lab.placement_get(
            '/resource_providers/%s/inventories' % rp_uuid)['inventories']
        result = {}
        for rc, inv in inventories.items():
            cap = int((inv['total'] - inv['reserved']) *
                      inv['allocation_ratio'])
            result[rc] = '%d / %d' % (usages.get(rc, 0), cap)
        return result

    def shown(self, rp_uuid, rc):
        from selenium.webdriver.common.by import By
        elements = self.browser.find_elements(
            By.CSS_SELECTOR, '.num[data-rp="%s"][data-rc="%s"]'
            % (rp_uuid, rc))
        return elements[0].text if elements else None

    def page_matches_placement(self, providers):
        for uuid in providers.values():
            for rc, text in self.placement_numbers(uuid).items():
                if self.shown(uuid, rc) != text:
                    return False
        return True

    def login(self):
        from selenium.webdriver.common.by import By
        self.browser.get(self.lab.api + '/dashboard')
        self.assertIn('/dashboard/login', self.browser.current_url)
        self.browser.find_element(By.ID, 'username').send_keys('admin')
        self.browser.find_element(By.ID, 'password').send_keys('lab')
        self.browser.find_element(By.ID, 'login').click()
        base.wait_for(lambda: self.browser.current_url.rstrip('/').endswith(
            '/dashboard'), timeout=30, what='dashboard after login')

    def member_status(self, path):
        req = urllib.request.Request(self.lab.api + path, headers={
            'X-Auth-Token': lab_mod.MEMBER_PROJECT})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    # -- the test -----------------------------------------------------------

    def test_dashboard_end_to_end(self):
        from selenium.webdriver.common.by import By
        self.open_browser()
        first = self.boot(2, 'first')
        self.lab.wait_status(first, statuses=('ACTIVE',))
        self.login()
        page = self.browser.page_source
        for cell, hosts in self.lab.computes.items():
            self.assertIn(cell, page)
            for host in hosts:
                self.assertIn('data-host="%s"' % host, page)
        providers = self.node_providers()
        self.assertEqual(4, len(providers), providers)
        for name in providers:
            self.assertIn('data-node="%s"' % name, page)
        self.assertTrue(self.page_matches_placement(providers))

        # A burst, watched live: the page is not reloaded (the marker set
        # on this document survives) and its numbers follow placement.
        self.browser.execute_script('window.__sameDocument = 42;')
        burst = self.boot(6, 'burst')
        self.lab.wait_status(burst, statuses=('ACTIVE',))
        base.wait_for(lambda: self.page_matches_placement(providers),
                      timeout=30, interval=1,
                      what='the page showing the usage after the burst')
        self.assertEqual(42, self.browser.execute_script(
            'return window.__sameDocument;'))
        self.assertGreater(int(self.browser.find_element(
            By.ID, 'live-state').get_attribute('data-updates')), 0)
        self.browser.save_screenshot(os.path.join(self.shots,
                                                  'dashboard-capacity.png'))

        # A server (in cell2: never rescheduled, so the pick of its one
        # attempt is where it runs): its funnel and weights.
        chosen = [sid for sid in burst if self.lab.server(sid)[
            'OS-EXT-SRV-ATTR:host'].startswith('cell2')][0]
        self.browser.get(self.lab.api + '/dashboard')
        link = self.browser.find_element(By.CSS_SELECTOR,
                                         SERVER_LINK % chosen)
        link.click()
        base.wait_for(lambda: chosen in self.browser.current_url,
                      timeout=30, what='the server page')
        steps = self.browser.find_elements(By.CSS_SELECTOR,
                                           '.funnel .step[data-filter]')
        self.assertIn('ComputeFilter',
                      [s.get_attribute('data-filter') for s in steps])
        picked = self.browser.find_elements(By.CSS_SELECTOR, '.wrow.picked')
        server = self.lab.server(chosen)
        self.assertEqual(1, len(picked))
        self.assertEqual(server['OS-EXT-SRV-ATTR:hypervisor_hostname'],
                         picked[0].get_attribute('data-weight-node'))
        self.assertTrue(self.browser.find_elements(By.CSS_SELECTOR,
                                                   '.wrow .wseg'))
        self.browser.execute_script(
            'document.querySelector(".query").scrollIntoView();')
        self.browser.save_screenshot(os.path.join(self.shots,
                                                  'dashboard-server.png'))

        # Members: 403, and nothing of the cloud in the answer.
        for path in ('/dashboard', '/dashboard/api/capacity',
                     '/dashboard/servers/%s' % chosen):
            status, text = self.member_status(path)
            self.assertEqual(403, status, path)
            for host in self.lab.computes['cell1']:
                self.assertNotIn(host, text)

    def test_explain_a_rescheduled_and_a_no_valid_host_server(self):
        # NOTE: after its first failure the node weighs least
        # (BuildFailureWeigher): the class's other test may have had it.
        ids = self.boot(4, 'resched')
        self.lab.wait_status(ids, statuses=('ACTIVE',))
        ids += [srv['id'] for srv in self.lab.servers()
                if srv['id'] not in ids]
        rescheduled = [
            sid for sid in ids
            if len(json.loads(self.explain(sid, '--json'))[0][
                'attempts']) == 2]
        self.assertTrue(rescheduled, 'no build landed on %s first'
                        % self.FAILING_NODE)
        text = self.explain(rescheduled[0])
        self.assertIn('attempt 1 (scheduler', text)
        self.assertIn('picked: cell1-compute1/%s' % self.FAILING_NODE, text)
        self.assertIn('attempt 2 (reschedule', text)
        self.assertIn('previous build failed:', text)
        # Anti-affinity over the lab's 2 hosts: the third member fails.
        status, body = self.lab.compute('POST', '/os-server-groups', {
            'server_group': {'name': 'apart', 'policy': 'anti-affinity'}})
        self.assertEqual(200, status, body)
        group = body['server_group']['id']
        members = []
        for i in range(3):
            status, reply = self.lab.compute('POST', '/servers', {
                'server': {'name': 'apart-%d' % i, 'flavorRef': '1',
                           'imageRef': IMAGE_ID, 'networks': 'none'},
                'os:scheduler_hints': {'group': group}})
            self.assertEqual(202, status, reply)
            members.append(reply['server']['id'])
            self.lab.wait_status([members[-1]])
        last = self.lab.server(members[-1])
        self.assertEqual('ERROR', last['status'])
        text = self.explain(members[-1])
        self.assertIn('in cell cell0', text)
        self.assertRegex(text, r'ServerGroupAntiAffinityFilter +\d+ -> 0 +'
                         r'<- removed the last hosts')
        self.assertIn('result: NoValidHost', text)
