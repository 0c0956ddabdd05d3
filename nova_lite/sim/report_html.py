"""The runs' reports as one self-contained HTML page.

``sim run`` writes ``report.html`` next to the JSON reports: no script,
no style sheet or font from elsewhere, every chart an inline SVG drawn
here. One ``<section>`` per subject, each with an ``id`` (so a test, or a
link, finds it):

- ``summary``: the figures side by side (the comparison's table);
- ``timeline``: placed and NoValidHost over simulated time;
- ``utilisation``: per resource class, the mean utilisation and its
  spread (standard deviation over the hosts) over time, and at the end
  how many hosts sit at each tenth of utilisation;
- ``filters``: the hosts each filter removed over the run;
- ``fragmentation``: per flavor, the hosts where it is the largest that
  still fits at the end;
- ``never-used``: hosts that never received a server;
- ``aggregates``: servers placed over the run, servers and
  utilisation at the end, per aggregate / zone;
- ``differences``: the requests whose outcome differs between the
  configurations, each with every run's explanation.
"""

import html

COLOURS = ('#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
           '#8c564b', '#e377c2', '#17becf')
WIDTH, HEIGHT, PAD = 640, 240, 44
STYLE = """
body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:.5em 0 1em}
td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:left}
th{background:#f2f2f2}
figure{display:inline-block;margin:.5em 1em .5em 0}
figcaption{font-size:13px;color:#555}
svg text{font-size:11px;font-family:sans-serif}
section{margin-bottom:2em}
td.why{font-size:12px;color:#444;max-width:420px}
"""


def esc(value):
    return html.escape('' if value is None else str(value))


def _fmt(value):
    if isinstance(value, float):
        return '%.4g' % value
    return '-' if value is None else str(value)


def _svg_open(width, height, title):
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"'
            ' viewBox="0 0 %d %d" role="img"><title>%s</title>'
            % (width, height, width, height, esc(title)),
            '<rect width="%d" height="%d" fill="#fff"/>' % (width, height)]


def _legend(labels, x, y):
    parts = []
    for index, label in enumerate(labels):
        colour = COLOURS[index % len(COLOURS)]
        top = y + 14 * index
        parts.append('<rect x="%d" y="%d" width="10" height="10" '
                     'fill="%s"/><text x="%d" y="%d">%s</text>' % (
                         x, top, colour, x + 14, top + 9, esc(label)))
    return parts


