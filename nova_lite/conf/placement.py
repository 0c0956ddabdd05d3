"""Options in [placement]: how nova_lite's services reach placement.

This is the client side.

The server side of nova-lite-placement lives in [placement_api].
"""

from oslo_config import cfg

placement_group = cfg.OptGroup('placement', title='Placement client', help="""
How the scheduler, conductors and computes talk to nova-lite-placement.
""")

placement_opts = [
    cfg.URIOpt('endpoint', default='http://127.0.0.1:8778',
               help='Base URL of the placement API.'),
    cfg.StrOpt('auth_type', default='token',
               choices=[('token', 'Send ``token`` as X-Auth-Token (noauth2 '
                         'labs, or a fixed service token).'),
                        ('http_basic', 'Send ``username``/``password`` as '
                         'HTTP basic authentication.'),
                        ('password', 'Get a Keystone token for '
                         '``username``/``password`` in ``project_name`` '
                         'from ``auth_url`` (keystoneauth1 password '
                         'plugin) and send it; it is renewed before it '
                         'expires and after a 401.')],
               help='How requests to placement authenticate.'),
    cfg.StrOpt('token', default='admin', secret=True,
               help='Token sent when ``auth_type = token``.'),
    cfg.StrOpt('username',
               help='User for ``auth_type = http_basic`` or ``password``.'),
    cfg.StrOpt('password', secret=True,
               help='Password for ``auth_type = http_basic`` or '
                    '``password``.'),
    cfg.URIOpt('auth_url', help="""
Keystone identity endpoint (for example ``http://127.0.0.1:5000/v3``),
used when ``auth_type = password``.

Related options: ``project_name``, ``user_domain_name``,
``project_domain_name``.
"""),
    cfg.StrOpt('project_name', help="""
Project the Keystone token is scoped to when ``auth_type = password``:
the service project, where the user has a role placement accepts for
service calls (admin).
"""),
    cfg.StrOpt('user_domain_name', default='Default',
               help='Keystone domain of ``username`` (``auth_type = '
                    'password``).'),
    cfg.StrOpt('project_domain_name', default='Default',
               help='Keystone domain of ``project_name`` (``auth_type = '
                    'password``).'),
    cfg.FloatOpt('timeout', default=30.0, min=0.1,
                 help='Seconds to wait for one placement response.'),
    cfg.IntOpt('connect_retries', default=3, min=0,
               help="""
How many times a request is retried after a connection error before the
error is raised to the caller.
"""),
    cfg.FloatOpt('connect_retry_delay', default=0.5, min=0,
                 help='Seconds between two connection retries.'),
    cfg.IntOpt('max_parallel_requests', default=8, min=1, help="""
Placement requests a compute sends at the same time when it has many
independent ones: creating, writing or re-reading the provider trees of
many nodes (one compute serving hundreds of fake or Ironic-like nodes).
Each tree's own writes stay in order. 1 sends them one by one.
"""),
]


def register_opts(conf):
    conf.register_group(placement_group)
    conf.register_opts(placement_opts, group=placement_group)


def list_opts():
    return [(placement_group, placement_opts)]
