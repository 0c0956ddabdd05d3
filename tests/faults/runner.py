"""Run one fault on a fresh lab and judge the result.

What one fault leaves behind (a stuck build, a leaked claim, a message
queued for a gone instance) must not be counted against the next: a lab
is kept for the next fault only when the fault passed and deleting every
server left placement empty and the audit clean; otherwise it is
unstacked and the next fault stacks a fresh one (new databases and vhosts
on the same private servers). The steps: stack (when needed), a burst of
creates, the fault (mid-burst) and its repair, wait for the burst to
settle, the invariants, a new burst, clean up.
"""

import collections
import os
import re
import shutil
import time
import traceback

from tests.faults import faultlab
from tests.integration import lab as lab_mod


class Context:
    """What a fault's ``inject`` may use."""

    def __init__(self, fault, lab, rabbit, mysql, burst):
        self.fault, self.lab, self.burst = fault, lab, burst
        self.rabbit, self.mysql = rabbit, mysql


def _say(msg):
    print('[faults %s] %s' % (time.strftime('%H:%M:%S'), msg), flush=True)


def settle_and_check(lab, accepted, since):
    """Wait for the servers, then every invariant; a result dict."""
    deadline = since + lab.build_timeout + 60
    servers, settled_at = faultlab.wait_settled(lab, accepted, deadline)
    stuck = sorted(sid for sid, s in servers.items()
                   if s['status'] not in faultlab.SETTLED)
    vanished = sorted(set(accepted) - set(servers))
    silent_errors = sorted(sid for sid in accepted
                           if sid in servers and
                           servers[sid]['status'] == 'ERROR' and
                           not (servers[sid].get('fault') or {}).get(
                               'message'))
    usage_wrong, wrong_claims, strays = faultlab.claims(lab, servers)
    no_guest, stray_guests, built_anyway = faultlab.guest_check(lab, servers)
    audit_rc, audit_out = lab.audit()
    audit_orphans = faultlab.audit_orphans(audit_out)
    statuses = {}
    for s in servers.values():
        statuses[s['status']] = statuses.get(s['status'], 0) + 1
    return {
        'servers': statuses,
        'stuck': len(stuck), 'stuck_ids': stuck,
        'stuck_detail': {sid: {k: servers[sid].get(k) for k in (
            'status', 'OS-EXT-STS:task_state',
            'OS-EXT-SRV-ATTR:hypervisor_hostname')} for sid in stuck},
        'lost': len(vanished) + len(silent_errors),
        # Servers no 202 announced: made by a create answered 503, or by
        # one whose client gave up waiting.
        'unannounced': {sid: servers[sid]['status']
                        for sid in sorted(set(servers) - set(accepted))},
        'vanished_ids': vanished, 'error_without_fault_ids': silent_errors,
        'recovery_s': (round(settled_at - since, 1)
                       if settled_at is not None else None),
        'usage_mismatch': usage_wrong, 'wrong_claims': wrong_claims,
        'stray_allocations': strays,
        'active_without_guest': no_guest, 'stray_guests': stray_guests,
        # Reported, not failed: an ERROR build whose guest was made
        # anyway (it holds its claim while it has a node).
        'error_with_guest': built_anyway,
        'audit_rc': audit_rc, 'audit_orphans': audit_orphans,
        'orphans': len(set(audit_orphans) |
                       {c for cs in strays.values() for c in cs}),
    }


