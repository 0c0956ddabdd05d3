"""/servers/{server_id}/os-server-password: the guest's encrypted
password as its metadata service stored it.

The password lives in the instance's ``system_metadata['password']``;
nova_lite has no metadata service, so it is empty unless something set
it. DELETE clears it (204) and does not change the guest's password,
as in Nova.
"""

from nova_lite.api.compute import server_edits
from nova_lite.api.handlers import servers
from nova_lite.api import util

KEY = 'password'


def show_password(req):
    """GET: ``{"password": ""}`` unless one is stored."""
    server = servers.get_server(req, req.urlvars['server_id'],
                                'os-server-password:show')
    stored = (server.instance.system_metadata or {}).get(KEY)
    return util.json_response({'password': stored or ''})


def clear_password(req):
    """DELETE: forget the stored password; 204."""
    server = servers.get_server(req, req.urlvars['server_id'],
                                'os-server-password:clear')
    if not server.build_request and server.cell is not None:
        system_metadata = dict(server.instance.system_metadata or {})
        if system_metadata.pop(KEY, None) is not None:
            server_edits.save(util.context(req), server,
                              {'system_metadata': system_metadata})
    return util.no_content()