def line_chart(title, series, xlabel='', ylabel='', dashed=()):
    """An SVG line chart: ``series`` is ``[(label, [(x, y), ...])]``;
    labels in ``dashed`` are drawn dashed."""
    points = [p for _label, pts in series for p in pts]
    parts = _svg_open(WIDTH, HEIGHT, title)
    if not points:
        parts.append('<text x="%d" y="%d">no data</text></svg>' % (
            PAD, HEIGHT // 2))
        return '\n'.join(parts)
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = 0.0, max(max(p[1] for p in points), 1e-9)
    plot_w, plot_h = WIDTH - 2 * PAD - 150, HEIGHT - 2 * PAD

    def sx(x):
        return PAD + (plot_w * (x - x0) / (x1 - x0) if x1 > x0 else 0)

    def sy(y):
        return HEIGHT - PAD - plot_h * (y - y0) / (y1 - y0)
    parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>'
                 % (PAD, HEIGHT - PAD, PAD + plot_w, HEIGHT - PAD))
    parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>'
                 % (PAD, PAD, PAD, HEIGHT - PAD))
    for value in (y0, (y0 + y1) / 2, y1):
        parts.append('<text x="2" y="%.1f">%s</text>' % (
            sy(value) + 4, esc(_fmt(round(value, 3)))))
    parts.append('<text x="%d" y="%d">%s</text>' % (
        PAD, HEIGHT - PAD + 14, esc(_fmt(round(x0, 1)))))
    parts.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (
        PAD + plot_w, HEIGHT - PAD + 14, esc(_fmt(round(x1, 1)))))
    parts.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (
        PAD + plot_w // 2, HEIGHT - 8, esc(xlabel)))
    parts.append('<text x="4" y="14">%s</text>' % esc(ylabel))
    for index, (label, pts) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        dash = ' stroke-dasharray="5,3"' if label in dashed else ''
        coords = ' '.join('%.1f,%.1f' % (sx(x), sy(y)) for x, y in pts)
        parts.append('<polyline class="series" data-label="%s" fill="none"'
                     ' stroke="%s" stroke-width="2"%s points="%s"/>' % (
                         esc(label), colour, dash, coords))
    parts.extend(_legend([label for label, _pts in series],
                         PAD + plot_w + 12, PAD))
    parts.append('</svg>')
    return '\n'.join(parts)


def bar_chart(title, categories, series):
    """An SVG grouped horizontal bar chart: ``series`` is
    ``[(label, [value per category])]``."""
    rows = max(1, len(categories))
    bar_h = 12
    group_h = bar_h * max(1, len(series)) + 6
    height = PAD + rows * group_h + 20
    label_w = 230
    plot_w = WIDTH - label_w - 150
    top = max([v or 0 for _label, values in series for v in values] +
              [1e-9])
    parts = _svg_open(WIDTH, height, title)
    for row, category in enumerate(categories):
        y = PAD // 2 + row * group_h
        parts.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (
            label_w - 6, y + group_h // 2 + 3, esc(category)))
        for index, (label, values) in enumerate(series):
            value = values[row] or 0
            colour = COLOURS[index % len(COLOURS)]
            width = plot_w * value / top
            parts.append(
                '<rect class="bar" data-label="%s" x="%d" y="%d" '
                'width="%.1f" height="%d" fill="%s"/><text x="%.1f" '
                'y="%d">%s</text>' % (
                    esc(label), label_w, y + index * bar_h, width,
                    bar_h - 2, colour, label_w + width + 3,
                    y + index * bar_h + 9, esc(_fmt(value))))
    parts.extend(_legend([label for label, _values in series],
                         label_w + plot_w + 40, PAD // 2))
    parts.append('</svg>')
    return '\n'.join(parts)


def _figure(kind, caption, svg):
    return ('<figure class="chart" data-chart="%s">%s<figcaption>%s'
            '</figcaption></figure>' % (esc(kind), svg, esc(caption)))


def _table(head, rows, classes=None):
    out = ['<table><tr>%s</tr>' % ''.join('<th>%s</th>' % esc(h)
                                          for h in head)]
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            cls = (classes or {}).get(index)
            cells.append('<td%s>%s</td>' % (
                ' class="%s"' % cls if cls else '', esc(_fmt(cell))))
        out.append('<tr>%s</tr>' % ''.join(cells))
    out.append('</table>')
    return '\n'.join(out)


def _section(sid, title, body, intro=''):
    return '<section id="%s"><h2>%s</h2>%s%s</section>' % (
        esc(sid), esc(title), '<p>%s</p>' % esc(intro) if intro else '',
        body)


def _summary(reports, comparison):
    names = [r['name'] for r in reports]
    if comparison is not None:
        rows = [[key] + [values.get(n) for n in names]
                for key, values in comparison['table'].items()]
    else:
        rows = [[key] + [r.get(key) for r in reports] for key in (
            'creates', 'placed', 'no_valid_host', 'moves',
            'hosts_never_used', 'decisions_per_second')]
    configs = _table(['run', 'configuration', 'options set', 'seed'], [
        [r['name'], r.get('config'), ', '.join(r.get('options') or []) or
         '-', r.get('seed')] for r in reports])
    return _section('summary', 'Summary',
                    configs + _table([''] + names, rows))


def _timeline(reports):
    series = []
    for r in reports:
        rows = r.get('timeline') or []
        series.append(('%s placed' % r['name'],
                       [(row['until'], row['placed']) for row in rows]))
        series.append(('%s NoValidHost' % r['name'],
                       [(row['until'], row['no_valid_host'])
                        for row in rows]))
    dashed = {label for label, _pts in series if 'NoValidHost' in label}
    return _section('timeline', 'Placed and NoValidHost over time',
                    _figure('timeline', 'Creates placed and refused '
                            '(cumulative) against simulated seconds',
                            line_chart('placed / NoValidHost', series,
                                       'simulated seconds', 'creates',
                                       dashed)))


def _classes(reports):
    found = set()
    for r in reports:
        found.update(r.get('utilisation') or {})
    return [rc for rc in ('VCPU', 'MEMORY_MB', 'DISK_GB') if rc in found] \
        + sorted(found - {'VCPU', 'MEMORY_MB', 'DISK_GB'})


def _utilisation(reports):
    figures = []
    for rc in _classes(reports):
        for stat, what in (('mean', 'mean utilisation'),
                           ('stdev', 'spread (stdev over hosts)')):
            series = [(r['name'], [
                (row['until'], row['utilisation'].get(rc, {}).get(stat, 0))
                for row in r.get('timeline') or []]) for r in reports]
            figures.append(_figure(
                'utilisation-%s-%s' % (rc, stat),
                '%s: %s over simulated time' % (rc, what),
                line_chart('%s %s' % (rc, what), series,
                           'simulated seconds', what)))
        bins = ['%d-%d%%' % (10 * i, 10 * i + 10) for i in range(10)]
        series = [(r['name'], (r.get('utilisation_histogram') or {}).get(
            rc, [0] * 10)) for r in reports]
        figures.append(_figure(
            'spread-%s' % rc, '%s: hosts per tenth of utilisation at the '
            'end (packing: many empty and many full hosts; spreading: '
            'hosts bunched together)' % rc,
            bar_chart('%s hosts by utilisation' % rc, bins, series)))
    rows = []
    for r in reports:
        for rc, stats in sorted((r.get('utilisation_over_time') or
                                 {}).items()):
            rows.append([r['name'], rc, stats.get('mean'),
                         stats.get('stdev'), stats.get('empty')])
    table = _table(['run', 'class', 'mean over time',
                    'spread over time', 'empty hosts (mean)'], rows)
    return _section('utilisation', 'Utilisation and its spread',
                    table + '\n'.join(figures))


def _filters(reports):
    names = []
    for r in reports:
        for name in r.get('filter_removals') or {}:
            if name not in names:
                names.append(name)
    if not names:
        return _section('filters', 'Hosts removed per filter',
                        '<p>No filter removed a host.</p>')
    series = [(r['name'], [(r.get('filter_removals') or {}).get(
        n, {}).get('hosts_removed', 0) for n in names]) for r in reports]
    rows = [[n] + [(r.get('filter_removals') or {}).get(n, {}).get(
        'decisions', 0) for r in reports] for n in names]
    return _section('filters', 'Hosts removed per filter', _figure(
        'filters', 'Hosts each filter removed, summed over the decisions',
        bar_chart('hosts removed per filter', names, series)) + _table(
            ['filter'] + ['%s: decisions' % r['name'] for r in reports],
            rows))


def _fragmentation(reports):
    flavors = []
    for r in reports:
        for name in ((r.get('fragmentation') or {}).get(
                'largest_flavor_fitting') or {}):
            if name not in flavors:
                flavors.append(name)
    series = [(r['name'], [((r.get('fragmentation') or {}).get(
        'largest_flavor_fitting') or {}).get(f, 0) for f in flavors])
        for r in reports]
    return _section(
        'fragmentation', 'Fragmentation', _figure(
            'fragmentation', 'Hosts per largest flavor that still fits '
            'at the end (none: not even the smallest)',
            bar_chart('largest flavor that fits', flavors, series)),
        'For each host, the largest snapshot flavor it could still take '
        'at the end of the run.')


def _never_used(reports):
    rows = [[r['name'], r.get('hosts_never_used'), r.get('hosts'),
             ', '.join((r.get('hosts_never_used_names') or [])[:20])]
            for r in reports]
    return _section('never-used', 'Hosts never used', _table(
        ['run', 'never used', 'hosts', 'first of them'], rows))


def _aggregates(reports):
    if not any(r.get('aggregates') for r in reports):
        return _section('aggregates', 'Aggregates and zones',
                        '<p>The snapshot has no aggregates.</p>')
    names = []
    for r in reports:
        for agg in r.get('aggregates') or []:
            if agg['name'] not in names:
                names.append(agg['name'])
    by_run = {r['name']: {a['name']: a for a in r.get('aggregates') or []}
              for r in reports}
    series = [(r['name'], [by_run[r['name']].get(n, {}).get('placed', 0)
                           for n in names]) for r in reports]
    rows = [[r['name'], a['name'], a.get('zone'), a['hosts'],
             a.get('placed'), a['servers'], a.get('VCPU_mean'),
             a.get('MEMORY_MB_mean')]
            for r in reports for a in r.get('aggregates') or []]
    return _section('aggregates', 'Aggregates and zones', _figure(
        'aggregates', 'Servers placed per aggregate over the run',
        bar_chart('servers placed per aggregate', names, series)) + _table(
            ['run', 'aggregate', 'zone', 'hosts', 'placed over the run',
             'servers at the end', 'VCPU mean at the end',
             'MEMORY_MB mean at the end'], rows))


def _differences(comparison):
    if comparison is None:
        return _section('differences', 'Decisions that differ',
                        '<p>One configuration: nothing to compare.</p>')
    names = comparison['runs']
    head = ['time', 'server', 'action']
    for name in names:
        head += ['%s' % name, '%s: why' % name]
    rows, classes = [], {}
    for diff in comparison['differing']:
        row = [diff['time'], diff['id'], diff.get('action', 'create')]
        for name in names:
            run = diff['runs'][name]
            row += [run['outcome'], run['why']]
            classes[len(row) - 1] = 'why'
        rows.append(row)
    intro = ('%d requests were decided differently; the first at t=%s '
             '(after it the clouds differ, so later differences may be '
             'consequences of earlier ones). %s' % (
                 comparison['differing_decisions'],
                 comparison['first_difference'],
                 'The first %d are listed.' % len(rows)
                 if len(rows) < comparison['differing_decisions'] else ''))
    return _section('differences', 'Decisions that differ',
                    _table(head, rows, classes), intro)


def render(reports, comparison=None, title='nova-lite sim report'):
    """The HTML page of ``reports`` (run reports) and their
    ``comparison`` (None for one run)."""
    body = [_summary(reports, comparison), _timeline(reports),
            _utilisation(reports), _filters(reports),
            _fragmentation(reports), _never_used(reports),
            _aggregates(reports), _differences(comparison)]
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>%s'
            '</title><style>%s</style></head><body><h1>%s</h1>\n%s\n'
            '</body></html>\n' % (esc(title), STYLE, esc(title),
                                  '\n'.join(body)))