def computes_up(lab, limit_s=90):
    """Seconds until every compute service is "up" again (a compute's
    heartbeat connection reconnects on oslo.messaging's back-off, up to
    some seconds after the broker is back: a burst sent before that is
    refused by the ComputeFilter, as Nova's would be); None when they
    are not up within ``limit_s`` (the new burst then shows it)."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        status, _, body = faultlab.compute_call(
            lab, 'GET', '/os-services?binary=nova-compute', timeout=10)
        services = body.get('services') if status == 200 and \
            isinstance(body, dict) else None
        if services and all(svc['state'] == 'up' for svc in services):
            return round(time.monotonic() - started, 1)
        time.sleep(1)
    return None


# The warning of a retried database transaction (nova_lite.db.session:
# the first attempt, then every tenth) and of a retried conductor call
# of a build (nova_lite.compute.conductor_retry); the error's text may
# span lines (SQLAlchemy adds the statement), not the next log record.
_RETRY_WARNING = re.compile(
    r' failed \(((?:(?!\n\d{4}-\d\d-\d\d ).){0,4000}?)\); '
    r'retry(?:ing for| \d+ in) ', re.S)
_ERROR_CODE = re.compile(r'\((\d{4}),')
_ERROR_NAME = re.compile(r'\b(DB\w+|\w+Error)\b')


def retries(lab):
    """Counter of the retry warnings in ``lab``'s logs, by what failed:
    a MySQL error code (1213 deadlock, 2013 lost connection, ...) or the
    error's class name."""
    found = collections.Counter()
    for _, path in lab_mod.log_files(os.path.join(lab.state, 'logs')):
        with open(path, errors='replace') as log:
            text = log.read()
        for match in _RETRY_WARNING.finditer(text):
            error = match.group(1)
            code = _ERROR_CODE.search(error)
            name = _ERROR_NAME.search(error)
            if code:
                found[code.group(1)] += 1
            elif 'Timed out waiting for a reply' in error:
                found['MessagingTimeout'] += 1
            else:
                found[name.group(1) if name else 'other'] += 1
    return found


def new_burst(lab, count):
    up_after = computes_up(lab)
    burst = faultlab.Burst(lab, 'after', count).run()
    accepted = burst.accepted
    deadline = time.monotonic() + lab.build_timeout + 60
    servers, _ = faultlab.wait_settled(lab, accepted, deadline, only=True)
    ended = {}
    for sid in accepted:
        status = servers.get(sid, {}).get('status', 'gone')
        ended[status] = ended.get(status, 0) + 1
    not_active = sorted(sid for sid in accepted
                        if servers.get(sid, {}).get('status') != 'ACTIVE')
    active = len(accepted) - len(not_active)
    return {'sent': count, 'accepted': len(accepted), 'active': active,
            'statuses': burst.summary()['statuses'], 'servers': ended,
            'not_active': not_active_reasons(servers, not_active),
            'not_active_ids': not_active,
            'computes_up_after_s': up_after, 'ok': active == count}


def not_active_reasons(servers, server_ids):
    """How many of ``server_ids`` did not go ACTIVE, by status and fault
    message (what a failed new burst is judged by)."""
    reasons = {}
    for sid in server_ids:
        server = servers.get(sid, {})
        status = server.get('status', 'gone')
        if status == 'ACTIVE':
            continue
        message = (server.get('fault') or {}).get('message')
        key = '%s: %s' % (status, message) if message else status
        reasons[key] = reasons.get(key, 0) + 1
    return reasons


def failures(result):
    """Why a fault's run fails (empty: it passed)."""
    why = []
    if result.get('error'):
        why.append('error: %s' % result['error'].splitlines()[-1])
        return why
    if result.get('check_failed'):
        why.append(result['check_failed'])
    odd = {s: n for s, n in result['burst']['statuses'].items()
           if s not in ('202', '503')}
    if odd:
        why.append('burst POSTs answered %s (want 202 or 503)' % odd)
    unanswered = sum(n for s, n in result['burst']['statuses'].items()
                     if not s.isdigit())
    unanswered += sum(1 for s in (result.get('outage_probe') or {}).get(
        'post_statuses', ()) if not s.isdigit())
    if len(result.get('unannounced', ())) > unanswered:
        why.append('%d servers made by creates answered 503'
                   % (len(result['unannounced']) - unanswered))
    if result['stuck']:
        why.append('%d stuck' % result['stuck'])
    if result['lost']:
        why.append('%d lost' % result['lost'])
    if result['usage_mismatch']:
        why.append('usage != flavors on %d providers'
                   % len(result['usage_mismatch']))
    if result['wrong_claims']:
        why.append('%d servers hold the wrong claim'
                   % len(result['wrong_claims']))
    if result['audit_rc'] != 0:
        why.append('placement audit exit %s' % result['audit_rc'])
    if result['stray_allocations']:
        why.append('allocations of no server')
    if result.get('active_without_guest'):
        why.append('%d ACTIVE servers without a guest'
                   % len(result['active_without_guest']))
    if result.get('stray_guests'):
        why.append('%d guests of no server (or on another node)'
                   % len(result['stray_guests']))
    if not result['new_burst']['ok']:
        why.append(new_burst_failure(result['new_burst']))
    if result.get('served_500'):
        why.append('%d requests answered 500, first: %s'
                   % (len(result['served_500']), result['served_500'][0]))
    return why


