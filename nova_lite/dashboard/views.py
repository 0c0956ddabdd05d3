"""The dashboard's HTML, rendered on the server (no template engine: small
functions returning escaped strings). The page's script
(:mod:`nova_lite.dashboard.static`) only draws the heat maps and
refreshes the numbers; everything is readable without it.
"""

import html

from nova_lite.dashboard import data
from nova_lite.dashboard import static


def esc(value):
    return html.escape('' if value is None else str(value), quote=True)


def page(title, body, refresh=None, data_url=None):
    attrs = ''
    if data_url:
        attrs = ' data-live="%s" data-refresh="%s"' % (
            esc(data_url), esc(int((refresh or 2) * 1000)))
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<title>%s</title><style>%s</style></head><body%s>'
            '<header><a href="/dashboard">nova_lite capacity</a>'
            '<span id="live-state"></span>'
            '<a class="logout" href="/dashboard/logout">log out</a>'
            '</header><main>%s</main><script>%s</script></body></html>'
            % (esc(title), static.CSS, attrs, body, static.JS))


def login_page(strategy, error=None, project=''):
    fields = ('<label>Username <input name="username" id="username" '
              'autocomplete="username" required></label>'
              '<label>Password <input name="password" id="password" '
              'type="password" autocomplete="current-password"></label>')
    if strategy == 'keystone':
        fields += ('<label>Project <input name="project" id="project" '
                   'value="%s"></label>' % esc(project))
    hint = {'noauth2': 'noauth2: the username is the token ("admin"); '
                       'the password is not checked.',
            'http_basic': 'HTTP basic: a user of the htpasswd file.',
            'keystone': 'Keystone: your user, password and project.'}
    body = ('<h1>Log in</h1>%s<form method="post" action="/dashboard/login"'
            ' class="login">%s<button type="submit" id="login">Log in'
            '</button></form><p class="hint">%s</p>' % (
                '<p class="error">%s</p>' % esc(error) if error else '',
                fields, esc(hint.get(strategy, ''))))
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<title>Log in - nova_lite</title><style>%s</style></head>'
            '<body><main>%s</main></body></html>' % (static.CSS, body))


def bar(rp_uuid, rc, used, cap):
    pct = min(100.0, 100.0 * used / cap) if cap > 0 else (
        100.0 if used else 0.0)
    return ('<div class="usage"><span class="rc">%s</span>'
            '<span class="bar" data-rp="%s" data-rc="%s">'
            '<span class="fill %s" style="width:%.1f%%"></span></span>'
            '<span class="num" data-rp="%s" data-rc="%s">%d / %d</span>'
            '</div>' % (esc(rc), esc(rp_uuid), esc(rc), _level(pct), pct,
                        esc(rp_uuid), esc(rc), used, cap))


def _level(pct):
    return 'hi' if pct >= 90 else 'mid' if pct >= 60 else 'lo'


def provider_block(depth, provider):
    bars = ''.join(bar(provider['uuid'], rc, used, cap)
                   for rc, used, cap in data.usage_rows(provider))
    traits = provider['traits']
    custom = [t for t in traits if t.startswith('CUSTOM_')]
    trait_html = ''
    if traits:
        trait_html = ('<details class="traits"><summary>%d traits%s'
                      '</summary>%s</details>' % (
                          len(traits), (': ' + ', '.join(
                              esc(t) for t in custom[:4])) if custom else '',
                          ' '.join('<code>%s</code>' % esc(t)
                                   for t in sorted(traits))))
    aggs = ''
    if provider['aggregates']:
        aggs = '<div class="aggs">aggregates: %s</div>' % ', '.join(
            '<code>%s</code>' % esc(a) for a in provider['aggregates'])
    return ('<div class="provider depth%d" data-provider="%s">'
            '<div class="pname">%s <small>%s</small></div>%s%s%s</div>' % (
                min(depth, 3), esc(provider['uuid']), esc(provider['name']),
                esc(provider['uuid']), bars, trait_html, aggs))


