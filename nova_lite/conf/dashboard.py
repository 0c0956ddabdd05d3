"""Options in [dashboard]: the capacity page of nova-lite-api."""

from oslo_config import cfg

dashboard_group = cfg.OptGroup('dashboard', title='Dashboard', help="""
nova-lite-api serves a capacity page at ``/dashboard`` (admins only, by
the ``os_compute_api:os-dashboard`` policy): cells, hosts, nodes and
their nested providers with usage from placement, a heat map per cell,
a live view, and each server's scheduling decision.
""")

dashboard_opts = [
    cfg.BoolOpt('enabled', default=True,
                help='Serve the dashboard at /dashboard.'),
    cfg.FloatOpt('refresh_interval', default=2.0, min=0.5,
                 help="""
Seconds between two polls of the live view (the page's script asks the
data API this often; the API answers 304 when nothing changed).
"""),
    cfg.IntOpt('cell_refresh_interval', default=10, min=1,
               help="""
Seconds the API reuses what it read from the cell databases (services,
nodes, servers) while placement's usage is unchanged. A change in
placement (a boot, a delete) re-reads the cells at once.
"""),
    cfg.BoolOpt('prewarm', default=True,
                help="""
Read the cells and placement for the dashboard when an API worker starts
(in the background), so the first page is served from memory instead of
waiting for a whole cloud to be read (seconds at 10,000 nodes).
"""),
    cfg.IntOpt('nodes_per_page', default=200, min=1,
               help="""
Nodes shown in full (providers, bars, servers) per page of the host tree;
the heat map always shows every node.
"""),
    cfg.URIOpt('identity_url',
               help="""
Keystone URL the login form asks for a token (``auth_strategy =
keystone``); default: ``[keystone_authtoken] www_authenticate_uri``.
"""),
    cfg.StrOpt('sim_reports_dir',
               help="""
A directory of ``nova-lite-manage sim run`` output directories (each with
its ``report.html``). When set, ``/dashboard/sim`` lists them and
``/dashboard/sim/NAME`` shows NAME's report; unset, those pages answer
404.
"""),
    cfg.StrOpt('login_project', default='admin',
               help="""
Project a Keystone login is scoped to when the form names none.
"""),
]


def register_opts(conf):
    conf.register_group(dashboard_group)
    conf.register_opts(dashboard_opts, group=dashboard_group)


def list_opts():
    return [(dashboard_group, dashboard_opts)]