def new_burst_failure(new):
    """The new burst's failure: its POSTs when not all were answered
    202, and how the accepted servers that did not go ACTIVE ended."""
    why = 'new burst: %d/%d ACTIVE' % (new['active'], new['sent'])
    refused = {s: n for s, n in new.get('statuses', {}).items()
               if s != '202'}
    if refused:
        why += ' (POSTs answered %s)' % refused
    return why + ''.join(' (%d %s)' % (n, reason) for reason, n in
                         sorted(new.get('not_active', {}).items()))


def run_fault(fault, rabbit, mysql, lab, args, results_dir):
    """Burst, inject, check on ``lab`` (stacked first when it is new);
    (result dict, the lab when it is clean for the next fault or None)."""
    result = {'fault': fault.name, 'description': fault.description}
    started = time.monotonic()
    result['lab_state'] = lab.state
    try:
        if lab.stack_seconds is None:
            _say('%s: stacking a lab (%s)' % (fault.name, lab.name))
            lab.stack()
            result['stack_s'] = round(lab.stack_seconds, 1)
            lab.set_member_quota()
        served_500_before = lab_mod.served_500(lab)
        retries_before = retries(lab)
        burst = faultlab.Burst(lab, fault.name, args.burst).start()
        burst.wait_answered(fault.inject_at)
        _say('%s: %d POSTs answered, injecting: %s'
             % (fault.name, burst.answered, fault.description))
        fault_started = time.monotonic()
        info = fault.inject(Context(fault, lab, rabbit, mysql, burst)) or {}
        recovered = time.monotonic()
        result['fault_s'] = round(recovered - fault_started, 1)
        burst.join()
        result['burst'] = burst.summary()
        accepted = burst.accepted + info.pop('accepted', [])
        result.update(info)
        _say('%s: repaired after %.0fs; burst %s; waiting for %d builds'
             % (fault.name, result['fault_s'], result['burst']['statuses'],
                len(accepted)))
        result.update(settle_and_check(lab, accepted, recovered))
        _say('%s: %s; new burst of %d'
             % (fault.name, result['servers'], args.new_burst))
        result['new_burst'] = new_burst(lab, args.new_burst)
        result['served_500'] = lab_mod.new_lines(
            lab_mod.served_500(lab), served_500_before)
        # Reported, not judged: what the fault made the lab retry.
        result['retries'] = dict(retries(lab) - retries_before)
    except Exception:
        result['error'] = traceback.format_exc()
    result['failures'] = failures(result)
    result['passed'] = not result['failures']
    kept = None
    if not result['passed']:
        dest = os.path.join(results_dir, 'logs', fault.name)
        _keep_logs(lab, dest, result)
        _keep_broker_state(rabbit, dest)
        _keep_database_logs(mysql, dest)
    elif clean_up(lab):
        kept = lab
    if kept is None and not args.keep:
        destroy(lab, result)
    result['wall_s'] = round(time.monotonic() - started, 1)
    _say('%s: %s (%.0fs; retries %s)' % (
        fault.name, 'PASS' if result['passed'] else
        'FAIL: ' + '; '.join(result['failures']), result['wall_s'],
        result.get('retries', '-')))
    return result, kept


