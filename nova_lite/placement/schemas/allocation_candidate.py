"""Query string rules of GET /allocation_candidates, by microversion.

The query has request-wide keys and per-group keys (``resources``,
``required``, ``member_of``, ``in_tree``, each optionally followed by a
group suffix). The tables below say from which version each one exists
and whether it may be repeated; the handler checks them in this order.
"""

import re

# key: (first version, repeatable from version or None)
GROUP_KEYS = {
    'resources': ((1, 10), None),
    'required': ((1, 17), (1, 39)),
    'member_of': ((1, 21), (1, 24)),
    'in_tree': ((1, 31), None),
}
REQUEST_KEYS = {
    'limit': ((1, 16), None),
    'group_policy': ((1, 25), None),
    'root_required': ((1, 35), None),
    'same_subtree': ((1, 36), (1, 36)),
}
GROUP_KEY = re.compile(r'^(resources|required|member_of|in_tree)(.*)$')
GRANULAR_VERSION = (1, 25)
# Suffixes: digits until 1.32, then 1-64 of [a-zA-Z0-9_-].
SUFFIX_V1_25 = re.compile(r'^[0-9]+$')
SUFFIX_V1_33 = re.compile(r'^[a-zA-Z0-9_-]{1,64}$')
STRING_SUFFIX_VERSION = (1, 33)
RESOURCELESS_VERSION = (1, 36)
GROUP_POLICIES = ('none', 'isolate')
TRAIT_NAME = re.compile(r'^[A-Z0-9_]+$')
