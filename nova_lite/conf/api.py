"""Options in [api]: the compute REST API server (nova-lite-api)."""

from oslo_config import cfg

api_group = cfg.OptGroup('api', title='Compute API', help="""
How nova-lite-api listens, authenticates and pages results.
""")

api_opts = [
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address nova-lite-api listens on.'),
    cfg.PortOpt('bind_port', default=8774,
                help='TCP port nova-lite-api listens on.'),
    cfg.IntOpt('workers', default=2, min=1,
               help="""
Number of WSGI worker processes of nova-lite-api.
"""),
    cfg.StrOpt('auth_strategy', default='noauth2',
               choices=[('noauth2', 'No authentication: the token names the '
                         'user and project ("user:project"), the token '
                         '"admin" is an admin. For labs.'),
                        ('http_basic', 'HTTP basic authentication against '
                         '``http_basic_auth_user_file``.'),
                        ('keystone', 'Keystone tokens, checked by '
                         'keystonemiddleware.')],
               help='How API requests are authenticated.'),
    cfg.StrOpt('http_basic_auth_user_file', default='/etc/nova-lite/htpasswd',
               help="""
htpasswd file (bcrypt entries) used when ``auth_strategy = http_basic``.
"""),
    cfg.ListOpt('http_basic_admin_users', default=['admin'],
                help="""
Users of the htpasswd file who are admins when ``auth_strategy =
http_basic``; every other user is a member of its own project.
"""),
    cfg.BoolOpt('create_default_flavors', default=True, help="""
On start, create the default flavors m1.tiny to m1.xlarge (ids 1 to 5)
when the API database has no flavor at all. Off: flavors come only from
``openstack flavor create`` (or ``nova-lite-manage``).
"""),
    cfg.IntOpt('max_limit', default=1000, min=1,
               help="""
Largest number of items a list request returns in one page.
"""),
    cfg.BoolOpt('list_records_by_skipping_down_cells', default=True,
                help="""
Below microversion 2.69, leave out instances of cells that do not answer
(True) instead of failing the request.
"""),
    cfg.BoolOpt('enable_instance_password', default=True, help="""
Return the admin password of a server in the responses that set one
(create, rebuild, evacuate before 2.14), as ``adminPass``: the one given,
or a generated one. The fake driver injects nothing, so the password is
only what the API promises; set False to leave ``adminPass`` out, as for
a hypervisor that cannot inject passwords.
"""),
    cfg.IntOpt('cell_timeout', default=60, min=1,
               help="""
Seconds a scatter-gather read waits for each cell before it counts the cell
as down.
"""),
    cfg.IntOpt('build_cast_retries', default=2, min=0, help="""
How many times nova-lite-api retries to reach the message bus when it casts
a create to the super conductor (oslo.messaging's ``retry``, each attempt
waiting about ``[oslo_messaging_rabbit] rabbit_retry_interval`` more than
the last). When the bus still cannot be reached, the servers are withdrawn
and the request answers 503, within about 10 seconds with the defaults,
instead of holding a worker thread for the whole outage.
"""),
    cfg.FloatOpt('build_cast_timeout', default=6.0, min=0.1, help="""
Seconds a create waits for its cast to the super conductor. The bounded
retries alone are not a bound in time: a cast may wait for a connection of
the pool, or for a TCP connect to a broker that does not answer. Past this,
the servers are withdrawn and the request answers 503, as when the retries
are exhausted; a cast that gets through later finds no build request, and
the conductor drops it (as for a server deleted before it was scheduled).
"""),
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts():
    return [(api_group, api_opts)]
