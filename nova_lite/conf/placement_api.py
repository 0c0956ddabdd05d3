"""Options in [placement_api]: the nova-lite-placement server."""

from oslo_config import cfg

placement_api_group = cfg.OptGroup(
    'placement_api', title='Placement API server', help="""
How nova-lite-placement listens, authenticates and answers.
""")

placement_api_opts = [
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address nova-lite-placement listens on.'),
    cfg.PortOpt('bind_port', default=8778,
                help='TCP port nova-lite-placement listens on.'),
    cfg.IntOpt('workers', default=2, min=1,
               help='Number of WSGI worker processes.'),
    cfg.StrOpt('auth_strategy', default='noauth2',
               choices=[('noauth2', 'No authentication (labs), as '
                         'Placement\'s: the token is "user[:project]"; the '
                         'roles are those of an X-Roles header, else admin '
                         'for the user "admin" and none for others.'),
                        ('http_basic', 'HTTP basic authentication against '
                         '``http_basic_auth_user_file``.'),
                        ('keystone', 'Keystone tokens, checked by '
                         'keystonemiddleware.')],
               help='How placement requests are authenticated.'),
    cfg.StrOpt('http_basic_auth_user_file',
               default='/etc/nova-lite/htpasswd',
               help="""
htpasswd file (bcrypt entries) used when ``auth_strategy = http_basic``.
"""),
    cfg.ListOpt('http_basic_admin_users', default=['admin'],
                help="""
Users of ``http_basic_auth_user_file`` who get the admin role (placement is
an admin API: other users are refused by the default policy).
"""),
    cfg.BoolOpt('randomize_allocation_candidates', default=False,
                help="""
When a ``limit`` cuts the allocation candidates, return a random sample
instead of the first ones, so that concurrent schedulers spread their
claims instead of racing for the same providers.
"""),
    cfg.IntOpt('max_allocation_candidates', default=-1, min=-1,
               help="""
Upper bound on allocation candidates generated for one request before the
``limit`` is applied; -1 means no bound.
"""),
]


def register_opts(conf):
    conf.register_group(placement_api_group)
    conf.register_opts(placement_api_opts, group=placement_api_group)


def list_opts():
    return [(placement_api_group, placement_api_opts)]
