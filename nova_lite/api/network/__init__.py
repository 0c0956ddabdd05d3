"""The network service nova-lite-api serves under ``/network``.

A small but real network service in Neutron's v2.0 API shapes: networks,
subnets (allocation pools, gateway), ports (fixed IPs allocated from their
subnets), security groups and rules (a ``default`` group per project,
made on first use as Neutron does) and floating IPs on external
networks. Resources live in the API database
(:mod:`nova_lite.objects.network`); nothing is wired: no namespaces, no
DHCP, no packets, which fake guests do not need. The compute API uses it
as Nova uses Neutron: the ports of a server, its addresses and security
groups (:mod:`.compute`).
"""
