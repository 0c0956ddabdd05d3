"""Print nova-lite-api's default policy as a commented YAML sample.

Every service the process serves (the compute API, the image service,
the dashboard) reads the same policy file, so the sample holds all their
rules: ``python -m nova_lite.api.policies >
etc/nova-lite/api-policy.yaml.sample``
"""

from nova_lite.api import deploy
from nova_lite.wsgi import policy as wsgi_policy

print(wsgi_policy.sample_yaml(deploy.policy_rules()), end='')
