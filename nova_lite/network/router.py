"""The network service's route table: Neutron v2.0 under ``/network``.

Path -> {method: handler}; nova-lite-api's deploy mounts it next to the
compute API's, with :data:`ERRORS` rendering every error under
``/network`` as Neutron does. A known path asked with another method is
a 405 and a trailing slash is ignored, as in Neutron.

Each feature has its block below: its routes, the Neutron extensions it
serves (:mod:`.extensions` lists them) and, for a collection, its
registration with :mod:`.tags`. The tag and extension routes come last,
made from what the blocks registered.
"""

from nova_lite.network import agents
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import extensions
from nova_lite.network import flavors
from nova_lite.network import handlers
from nova_lite.network import ip_availability
from nova_lite.network import networks
from nova_lite.network import openapi
from nova_lite.network import ports
from nova_lite.network import providers
from nova_lite.network import qos
from nova_lite.network import quotas
from nova_lite.network import rbac
from nova_lite.network import routers
from nova_lite.network import secgroups
from nova_lite.network import subnetpools
from nova_lite.network import tags
from nova_lite.network import trunks
from nova_lite.network import zones
from nova_lite.wsgi import openapi as wsgi_openapi
from nova_lite.wsgi import util

PREFIX = '/network'
ERRORS = errors.ERRORS

# -- networks, subnets, ports, security groups, floating IPs.
ROUTES = handlers.routes(PREFIX)
for _alias, _name, _text in handlers.EXTENSIONS:
    extensions.register(_alias, _name, _text)
tags.register('networks', 'network', networks.get_network)
tags.register('subnets', 'subnet', networks.get_subnet)
tags.register('ports', 'port', ports.get_port)
tags.register('security-groups', secgroups.SG,
              lambda context, uuid: common.get(context, secgroups.SG, uuid))
tags.register('floatingips', 'floatingip', ports.stored_floatingip)

# -- routers (the L3 extension): their interface actions; the collection
# and its extensions are among the handlers' above.
for _action in ('add_router_interface', 'remove_router_interface'):
    ROUTES['%s/v2.0/routers/{id}/%s' % (PREFIX, _action)] = {
        'PUT': handlers.router_interface}
for _action in ('add_extraroutes', 'remove_extraroutes'):
    ROUTES['%s/v2.0/routers/{id}/%s' % (PREFIX, _action)] = {
        'PUT': handlers.router_extraroutes}
tags.register('routers', 'router', routers.stored_router)
# an admin's ``ha`` flag (seen by admins only), and the providers' ``ha``
extensions.register('l3-ha', 'HA Router extension',
                    'Adds HA capability to routers.')

# -- quotas and quota_details.
ROUTES.update(quotas.routes(PREFIX))
extensions.register('quotas', 'Quota management support',
                    'Expose functions for quotas management per tenant')
extensions.register('quota_details', 'Quota details management support',
                    'Expose functions for quotas usage statistics per '
                    'project')
extensions.register('quota-check-limit', 'Quota engine limit check',
                    'Support for checking the resource usage before '
                    'applying a new quota limit')

# -- subnet pools and address scopes.
handlers.register('subnetpools', subnetpools.POOL, subnetpools.list_pools,
                  subnetpools.get_pool, subnetpools.create_pool,
                  subnetpools.update_pool, subnetpools.delete_pool)
handlers.register('address-scopes', subnetpools.SCOPE,
                  subnetpools.list_scopes, subnetpools.get_scope,
                  subnetpools.create_scope, subnetpools.update_scope,
                  subnetpools.delete_scope)
ROUTES.update(handlers.collection_routes(PREFIX, 'subnetpools'))
ROUTES.update(handlers.collection_routes(PREFIX, 'address-scopes'))
tags.register('subnetpools', subnetpools.POOL, subnetpools.get_pool)
tags.register('address-scopes', subnetpools.SCOPE, subnetpools.get_scope)
extensions.register('subnet_allocation', 'Subnet Allocation',
                    'Enables allocation of subnets from a subnet pool')
extensions.register('address-scope', 'Address scope',
                    'Address scopes extension.')
extensions.register('default-subnetpools', 'Default Subnetpools',
                    'Provides ability to mark and use a subnetpool as the '
                    'default.')

# -- network flavors and service profiles.
handlers.register('flavors', flavors.FLAVOR, flavors.list_flavors,
                  flavors.get_flavor, flavors.create_flavor,
                  flavors.update_flavor, flavors.delete_flavor)
handlers.register('service_profiles', flavors.PROFILE,
                  flavors.list_profiles, flavors.get_profile,
                  flavors.create_profile, flavors.update_profile,
                  flavors.delete_profile)
ROUTES.update(handlers.collection_routes(PREFIX, 'flavors'))
ROUTES.update(handlers.collection_routes(PREFIX, 'service_profiles'))
ROUTES.update(flavors.routes(PREFIX))
extensions.register('flavors', 'Neutron Service Flavors',
                    'Flavor specification for Neutron advanced services.')

# -- RBAC policies (networks, subnet pools, address scopes, security
# groups).
handlers.register('rbac-policies', rbac.KIND, rbac.list_policies,
                  rbac.get_policy, rbac.create_policy, rbac.update_policy,
                  rbac.delete_policy)
ROUTES.update(handlers.collection_routes(PREFIX, 'rbac-policies'))
extensions.register('rbac-policies', 'RBAC Policies',
                    'Allows creation and modification of policies that '
                    'control tenant access to resources.')
