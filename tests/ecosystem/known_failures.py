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
    ('block storage', 'no block storage: nova_lite has no volume service '
     "(python-openstackclient's quota tests read the volume quotas, "
     "snapshots and backups among them; openstacksdk's cloud compute "
     "tests clean up by listing the server's volumes, which needs one in "
     "the catalog)", [
        OSC + r'common\.test_extension\.ExtensionTests\.'
        r'test_extension_list_volume',
        OSC + r'common\.test_quota\.QuotaTests\.test_quota_(list_volume_'
        r'option|set_default|set_project)',
        SDK + r'cloud\.test_compute\.TestCompute\.test_('
        r'create_image_snapshot_wait_active|get_compute_usage|'
        r'list_all_servers|set_and_delete_metadata)',
    ]),
    ('consoles', 'no consoles: the fake driver keeps no console log '
     "(501), and the test's clean-up lists the server's volumes", [
        SDK + r'cloud\.test_compute\.TestCompute\.test_get_server_console'
        r'(_name_or_id)?',
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
