"""GET /servers/{server_id}/topology (2.78): a server's NUMA topology.

nova_lite's servers have no NUMA topology (no flavor or image asks for
one, the fake driver pins nothing), so the answer is Nova's for such a
server: ``{"nodes": [], "pagesize_kb": null}``. Nova's two policy rules
are registered under Nova's names: ``compute:server:topology:index``
(the owner's readers, or admins) reads the topology, and
``compute:server:topology:host:index`` (admins) would add each node's
host NUMA node and CPU pinning, which a server without nodes never
shows.
"""

from nova_lite.api.handlers import servers
from nova_lite.api import microversion
from nova_lite.api import util

MIN_VERSION = '2.78'
RULE = 'compute:server:topology:index'


@microversion.require(MIN_VERSION)
def show_topology(req):
    """GET: 200 with the topology; 404 for a server the caller cannot
    see."""
    servers.get_server(req, req.urlvars['server_id'], RULE)
    return util.json_response({'nodes': [], 'pagesize_kb': None})