extensions.register('rbac-subnetpool', 'Add subnetpool RBAC support',
                    'Add subnetpool RBAC support')
extensions.register('rbac-address-scope', 'Add address_scope RBAC support',
                    'Add address_scope RBAC support')
extensions.register('rbac-security-groups', 'Add security_group type to '
                    'network RBAC', 'Add security_group type to network '
                    'RBAC')

# -- trunks and the parent port's trunk_details.
handlers.register('trunks', trunks.KIND, trunks.list_trunks,
                  trunks.get_trunk, trunks.create_trunk,
                  trunks.update_trunk, trunks.delete_trunk)
ROUTES.update(handlers.collection_routes(PREFIX, 'trunks'))
ROUTES.update(trunks.routes(PREFIX))
tags.register('trunks', trunks.KIND, trunks.get_trunk)
extensions.register('trunk', 'Trunk Extension',
                    'Provides support for trunk ports')
extensions.register('trunk-details', 'Trunk port details',
                    'Expose trunk port details')

# -- QoS: policies, their rules (and the rules' aliases), the rule
# types, and the policy networks, ports, floating IPs and router gateways
# carry (their modules take ``qos_policy_id``).
handlers.register(qos.COLLECTION, qos.MEMBER, qos.list_policies,
                  qos.get_policy, qos.create_policy, qos.update_policy,
                  qos.delete_policy)
ROUTES.update(handlers.collection_routes(PREFIX, qos.COLLECTION))
ROUTES.update(qos.routes(PREFIX))
# Neutron's tag routes name the policies' collection without its prefix
# (/v2.0/policies/{id}/tags), as openstacksdk calls them.
tags.register('policies', qos.KIND, qos.stored_policy)
for _alias, _name, _text in (
        ('qos', 'Quality of Service', 'The Quality of Service extension.'),
        ('qos-bw-limit-direction', 'Direction for QoS bandwidth limit rule',
         'Allow to configure QoS bandwidth limit rule with specific '
         'direction: ingress or egress'),
        ('qos-bw-minimum-ingress',
         'Ingress direction for QoS minimum bandwidth rule',
         'Allow to configure QoS minumum bandwidth rule with ingress '
         'direction.'),
        ('qos-default', 'QoS default policy',
         'Expose the QoS default policy per project'),
        ('qos-rule-type-details', 'Details of QoS rule types',
         'Expose details about QoS rule types supported by loaded backend '
         'drivers'),
        ('qos-rule-type-filter', 'Allow to filter the list of QoS rule '
         'types', 'Allows to filter the QoS rule type list adding two new '
         'flags.'),
        ('qos-rules-alias', 'Quality of Service rules alias API',
         'API to enable GET, PUT and DELETE operations on QoS policy rules '
         'without specifying policy ID'),
        ('qos-pps', 'QoS Rule Type Packet per Second Extension',
         'Add QoS Rule Type Packet per Second'),
        ('qos-pps-minimum', 'QoS minimum packet rate rule',
         'Allow to configure QoS minimum packet rate rule.'),
        ('qos-pps-minimum-rule-alias', 'QoS minimum packet rate rule alias',
         'API to enable GET, PUT and DELETE operations on QoS minimum '
         'packet rate rule without specifying policy ID'),
        ('qos-port-network-policy', 'QoS port network policy ID',
         'Adds a the QoS network ID to the port definition'),
        ('qos-fip', 'Floating IP QoS',
         'The floating IP Quality of Service extension'),
        ('qos-gateway-ip', 'Router gateway IP QoS',
         'The Router gateway IP Quality of Service extension')):
    extensions.register(_alias, _name, _text)

# -- agents and what the L3 and DHCP agents host.
ROUTES.update(agents.routes(PREFIX))
extensions.register('agent', 'agent', 'The agent management extension.')
extensions.register('l3_agent_scheduler', 'L3 Agent Scheduler',
                    'Schedule routers among l3 agents')
extensions.register('dhcp_agent_scheduler', 'DHCP Agent Scheduler',
                    'Schedule networks among dhcp agents')

# -- availability zones.
ROUTES.update(zones.routes(PREFIX))
extensions.register('availability_zone', 'Availability Zone',
                    'The availability zone extension.')
extensions.register('network_availability_zone',
                    'Network Availability Zone',
                    'Availability zone support for network.')

# -- network IP availability.
ROUTES.update(ip_availability.routes(PREFIX))
extensions.register('network-ip-availability', 'Network IP Availability',
                    'Provides IP availability data for each network and '
                    'subnet.')

# -- service providers.
ROUTES.update(providers.routes(PREFIX))
extensions.register('service-type', 'Neutron Service Type Management',
                    'API for retrieving service providers for Neutron '
                    'advanced services')

# -- standard-attr-tag over every collection registered above, and the
# extension list.
ROUTES.update(tags.routes(PREFIX))
extensions.register('standard-attr-tag',
                    'Tag support for resources with standard attribute',
                    'Enables to set tag on resources with standard '
                    'attribute.')
ROUTES.update(extensions.routes(PREFIX))

# -- this table's own description (doc/openapi.md), answered without
# credentials.
ROUTES[openapi.PATH] = {'GET': wsgi_openapi.serving_handler(
    lambda: openapi.document(ROUTES),
    lambda req, doc: util.json_response(doc))}
PUBLIC_PATHS = frozenset([openapi.PATH])
