"""Options in [glance]: how the computes reach the image service.

This is the client side, used by the computes to store server snapshots
(as Nova's computes talk to Glance). The image service itself is served by
nova-lite-api under ``/image`` (see [image_catalog]).
"""

from oslo_config import cfg

glance_group = cfg.OptGroup('glance', title='Image service client', help="""
How the computes talk to the image API of nova-lite-api (``/image``).
""")

glance_opts = [
    cfg.URIOpt('endpoint', default='http://127.0.0.1:8774/image',
               help='Base URL of the image API (the ``/image`` of '
                    'nova-lite-api, without ``/v2``).'),
    cfg.StrOpt('auth_type', default='token',
               choices=[('token', 'Send ``token`` as X-Auth-Token.'),
                        ('http_basic', 'Send ``username``/``password`` as '
                         'HTTP basic authentication.'),
                        ('password', 'Get a Keystone token for '
                         '``username``/``password`` in ``project_name`` '
                         'from ``auth_url`` and send it.')],
               help='How requests to the image API authenticate.'),
    cfg.StrOpt('token', default='admin', secret=True,
               help='Token sent when ``auth_type = token``.'),
    cfg.StrOpt('username',
               help='User for ``auth_type = http_basic`` or ``password``.'),
    cfg.StrOpt('password', secret=True,
               help='Password for ``auth_type = http_basic`` or '
                    '``password``.'),
    cfg.URIOpt('auth_url', help='Keystone identity endpoint, used when '
                                '``auth_type = password``.'),
    cfg.StrOpt('project_name',
               help='Project the Keystone token is scoped to '
                    '(``auth_type = password``).'),
    cfg.StrOpt('user_domain_name', default='Default',
               help='Keystone domain of ``username``.'),
    cfg.StrOpt('project_domain_name', default='Default',
               help='Keystone domain of ``project_name``.'),
    cfg.FloatOpt('timeout', default=60.0, min=0.1,
                 help='Seconds to wait for one image API response.'),
]


def register_opts(conf):
    conf.register_group(glance_group)
    conf.register_opts(glance_opts, group=glance_group)


def list_opts():
    return [(glance_group, glance_opts)]
