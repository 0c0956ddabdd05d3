"""Scheduling decisions, end to end: recorded with the instance's action
in its cell, summarised in the event's details (2.84), explained in full
by ``nova-lite-manage scheduler explain``."""

import argparse
import io
import contextlib

from nova_lite import cells
from nova_lite.cmd import manage_scheduler
from nova_lite import context as nl_context
from nova_lite import objects
from tests.functional import test_servers


def explain(server, as_json=False):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = manage_scheduler.explain(argparse.Namespace(
            server=server, json=as_json))
    assert code == 0
    return out.getvalue()


class DecisionTestCase(test_servers.ServersTestBase):

    def events(self, server_id):
        api = self.admin_api
        actions = api.get('/servers/%s/os-instance-actions' % server_id,
                          version='2.84').body['instanceActions']
        create = [a for a in actions if a['action'] == 'create'][0]
        action = api.get('/servers/%s/os-instance-actions/%s' % (
            server_id, create['request_id']), version='2.84').body
        return {e['event']: e for e in action['instanceAction']['events']}

    def decisions(self, server_id, cell='cell1'):
        cell = self.cloud.dbs.cells[cell]
        ctxt = nl_context.get_admin_context()
        with cells.target_cell(ctxt, cell) as cctxt:
            return objects.SchedulingDecisionList.get_by_instance_uuid(
                cctxt, server_id).objects

    def test_boot_records_filters_weights_and_pick(self):
        server = self.boot('ACTIVE')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        (dec,) = self.decisions(server['id'])
        (attempt,) = dec.attempts
        self.assertEqual('boot', dec.kind)
        self.assertEqual(node, attempt['picked']['node'])
        self.assertEqual(2, attempt['hosts'])
        self.assertIn('GET /allocation_candidates?', attempt['query'])
        self.assertEqual('ComputeFilter', attempt['filters'][0]['name'])
        self.assertEqual((2, 2), (attempt['filters'][0]['in'],
                                  attempt['filters'][0]['out']))
        self.assertEqual(node, attempt['weights'][0]['node'])
        self.assertIn('RAMWeigher', attempt['multipliers'])
        self.assertIn('RAMWeigher', attempt['weights'][0]['parts'])
        self.assertEqual(1, attempt['num_alternates'])
        details = self.events(server['id'])[
            'conductor_schedule_and_build_instances']['details']
        self.assertTrue(details.startswith(
            'boot: 2 candidates on 2 hosts, 2 passed filters; picked '),
            details)
        self.assertIn(node, details)

    def test_rescheduled_once_shows_both_attempts(self):
        failed = self.fail_first_spawn()
        server = self.boot('ACTIVE')
        node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        (dec,) = self.decisions(server['id'])
        first, second = dec.attempts
        self.assertEqual(failed[0], first['picked']['node'])
        self.assertEqual('reschedule', second['source'])
        self.assertEqual(node, second['picked']['node'])
        self.assertIn('first spawn fails', second['previous_error'])
        events = self.events(server['id'])
        self.assertEqual('reschedule attempt 2: alternate %s/%s claimed' % (
            server['OS-EXT-SRV-ATTR:host'], node),
            events['conductor_build_instances']['details'])
        text = explain(server['id'])
        self.assertIn('attempt 1 (scheduler', text)
        self.assertIn('attempt 2 (reschedule', text)
        self.assertIn('picked: %s' % ('host1/host1-node-0' if 'host1' in
                                      failed[0] else 'host2/host2-node-0'),
                      text)
        self.assertIn('previous build failed:', text)

    def test_no_valid_host_names_the_filter(self):
        group = self.api.post('/os-server-groups', {'server_group': {
            'name': 'g', 'policies': ['anti-affinity']}},
            version='2.1').body['server_group']
        hints = {'group': group['id']}
        for _ in range(2):
            self.boot('ACTIVE', scheduler_hints=hints)
        server = self.boot('ERROR', name='third', scheduler_hints=hints)
        (dec,) = self.decisions(server['id'], cell='cell0')
        (attempt,) = dec.attempts
        self.assertEqual('NoValidHost', attempt['result'])
        details = self.events(server['id'])[
            'conductor_schedule_and_build_instances']['details']
        self.assertEqual(
            'boot: 2 candidates on 2 hosts; NoValidHost: '
            'ServerGroupAntiAffinityFilter removed the last hosts', details)
        text = explain('third')
        self.assertIn('in cell cell0', text)
        self.assertIn('ServerGroupAntiAffinityFilter', text)
        self.assertIn('2 -> 0      <- removed the last hosts', text)
        self.assertIn('result: NoValidHost', text)

    def test_member_sees_no_details(self):
        server = self.boot('ACTIVE')
        actions = self.api.get(
            '/servers/%s/os-instance-actions' % server['id'],
            version='2.84').body['instanceActions']
        action = self.api.get('/servers/%s/os-instance-actions/%s' % (
            server['id'], actions[0]['request_id']), version='2.84').body
        for event in action['instanceAction'].get('events', []):
            self.assertNotIn('details', event)

    def test_prune_deletes_old_records_only(self):
        from nova_lite.db.cell import decision_api
        server = self.boot('ACTIVE')
        cell = self.cloud.dbs.cells['cell1']
        ctxt = nl_context.get_admin_context()
        with cells.target_cell(ctxt, cell) as cctxt:
            self.assertEqual(0, decision_api.decisions_prune(cctxt, 3600))
            self.assertEqual(1, len(self.decisions(server['id'])))
            self.assertEqual(1, decision_api.decisions_prune(cctxt, 0))
        self.assertEqual([], self.decisions(server['id']))

    def test_resize_records_its_own_decision(self):
        server = self.boot('ACTIVE')
        response = self.admin_api.post('/servers/%s/action' % server['id'],
                                       {'resize': {'flavorRef': '2'}})
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(server['id'], 'VERIFY_RESIZE')
        boot, resize = self.decisions(server['id'])
        self.assertEqual(('boot', 'resize'), (boot.kind, resize.kind))
        actions = self.admin_api.get(
            '/servers/%s/os-instance-actions' % server['id'],
            version='2.84').body['instanceActions']
        req = [a for a in actions if a['action'] == 'resize'][0]
        events = self.admin_api.get('/servers/%s/os-instance-actions/%s' % (
            server['id'], req['request_id']), version='2.84').body[
            'instanceAction']['events']
        migrate = [e for e in events
                   if e['event'] == 'conductor_migrate_server'][0]
        self.assertTrue(migrate['details'].startswith('resize: '),
                        migrate['details'])