def node_block(snapshot, node):
    tree = snapshot.tree(node['uuid'])
    providers = ''.join(provider_block(d, p) for d, p in tree) or (
        '<p class="muted">not in placement</p>')
    servers = snapshot.servers_by_node.get(node['name'], [])
    items = ''.join(
        '<li><a href="/dashboard/servers/%s">%s</a> <small>%s · %s</small>'
        '</li>' % (esc(u), esc(n or u), esc(p), esc(s))
        for u, n, p, s in servers[:data.MAX_SERVERS_PER_NODE])
    if len(servers) > data.MAX_SERVERS_PER_NODE:
        items += '<li>... %d more</li>' % (
            len(servers) - data.MAX_SERVERS_PER_NODE)
    return ('<div class="node" id="node-%s" data-node="%s"><h4>%s '
            '<small>servers: <span data-node-servers="%s">%d</span></small>'
            '</h4>%s<ul class="servers">%s</ul></div>' % (
                esc(node['name']), esc(node['name']), esc(node['name']),
                esc(node['name']), len(servers), providers, items))


def host_block(snapshot, host, nodes):
    return ('<section class="host state-%s" data-host="%s"><h3>%s '
            '<span class="badge %s">%s</span>%s</h3>%s</section>' % (
                esc(host['state']), esc(host['host']), esc(host['host']),
                esc(host['state']), esc(host['state']),
                ' <small>%s</small>' % esc(host['disabled_reason'])
                if host.get('disabled_reason') else '',
                ''.join(node_block(snapshot, n) for n in nodes)))


def _totals(snapshot, cell):
    for doc_cell in snapshot.live_doc()['cells']:
        if doc_cell['uuid'] == cell['uuid']:
            return doc_cell['totals']
    return {}


def cell_summary(snapshot, cell):
    nodes = sum(len(h['nodes']) for h in cell['hosts'])
    totals = _totals(snapshot, cell)
    bars = ''.join(bar('cell:' + cell['uuid'], rc, used, cap)
                   for rc, (used, cap) in sorted(
                       totals.items(), key=lambda i: data.class_order(i[0])))
    return ('<section class="cell" data-cell="%s"><h2>%s <small>%d hosts,'
            ' %d nodes</small></h2><div class="totals">%s</div>'
            '<canvas class="heatmap" data-cell="%s" width="800" height="20">'
            '</canvas></section>' % (
                esc(cell['name']), esc(cell['name']), len(cell['hosts']),
                nodes, bars, esc(cell['name'])))


PUBLIC_PLACEMENT_NOTE = (
    '<p class="hint" id="public-placement">Placement has no nova_lite '
    'capacity routes (OpenStack Placement): read through its public API, '
    'a request per provider and resource, so this page is slower.</p>')


def overview(snapshot, page_no, per_page, refresh, data_url):
    body = ['<h1>Capacity</h1>']
    if snapshot.down_cells:
        body.append('<p class="error">Cells not answering: %s</p>'
                    % esc(', '.join(snapshot.down_cells)))
    if snapshot.public_placement:
        body.append(PUBLIC_PLACEMENT_NOTE)
    body.append('<div class="legend">heat map: one square per node, '
                'coloured by its fullest resource; hover for the node, '
                'click to open it</div>')
    body.extend(cell_summary(snapshot, c) for c in snapshot.cells)
    body.append('<div id="tooltip"></div>')
    all_nodes = list(snapshot.nodes())
    start = page_no * per_page
    shown = all_nodes[start:start + per_page]
    body.append('<h2>Hosts and nodes <small>%d-%d of %d</small></h2>' % (
        start + 1 if shown else 0, start + len(shown), len(all_nodes)))
    body.append(_pager(page_no, per_page, len(all_nodes)))
    groups = []
    for cell, host, node in shown:
        if not groups or groups[-1][1] is not host:
            groups.append((cell, host, []))
        groups[-1][2].append(node)
    last_cell = None
    for cell, host, nodes in groups:
        if cell is not last_cell:
            body.append('<h3 class="cellname">cell %s</h3>'
                        % esc(cell['name']))
            last_cell = cell
        body.append(host_block(snapshot, host, nodes))
    body.append(_pager(page_no, per_page, len(all_nodes)))
    initial = snapshot.heatmap_json().replace('</', '<\\/')
    body.append('<script type="application/json" id="initial">%s</script>'
                % initial)
    return page('Capacity - nova_lite', ''.join(body), refresh, data_url)


def _pager(page_no, per_page, total):
    pages = (total + per_page - 1) // per_page
    if pages <= 1:
        return ''
    links = []
    for number in range(pages):
        if number == page_no:
            links.append('<b>%d</b>' % (number + 1))
        else:
            links.append('<a href="/dashboard?page=%d">%d</a>'
                         % (number, number + 1))
    return '<nav class="pager">%s</nav>' % ' '.join(links)
