"""schemathesis against a lab's four OpenAPI documents (a phase of the
big fuzz run, ``python -m tests.fuzz``).

Each service's document is read from the lab (what it serves), resolved
to one microversion where the service has them (``openapi.at_version``:
the document as a client of that version sees it, since schemathesis
knows nothing of ``x-openstack``), and given to schemathesis's CLI,
which sends requests it derives from the document with an admin token
(noauth2, as every fuzzed lab) and checks each answer:

* ``not_a_server_error`` (ST101): no 5xx;
* ``status_code_conformance`` (ST103) and ``response_schema_conformance``
  (ST108, ST109): the status is one the document lists and the body
  matches its schema;
* ``positive_data_acceptance`` (ST202): a request the document allows is
  not refused with 400 (or 405, 415, 422). A refusal the document cannot
  say (a name that must exist, a rule across two fields: Nova, Neutron,
  Glance and Placement answer those with 400 too) is listed in
  :data:`EXPECTED_REFUSALS`, each with its reason; any other is a finding.

Examples per operation are bounded (``--examples``): the whole phase,
four services, runs in about a minute on two cores.
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ElementTree

from nova_lite.wsgi import openapi

# service -> (lab attribute of its endpoint, document path, service type
# and the microversion its document is resolved to, or None)
SERVICES = {
    'compute': ('api', '/v2.1/openapi.json', ('compute', '2.100')),
    'placement': ('placement', '/openapi.json', ('placement', '1.39')),
    'image': ('api', '/image/openapi.json', None),
    'network': ('api', '/network/openapi.json', None),
}
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HOOKS = 'tests.fuzz.schemathesis_hooks'
CHECKS = ('not_a_server_error', 'status_code_conformance',
          'response_schema_conformance', 'positive_data_acceptance')
SERVER_ERRORS = {'ST101', 'ST102'}
RESPONSE_MISMATCHES = {'ST103', 'ST104', 'ST105', 'ST106', 'ST108',
                       'ST109', 'ST110'}
REFUSED_VALID = 'ST202'

# (service, operation regex, answer regex, why the document cannot say
# it): refusals of schema-valid requests that are the service's rules,
# not the document's gaps.
EXPECTED_REFUSALS = [
    ('placement', r'GET /allocation_candidates$',
     r'at least one resources',
     'one of resources or resourcesN is required: a rule across '
     'parameters'),
    ('placement', r'GET /resource_providers$|GET /allocation_candidates$',
     r"Expected '(member_of|in_tree)' parameter|Invalid query string "
     r"parameters: Expected",
     'member_of and in_tree take "in:" lists of UUIDs, parsed in code as '
     'Placement does'),
    ('placement', r'GET /traits$', r'Badly formatted name parameter',
     'name takes "in:" or "startswith:", parsed in code'),
    ('placement', r'/allocations',
     r'Malformed resource provider uuid: .* is not a valid UUID',
     'the body\'s provider keys follow Placement\'s own pattern (36 hex '
     'digits or dashes); the UUID check is in code, as upstream'),
    ('placement', r'POST /allocations$|POST /reshaper$',
     r'is not a valid UUID|not found',
     'consumers and providers named in the body must be UUIDs that '
     'exist'),
    ('placement', r'POST /resource_providers$|PUT /resource_providers/',
     r'parent provider UUID does not exist|does not exist',
     'a parent provider must exist'),
    ('placement', r'/inventories', r'reserved value is greater than total|'
     r'No such resource class|min_unit|max_unit|step_size',
     'an inventory\'s fields bound each other (reserved, min and max '
     'unit, step size) and name an existing resource class'),
    ('compute', r'os-networks|os-tenant-networks', r'"gone"',
     'nova-network is gone: its proxies answer 410 by design, as Nova'),
    ('compute', r'POST /v2\.1/servers$',
     r'could not be found|Invalid (image|flavor|key)|Can not find',
     'a create names a flavor, image, network or key pair that must '
     'exist'),
    ('compute', r'POST /v2\.1/os-keypairs$', r'Keypair data is invalid',
     'a public key must be one OpenSSH can read'),
    ('compute', r'PUT /v2\.1/os-services/',
     r'disabled_reason with status=enabled',
     'a rule across two fields'),
    ('compute', r'^GET ',
     r'Must be a boolean|Not a boolean|marker .* not found|Paging over '
     r'hypervisors|Datetime is in invalid format|Invalid timestamp',
     'query values Nova parses in code (booleans spelled as text, dates, '
     'a marker that must exist; no paging with a hostname pattern)'),
    ('compute', r'.', r'Must be [<>]= -?[0-9]+|A number in the request '
     r'is out of range',
     'a number Nova takes as text too (its own schemas: integer or '
     'digits) is bounded in code when given as text: a JSON Schema '
     'maximum holds for numbers only'),
    ('network', r'/rbac-policies', r'is not supported',
     'the actions a policy may grant depend on its object type'),
    ('network', r'PUT /network/v2\.0/routers/', r'is not an external network',
     'a gateway\'s network must be external'),
    ('compute', r'/os-extra_specs/\{key\}', r'must match the URL key',
     'the body\'s key repeats the URL\'s'),
    ('network', r'/agents/\{id\}/(dhcp-networks|l3-routers)',
     r'InvalidDHCPAgent|InvalidL3Agent',
     'the agent must be one of that kind, and enabled'),
    ('network', r'/routers|/subnets',
     r'is not a valid route|not a valid IP subnet|recommended CIDR|'
     r'does not match|not a valid IP address',
     'a destination or CIDR is a network address (no host bits) of the '
     'subnet\'s IP version'),
    ('network', r'/subnetpools', r'Illegal prefix bounds|Illegal subnetpool '
     r'association|IP versions differ|Illegal update to prefixes',
     'prefix lengths bound each other, a pool\'s address scope has its IP '
     'version, and an update keeps the prefixes it had'),
    ('compute', r'POST /v2\.1/os-server-groups$',
     r'only the anti-affinity policy takes rules',
     'rules go with one policy only: a rule across two fields, checked in '
     'code as Nova does'),
]


def _get(url, headers):
    req = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def document(lab, name):
    """The service's document as the lab serves it, resolved to its
    microversion: ``(document, headers to send)``."""
    attr, path, versioned = SERVICES[name]
    base = getattr(lab, attr)
    doc = _get(base + path, {})
    headers = {'X-Auth-Token': 'admin'}
    if versioned:
        service_type, version = versioned
        doc = openapi.at_version(doc, version)
        headers['OpenStack-API-Version'] = '%s %s' % (service_type,
                                                       version)
    return base, doc, headers


_CASE = re.compile(r'^\d+\. Test Case ID', re.M)
_CODE = re.compile(r'^- (ST\d+) ', re.M)
_ANSWER = re.compile(r'^\[(\d{3})\][^\n]*\n\n\s*`?(.*)$', re.M)


def findings(junit_path):
    """``[(operation, code, status, answer)]`` from schemathesis's JUnit
    report; an operation schemathesis could not test is a finding with
    the code ``error``."""
    found = []
    for case in ElementTree.parse(junit_path).iter('testcase'):
        operation = case.get('name')
        for error in case.iter('error'):
            found.append((operation, 'error', None,
                          (error.text or error.get('message') or '')[:300]))
        for failure in case.iter('failure'):
            for text in _CASE.split(failure.text or '')[1:]:
                answer = _ANSWER.search(text)
                status = int(answer.group(1)) if answer else None
                body = answer.group(2)[:1000] if answer else ''
                for code in _CODE.findall(text):
                    found.append((operation, code, status, body))
    return found


def expected_refusal(service, operation, answer):
    for name, op_pattern, answer_pattern, _why in EXPECTED_REFUSALS:
        if (name == service and re.search(op_pattern, operation) and
                re.search(answer_pattern, answer)):
            return True
    return False


def run_service(lab, name, workdir, examples, seed=None):
    """schemathesis against one service; its tally."""
    workdir = os.path.abspath(workdir)
    base, doc, headers = document(lab, name)
    doc_path = os.path.join(workdir, '%s.json' % name)
    with open(doc_path, 'w') as f:
        json.dump(doc, f)
    junit = os.path.join(workdir, '%s.junit.xml' % name)
    if os.path.exists(junit):
        os.unlink(junit)
    cmd = [os.path.join(os.path.dirname(sys.executable), 'st'), 'run',
           doc_path, '--url', base, '--checks', ','.join(CHECKS),
           '--max-examples', str(examples), '--phases', 'examples,fuzzing',
           '--mode', 'positive',
           '--workers', '2', '--no-shrink', '--request-timeout', '60',
           '--report', 'junit',
           '--report-junit-path', junit, '--no-color']
    cmd += ['--seed', str(seed), '--generation-database', 'none'] \
        if seed is not None else ['--generation-deterministic']
    for key, value in headers.items():
        cmd += ['--header', '%s: %s' % (key, value)]
    env = dict(os.environ, SCHEMATHESIS_HOOKS=HOOKS,
               PYTHONPATH=os.pathsep.join(
                   [REPO_ROOT] + os.environ.get('PYTHONPATH', '').split(
                       os.pathsep)))
    started = time.monotonic()
    with open(os.path.join(workdir, '%s.out' % name), 'w') as out:
        subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT,
                       cwd=workdir, env=env, timeout=600)
    tally = {'operations': sum(len(m) for m in doc['paths'].values()),
             'server_errors': [], 'response_mismatches': [],
             'refused_valid': [], 'expected_refusals': 0, 'errors': [],
             'wall_s': round(time.monotonic() - started, 1)}
    if not os.path.exists(junit):
        tally['errors'].append('schemathesis wrote no report: see %s.out'
                               % name)
        return tally
    for operation, code, status, answer in findings(junit):
        item = '%s: %s %s %s' % (operation, code, status, answer)
        if code == 'error':
            tally['errors'].append(item)
        elif code in SERVER_ERRORS:
            tally['server_errors'].append(item)
        elif code in RESPONSE_MISMATCHES:
            tally['response_mismatches'].append(item)
        elif code == REFUSED_VALID:
            if expected_refusal(name, operation, answer):
                tally['expected_refusals'] += 1
            else:
                tally['refused_valid'].append(item)
    return tally


def run(lab, workdir, examples, seed=None):
    """{service: tally} of the four services."""
    os.makedirs(workdir, exist_ok=True)
    return {name: run_service(lab, name, workdir, examples, seed)
            for name in SERVICES}


def check(report, tallies):
    """Three results per service in ``report``."""
    for name, tally in sorted(tallies.items()):
        prefix = 'openapi_%s_' % name
        report.check(prefix + 'no_server_errors',
                     not tally['server_errors'] and not tally['errors'],
                     '\n'.join(tally['errors'] + tally['server_errors'])
                     [:4000])
        report.check(prefix + 'answers_match_document',
                     not tally['response_mismatches'],
                     '\n'.join(tally['response_mismatches'])[:4000])
        report.check(prefix + 'valid_requests_accepted',
                     not tally['refused_valid'],
                     '\n'.join(tally['refused_valid'])[:4000])
