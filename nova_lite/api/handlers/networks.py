"""The deprecated network proxies: ``os-networks``, ``os-tenant-networks``.

In Nova these list the networks of the network service (Neutron) a
project can see, up to 2.35 (404 from 2.36); creating, deleting and
associating networks went with nova-network and answer 410. nova_lite has
no network service, so it has no networks: the lists are empty and every
id is 404, as a Nova whose Neutron has none. Reading needs the
project reader role (or admin).
"""

import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util

MAX_PROXY_VERSION = '2.35'


def _list(req, rule):
    policy.authorize(util.context(req), rule)
    return util.json_response({'networks': []})


def _show(req, rule):
    policy.authorize(util.context(req), rule)
    raise webob.exc.HTTPNotFound('Network not found')


def _gone(req):
    """nova-network's writes, removed in Nova 21 (410 at any version)."""
    raise webob.exc.HTTPGone()


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_networks(req):
    """GET /os-networks."""
    return _list(req, 'os-networks:list')


@microversion.require(max_version=MAX_PROXY_VERSION)
def show_network(req):
    """GET /os-networks/{network_id}."""
    return _show(req, 'os-networks:show')


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_tenant_networks(req):
    """GET /os-tenant-networks."""
    return _list(req, 'os-tenant-networks:list')


@microversion.require(max_version=MAX_PROXY_VERSION)
def show_tenant_network(req):
    """GET /os-tenant-networks/{network_id}."""
    return _show(req, 'os-tenant-networks:show')


create_network = _gone
delete_network = _gone
network_action = _gone
