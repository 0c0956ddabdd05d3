"""The network service nova-lite-api serves under ``/network``.

A small but real network service in Neutron's v2.0 API shapes: networks,
subnets (allocation pools, gateway), ports (fixed IPs allocated from their
subnets), security groups and rules (a ``default`` group per project,
made on first use as Neutron does) and floating IPs on external
networks. Resources live in the API database
(:mod:`.objects`); nothing is wired: no namespaces, no
DHCP, no packets, which fake guests do not need. It has its own route
table (:mod:`.router`), handlers (:mod:`.handlers`) and error format
(:mod:`.errors`); nova-lite-api's deploy mounts it next to the compute
API. The compute API uses it only through :mod:`.interface`, as Nova uses
Neutron: the ports of a server, its addresses and security groups.
"""