def destroy(lab, result=None):
    try:
        lab.destroy()
    except lab_mod.LabError as e:
        if result is not None:
            result.setdefault('teardown_error', str(e))


def clean_up(lab, timeout=90):
    """Delete every server; True when the lab is then empty: no server,
    no usage, a clean audit."""
    listed = faultlab.list_servers(lab) or {}
    for sid in listed:
        faultlab.compute_call(lab, 'DELETE', '/servers/' + sid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if faultlab.list_servers(lab) == {}:
            break
        time.sleep(1)
    else:
        return False
    try:
        if lab.usages_in_use():
            return False
    except lab_mod.LabError:
        return False
    return lab.audit()[0] == 0


def _keep_broker_state(rabbit, dest):
    """The private broker's queues, consumers and connections, every
    vhost, into ``dest``/rabbitmq-state.txt (why RPC went silent)."""
    lines = []
    try:
        vhosts = rabbit.ctl('-q', 'list_vhosts', 'name').stdout.split()[1:]
        for vhost in vhosts:
            for args in (('list_queues', 'name', 'type', 'consumers',
                          'messages', 'messages_unacknowledged', 'state'),
                         ('list_consumers', 'queue_name', 'channel_pid',
                          'consumer_tag', 'ack_required', 'active'),
                         ('list_bindings', 'source_name', 'destination_name',
                          'routing_key')):
                result = rabbit.ctl('-q', '-p', vhost, *args)
                lines.append('== %s %s\n%s%s' % (vhost, args[0],
                                                 result.stdout,
                                                 result.stderr))
        result = rabbit.ctl('-q', 'list_connections', 'name', 'vhost',
                            'channels', 'state')
        lines.append('== list_connections\n%s%s' % (result.stdout,
                                                     result.stderr))
    except Exception as e:  # noqa: B902 - a diagnosis, never the verdict
        lines.append('rabbitmqctl failed: %s' % e)
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, 'rabbitmq-state.txt'), 'w') as f:
        f.write('\n'.join(lines))
    logs = os.path.join(rabbit.root, 'log')
    if os.path.isdir(logs):
        shutil.copytree(logs, os.path.join(dest, 'rabbitmq'),
                        dirs_exist_ok=True)


def _keep_database_logs(mysql, dest):
    """The error logs of the Galera cluster's nodes (when the fault's
    databases were on it) into ``dest``/galera<i>.log."""
    for node in getattr(mysql, 'nodes', ()):
        if os.path.exists(node.log):
            os.makedirs(dest, exist_ok=True)
            shutil.copy(node.log, os.path.join(dest, 'galera%d.log'
                                               % node.index))


def _keep_logs(lab, dest, result):
    logs = os.path.join(lab.state, 'logs')
    if os.path.isdir(logs):
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(logs, dest)
        ids = (result.get('new_burst') or {}).get('not_active_ids', ())
        for line in log_problems(dest, ids):
            _say('  ' + line)


def log_problems(logs, server_ids=(), last=5, width=300, naming_max=60):
    """What CI prints of a failed fault's logs (the kept copy goes with
    CI's clone): the first ``naming_max`` lines naming one of
    ``server_ids``, then each log's last ``last`` ERROR and WARNING
    lines, each after its file's name."""
    naming, problems = [], []
    for name, path in lab_mod.log_files(logs):
        tail = collections.deque(maxlen=last)
        with open(path, errors='replace') as log:
            for line in log:
                shown = '%s: %s' % (name, line.rstrip()[:width])
                if any(sid in line for sid in server_ids):
                    naming.append(shown)
                elif ' ERROR ' in line or ' WARNING ' in line:
                    tail.append(shown)
        problems.extend(tail)
    return naming[:naming_max] + problems
