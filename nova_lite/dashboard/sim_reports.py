"""What-if scheduling reports in the dashboard (``/dashboard/sim``).

``[dashboard] sim_reports_dir`` names a directory whose sub-directories
are ``nova-lite-manage sim run`` outputs. ``/dashboard/sim`` lists those
that hold a ``report.html``; ``/dashboard/sim/NAME`` answers NAME's
report as it is (a self-contained page: inline SVG, no script). A name is
one path component of letters, digits, ``.``, ``_`` and ``-``; anything
else, or an unset option, is a 404.
"""

import os
import re

import webob.exc

from nova_lite.dashboard import views

REPORT = 'report.html'
_NAME = re.compile(r'^[A-Za-z0-9_-][A-Za-z0-9._-]*$')


def _root(conf):
    root = conf.dashboard.sim_reports_dir
    if not root or not os.path.isdir(root):
        raise webob.exc.HTTPNotFound(
            'No simulation reports are served here ([dashboard] '
            'sim_reports_dir is not set to a directory).')
    return root


def names(conf):
    """The report directories, by name."""
    root = _root(conf)
    return sorted(name for name in os.listdir(root)
                  if _NAME.match(name) and
                  os.path.isfile(os.path.join(root, name, REPORT)))


def listing(conf):
    """The page listing the reports."""
    found = names(conf)
    items = ''.join('<li><a href="/dashboard/sim/%s">%s</a></li>' % (
        views.esc(name), views.esc(name)) for name in found)
    body = ('<h1>Simulation reports</h1><p>%d reports (nova-lite-manage '
            'sim run) in %s.</p><ul>%s</ul>' % (
                len(found), views.esc(conf.dashboard.sim_reports_dir),
                items))
    return views.page('Simulation reports', body)


def report(conf, name):
    """NAME's report.html, as it was written."""
    root = _root(conf)
    if not _NAME.match(name):
        raise webob.exc.HTTPNotFound('No such report.')
    path = os.path.join(root, name, REPORT)
    if not os.path.isfile(path):
        raise webob.exc.HTTPNotFound('No such report.')
    with open(path, encoding='utf-8') as f:
        return f.read()
