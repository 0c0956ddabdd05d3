"""Options in [wsgi]: how both REST servers hold their clients' connections.

nova-lite-api and nova-lite-placement run the same gunicorn settings
(``nova_lite.wsgi.server``); what concerns the HTTP connections, rather
than either API, is set here once for both.
"""

from oslo_config import cfg

wsgi_group = cfg.OptGroup('wsgi', title='REST servers', help="""
Connection handling shared by nova-lite-api and nova-lite-placement.
""")

wsgi_opts = [
    cfg.IntOpt('keep_alive_timeout', default=30, min=0, help="""
Seconds an idle client connection is kept open for its next request
(gunicorn's ``keepalive``); 0 closes every connection after its response.
It must outlast the pauses of the clients that poll: openstacksdk's
``--wait`` polls every 2 seconds, and a server closing an idle connection
just as the client sends its next request on it makes that request fail
("Remote end closed connection without response"). gunicorn's own default
(2 seconds) is exactly that race.
"""),
]


def register_opts(conf):
    conf.register_group(wsgi_group)
    conf.register_opts(wsgi_opts, group=wsgi_group)


def list_opts():
    return [(wsgi_group, wsgi_opts)]
