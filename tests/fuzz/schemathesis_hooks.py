"""schemathesis hooks of the OpenAPI phase (``SCHEMATHESIS_HOOKS``).

The image service takes an image update as a JSON patch under Glance's
own media types; schemathesis serializes them as the JSON they are.
"""

import schemathesis

schemathesis.serializer.alias(
    ['application/openstack-images-v2.1-json-patch',
     'application/openstack-images-v2.0-json-patch'], 'application/json')
