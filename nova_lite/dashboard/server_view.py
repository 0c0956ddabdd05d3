"""The dashboard's server page: where a server is, what it holds in
placement (its own allocations and those of a migration in progress),
and each scheduling decision: the filters as a funnel, the weighers'
shares as bars."""

from nova_lite.dashboard import views

esc = views.esc


def _funnel(attempt):
    steps = attempt.get('filters') or []
    start = attempt.get('hosts') or (steps[0]['in'] if steps else 0)
    rows = ['<div class="step"><span class="fname">placement '
            'candidates</span><span class="fbar"><span class="ffill" '
            'style="width:100%%"></span></span><span class="fnum">'
            '%d hosts (%d allocation requests)</span></div>' % (
                start, attempt.get('candidates') or 0)]
    for step in steps:
        width = 100.0 * step['out'] / start if start else 0
        cls = 'skipped' if step.get('skipped') else (
            'last' if step['in'] and step['out'] == 0 else '')
        rows.append(
            '<div class="step %s" data-filter="%s"><span class="fname">%s'
            '</span><span class="fbar"><span class="ffill" '
            'style="width:%.1f%%"></span></span><span class="fnum">'
            '%d &rarr; %d%s</span></div>' % (
                cls, esc(step['name']), esc(step['name']), width,
                step['in'], step['out'],
                ' (skipped)' if step.get('skipped') else
                ' &mdash; removed the last hosts' if cls == 'last' else ''))
    return '<div class="funnel">%s</div>' % ''.join(rows)


def _weights(attempt):
    weights = attempt.get('weights') or []
    if not weights:
        return '<p class="muted">no weighing (one host or none left)</p>'
    mults = attempt.get('multipliers') or {}
    top = max([w['total'] for w in weights] + [1e-9])
    names = sorted({k for w in weights for k in w.get('parts', {})})
    legend = ''.join('<span class="wkey w%d">%s &times;%g</span>' % (
        i % 8, esc(n), mults.get(n, 0)) for i, n in enumerate(names))
    rows = []
    picked = attempt.get('picked') or {}
    for entry in weights:
        segs = ''.join(
            '<span class="wseg w%d" title="%s %.3f" style="width:%.1f%%">'
            '</span>' % (i % 8, esc(n), entry['parts'].get(n, 0),
                         max(0.0, 100.0 * entry['parts'].get(n, 0) / top))
            for i, n in enumerate(names))
        is_pick = (entry['host'], entry['node']) == (
            picked.get('host'), picked.get('node'))
        rows.append('<div class="wrow%s" data-weight-node="%s"><span '
                    'class="fname">%s/%s</span><span class="wbar">%s</span>'
                    '<span class="fnum">%.3f</span></div>' % (
                        ' picked' if is_pick else '', esc(entry['node']),
                        esc(entry['host']), esc(entry['node']), segs,
                        entry['total']))
    return '<div class="weights"><div class="wlegend">%s</div>%s</div>' % (
        legend, ''.join(rows))


def _attempt(number, attempt):
    head = '<h4>Attempt %d: %s%s</h4>' % (
        number, esc(attempt.get('source', 'scheduler')),
        ' at %s' % esc(attempt['at']) if attempt.get('at') else '')
    parts = [head]
    if attempt.get('source') == 'reschedule':
        if attempt.get('previous_error'):
            parts.append('<p>previous build failed: %s</p>'
                         % esc(attempt['previous_error']))
    else:
        parts.append('<p class="query"><code>%s</code></p>'
                     % esc(attempt.get('query')))
        parts.append('<h5>Filters</h5>' + _funnel(attempt))
        parts.append('<h5>Weights (best hosts)</h5>' + _weights(attempt))
    picked = attempt.get('picked')
    facts = []
    if picked:
        facts.append('picked <b class="picked-host">%s/%s</b>' % (
            esc(picked['host']), esc(picked['node'])))
    if attempt.get('result') == 'NoValidHost':
        facts.append('<b class="error">NoValidHost</b>: %s'
                     % esc(attempt.get('reason')))
    if attempt.get('failed_claims'):
        facts.append('claims refused: %s' % esc(', '.join(
            '%s/%s' % (c['host'], c['node'])
            for c in attempt['failed_claims'])))
    facts.append('alternates (%d): %s' % (
        attempt.get('num_alternates') or 0,
        esc(', '.join(attempt.get('alternates') or [])) or '-'))
    parts.append('<ul class="facts">%s</ul>' % ''.join(
        '<li>%s</li>' % f for f in facts))
    return '<div class="attempt">%s</div>' % ''.join(parts)


def _allocations(title, consumer, allocations, providers):
    if not allocations:
        return ''
    rows = []
    for rp_uuid, alloc in sorted(allocations.items()):
        name = (providers.get(rp_uuid) or {}).get('name', rp_uuid)
        rows.append('<tr><td>%s</td><td>%s</td></tr>' % (
            esc(name), esc(', '.join(
                '%s=%s' % (rc, n) for rc, n in sorted(
                    alloc.get('resources', {}).items())))))
    return ('<h3>%s <small>consumer %s</small></h3><table class="allocs">'
            '<tr><th>provider</th><th>resources</th></tr>%s</table>' % (
                esc(title), esc(consumer), ''.join(rows)))


def server_page(server, cell_name, decisions, allocations, providers,
                migrations):
    """``allocations``: {consumer: allocations}; ``migrations``: [(uuid,
    type, status, source, dest)] in progress."""
    body = ['<h1>Server %s</h1>' % esc(server.display_name or server.uuid),
            '<table class="facts"><tr><th>uuid</th><td>%s</td></tr>'
            '<tr><th>project</th><td>%s</td></tr><tr><th>cell</th>'
            '<td>%s</td></tr><tr><th>host / node</th><td id="server-node">'
            '%s / %s</td></tr><tr><th>state</th><td>%s%s</td></tr>'
            '</table>' % (esc(server.uuid), esc(server.project_id),
                          esc(cell_name), esc(server.host or '-'),
                          esc(server.node or '-'), esc(server.vm_state),
                          ' (%s)' % esc(server.task_state)
                          if server.task_state else '')]
    body.append('<h2>Allocations in placement</h2>')
    own = _allocations('The server', server.uuid,
                       allocations.get(server.uuid), providers)
    body.append(own or '<p class="muted">none</p>')
    for uuid, mtype, status, source, dest in migrations:
        body.append(_allocations(
            'Migration (%s, %s: %s &rarr; %s)' % (mtype, status, source,
                                                   dest or '?'),
            uuid, allocations.get(uuid), providers) or (
            '<p class="muted">migration %s holds nothing</p>' % esc(uuid)))
    body.append('<h2>Scheduling decisions</h2>')
    if not decisions:
        body.append('<p class="muted">none recorded</p>')
    for dec in decisions:
        body.append('<section class="decision"><h3>%s <small>%s</small>'
                    '</h3><p class="summary">%s</p>%s</section>' % (
                        esc(dec.kind), esc(dec.created_at),
                        esc(dec.summary), ''.join(
                            _attempt(i, a)
                            for i, a in enumerate(dec.attempts, 1))))
    return views.page('Server %s - nova_lite' % (server.display_name or
                                                  server.uuid),
                      ''.join(body))
