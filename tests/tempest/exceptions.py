"""The exception list of doc/tempest.md: Tempest tests that cannot pass
without a real network service or a real guest, each with its reason.

They run like every other test and are reported by name; a failure of one
of them is counted as skipped (``known failure``) instead of failing the
run, and one that passes is reported so that it leaves the list. Nothing
else may go here: a test that fails for any other reason fails the run.
"""

EXCEPTIONS = {
    'tempest.api.compute.test_networks.ComputeNetworksTest.'
    'test_list_networks':
        'runs only when Tempest is told there is no network service, and '
        'then expects nova-network networks in os-networks; there are '
        'none',
    'tempest.api.compute.servers.test_server_actions.'
    'ServerActionsTestOtherA.test_remove_server_all_security_groups':
        'removeSecurityGroup changes the security groups of the '
        "server's ports on the network service; a server without ports "
        'has none (Nova answers 404 there)',
    'tempest.scenario.test_network_basic_ops.TestNetworkBasicOps.'
    'test_network_basic_ops':
        "pings the server's floating IP from the test host (and needs "
        "the ping command): a fake guest answers no ping, as no guest "
        "of Nova's fake driver does",
}


def reason(test_id):
    """The reason ``test_id`` is on the list, or None."""
    return EXCEPTIONS.get(test_id.split('[', 1)[0])
