"""Print the default policy as a commented YAML sample.

``python -m nova_lite.api.policies > etc/nova-lite/api-policy.yaml.sample``
"""

from nova_lite.api import policies

print(policies.sample_yaml(), end='')
