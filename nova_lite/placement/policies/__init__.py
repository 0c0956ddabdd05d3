"""All placement policy rules, one module per URL family.

Names follow ``placement:<resource>:<action>``; :func:`list_rules` feeds the
enforcer and oslo-policy-sample-generator.
"""

import itertools

from nova_lite.placement.policies import base
from nova_lite.placement.policies import resources


def list_rules():
    return list(itertools.chain(base.rules(), resources.rules()))
