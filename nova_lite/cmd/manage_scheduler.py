"""nova-lite-manage scheduler explain SERVER: why a server landed where it
did (or why it landed nowhere).

SERVER is a server uuid, or a name when exactly one server has it. The
decisions come from the server's cell (cell0 for a server that could not
be scheduled), oldest first: per scheduled action (boot, resize ...)
the scheduler's attempt (placement query, candidates, each filter's hosts
in and out, the weighers' shares for the best hosts, the pick, the
alternates, the refused claims), then each reschedule of the cell
conductor. ``--json`` prints the stored records as they are.
"""

from oslo_serialization import jsonutils

from nova_lite.cmd import manage_common as common
from nova_lite.cmd.manage_common import CommandError
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import instance_api
from nova_lite import exception
from nova_lite import objects


def _find(ctxt, server):
    """``(cell mapping row, instance row)`` of SERVER (uuid or name)."""
    try:
        mapping = api_db.instance_mapping_get_by_instance_uuid(ctxt, server)
    except exception.NotFound:
        mapping = None
    cells = api_db.cell_mapping_get_all(ctxt)
    if mapping is not None and mapping.cell_mapping is not None:
        cell = mapping.cell_mapping
        return cell, instance_api.instance_get_by_uuid(
            common.cell_context(cell), server)
    found = []
    for cell in cells:
        cctxt = common.cell_context(cell)
        for inst in instance_api.instance_get_all_by_filters(
                cctxt, {'display_name': server}):
            if inst.display_name == server:
                found.append((cell, inst))
    if not found:
        raise CommandError('No server %s was found.' % server, code=2)
    if len(found) > 1:
        raise CommandError('%d servers are named %s; give the uuid.'
                           % (len(found), server), code=2)
    return found[0]


def _hosts(items):
    return ', '.join('%s/%s' % (i['host'], i['node']) if isinstance(i, dict)
                     else str(i) for i in items) or '-'


def _scheduler_lines(attempt):
    lines = ['    placement: %s' % (attempt.get('query') or '-'),
             '    candidates: %d allocation requests on %d hosts' % (
                 attempt.get('candidates') or 0, attempt.get('hosts') or 0)]
    if attempt.get('num_instances', 1) > 1:
        lines.append('    instance %d of %d of the request' % (
            attempt.get('instance_index', 0) + 1,
            attempt['num_instances']))
    lines.append('    filters (hosts in -> out):')
    for step in attempt.get('filters') or []:
        note = ' (skipped)' if step.get('skipped') else ''
        if step.get('in') and step.get('out') == 0:
            note = '  <- removed the last hosts'
        lines.append('      %-36s %5d -> %-5d%s' % (
            step['name'], step['in'], step['out'], note))
    mults = attempt.get('multipliers') or {}
    weights = attempt.get('weights') or []
    if weights:
        lines.append('    weights (weigher x multiplier): %s' % ', '.join(
            '%s x%g' % (k, v) for k, v in sorted(mults.items())))
        for entry in weights:
            parts = ' '.join('%s=%.3f' % (k, v) for k, v in
                             sorted(entry.get('parts', {}).items()))
            lines.append('      %-32s total %8.3f  %s' % (
                '%s/%s' % (entry['host'], entry['node']), entry['total'],
                parts))
    return lines


def _attempt_lines(number, attempt):
    source = attempt.get('source', 'scheduler')
    head = '  attempt %d (%s, %s)' % (number, source, attempt.get('at', '?'))
    lines = [head]
    if source == 'reschedule':
        if attempt.get('previous_error'):
            lines.append('    previous build failed: %s'
                         % attempt['previous_error'])
    else:
        lines.extend(_scheduler_lines(attempt))
    if attempt.get('failed_claims'):
        lines.append('    claims refused by placement: %s'
                     % _hosts(attempt['failed_claims']))
    picked = attempt.get('picked')
    if picked:
        lines.append('    picked: %s/%s' % (picked['host'], picked['node']))
    if attempt.get('result') == 'NoValidHost':
        lines.append('    result: NoValidHost: %s' % (
            attempt.get('reason') or '-'))
    lines.append('    alternates (%d): %s' % (
        attempt.get('num_alternates') or 0,
        _hosts(attempt.get('alternates') or [])))
    return lines


def format_text(instance, cell_name, decisions):
    lines = ['Server %s (%s) in cell %s: host %s, node %s, %s' % (
        instance.uuid, instance.display_name, cell_name,
        instance.host or '-', instance.node or '-', instance.vm_state)]
    if not decisions:
        lines.append('No scheduling decision is recorded for this server.')
    for index, dec in enumerate(decisions, 1):
        lines.append('')
        lines.append('Decision %d: %s at %s (request %s)' % (
            index, dec.kind, dec.created_at, dec.request_id))
        lines.append('  summary: %s' % dec.summary)
        if dec.dropped_attempts:
            lines.append('  (%d attempts dropped to bound the record)'
                         % dec.dropped_attempts)
        for number, attempt in enumerate(dec.attempts, 1):
            lines.extend(_attempt_lines(number, attempt))
    return '\n'.join(lines)


def explain(args):
    objects.register_all()
    ctxt = common.admin_context()
    cell, instance = _find(ctxt, args.server)
    cctxt = common.cell_context(cell)
    decisions = objects.SchedulingDecisionList.get_by_instance_uuid(
        cctxt, instance.uuid).objects
    if args.json:
        print(jsonutils.dumps([{
            'kind': d.kind, 'summary': d.summary,
            'request_id': d.request_id,
            'created_at': d.created_at.isoformat() if d.created_at
            else None, 'attempts': d.attempts} for d in decisions],
            indent=2, sort_keys=True))
    else:
        print(format_text(instance, cell.name, decisions))
    return 0


def build_parser(categories):
    sched = categories.add_parser('scheduler', help='scheduling decisions')
    acts = sched.add_subparsers(dest='action', required=True,
                                metavar='ACTION',
                                parser_class=common.Parser)
    explain_p = acts.add_parser(
        'explain', help='why a server landed where it did')
    explain_p.add_argument('server', help='server uuid or name')
    explain_p.add_argument('--json', action='store_true',
                           help='print the stored records as JSON')
    explain_p.set_defaults(func=explain)
