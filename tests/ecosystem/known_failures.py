"""The known failures of doc/ecosystem-suites.md, grouped by what the lab
lacks.

Each feature has a one-line reason and its entries: regexes matched
against the whole test id (without its ``[...]`` attributes; a class
fixture's id as its class). A test on the list still
runs: when it fails it is reported by name as a known failure and
counted as skipped; when it passes it is reported so that its entry
leaves the list. Any other failure fails the run. The count after each
feature's name in the report is what building that feature would turn
into passes (or into failures to look at).
"""

import re

SDK = r'openstack\.tests\.functional\.'
OSC = r'openstackclient\.tests\.functional\.'

# (feature the lab lacks, why its tests fail, [test id regexes]), the
# feature costing the most tests first.
KNOWN = (
    ('routers', 'no routers (/v2.0/routers): the floating IP tests make '
     'one in their set-up', [
        SDK + r'cloud\.test_network\.TestFloatingIP\..*',
        SDK + r'cloud\.test_network\.TestRouter\..*',
        SDK + r'network\.v2\.test_floating_ip\.TestFloatingIP\..*',
        SDK + r'network\.v2\.test_router\.TestRouter\..*',
        SDK + r'network\.v2\.test_router_add_remove_interface\..*',
        OSC + r'network\.v2\.test_router\..*',
        OSC + r'network\.v2\.test_floating_ip\.FloatingIpTests\.'
        r'test_floating_ip_set_and_unset_port',
        # the port that test left keeps its network from being deleted
        OSC + r'network\.v2\.test_floating_ip\.FloatingIpTests',
    ]),
    ('tags', 'no tags on network resources (their /tags sub-resources)', [
        SDK + r'network\.v2\.test_\w+\.Test\w+\.'
        r'test_(add_tags?|get_tags|remove_all_tags|remove_tag|set_tags)',
        OSC + r'network\.v2\.test_\w+\.\w+\.test_tag_operation',
    ]),
    ('image metadefs', 'no metadata definitions (/v2/metadefs and their '
     'schemas)', [
        SDK + r'image\.v2\.test_metadef_\w+\..*',
        OSC + r'image\.v2\.test_metadef_\w+\..*',
    ]),
    ('server network choice', "a server made without naming a network "
     "gets 409 'Multiple possible networks': the admin's external public "
     "network counts among the demo project's (Nova offers a project its "
     "own and the shared networks only)", [
        SDK + r'cloud\.test_compute\.TestCompute\.test_create_\w+',
        SDK + r'cloud\.test_compute\.TestCompute\.test_get_compute_usage',
        SDK + r'cloud\.test_compute\.TestCompute\.test_get_server_console'
        r'(_name_or_id)?',
        SDK + r'cloud\.test_compute\.TestCompute\.test_list_all_servers',
        SDK + r'cloud\.test_compute\.TestCompute\.test_set_and_delete_'
        r'metadata',
        SDK + r'cloud\.test_compute\.TestCompute\.test_update_server',
    ]),
    ('subnet pools', 'no subnet pools (/v2.0/subnetpools)', [
        SDK + r'network\.v2\.test_subnet_from_subnet_pool\..*',
        SDK + r'network\.v2\.test_subnet_pool\..*',
        OSC + r'network\.v2\.test_subnet_pool\..*',
        # expects the default-subnetpools extension in the list
        OSC + r'common\.test_extension\.ExtensionTests\.'
        r'test_extension_list_network',
    ]),
    ('network flavors', 'no network flavors or service profiles '
     '(/v2.0/flavors, /v2.0/service_profiles)', [
        OSC + r'network\.v2\.test_network_flavor(_profile)?\..*',
    ]),
    ('address scopes', 'no address scopes (/v2.0/address-scopes)', [
        SDK + r'network\.v2\.test_address_scope\..*',
        OSC + r'network\.v2\.test_address_scope\..*',
    ]),
    ('image schemas', 'no image schemas (/v2/schemas/image, images, '
     'member, members)', [
        SDK + r'image\.v2\.test_schema\..*',
    ]),
    ('network quotas', 'no network quotas (/v2.0/quotas)', [
        SDK + r'cloud\.test_network\.TestNetworkQuotas\..*',
        SDK + r'network\.v2\.test_quota\..*',
        OSC + r'common\.test_quota\.QuotaTests\.test_quota_(list_network_'
        r'option|set_default|set_project|show|show_usage_option)',
    ]),
    ('IP availability', 'no IP availability '
     '(/v2.0/network-ip-availabilities)', [
        OSC + r'network\.v2\.test_ip_availability\..*',
    ]),
    ('image tasks', 'no image tasks (/v2/tasks)', [
        SDK + r'image\.v2\.test_task\..*',
    ]),
    ('image cache', 'no image cache API (/v2/cache)', [
        OSC + r'image\.v2\.test_cache\..*',
    ]),
    ('image import', 'no image import discovery (/v2/info/import)', [
        OSC + r'image\.v2\.test_info\.InfoTests\.test_image_import_info',
    ]),
    ('network availability zones', 'no availability zones '
     '(/v2.0/availability_zones)', [
        SDK + r'network\.v2\.test_availability_zone\..*',
    ]),
    ('service providers', 'no service providers '
     '(/v2.0/service-providers)', [
        SDK + r'network\.v2\.test_service_provider\..*',
    ]),
    ('block storage', 'no block storage: nova_lite has no volume service',
     [
        OSC + r'common\.test_extension\.ExtensionTests\.'
        r'test_extension_list_volume',
        OSC + r'common\.test_quota\.QuotaTests\.test_quota_list_volume_'
        r'option',
    ]),
)


def _compiled():
    return [(feature, re.compile(pattern), reason)
            for feature, reason, patterns in KNOWN for pattern in patterns]


_RULES = _compiled()


def match(test_id):
    """(feature, reason) of the entry ``test_id`` is on, or None."""
    fixture = re.match(r'^\w+ \((.+)\)$', test_id)
    bare = fixture.group(1) if fixture else test_id.split('[', 1)[0]
    for feature, pattern, reason in _RULES:
        if pattern.fullmatch(bare):
            return feature, reason
    return None
