"""The image service's policy: its default rules and their enforcer.

The rule names are the ones nova-lite-api has always used for images
(``os_compute_api:images:list``, ``os_compute_api:images:write``), so a
policy file written for them keeps working; who sees and changes which
image beyond these rules is Glance's logic (:mod:`.service`). The compute
API's image proxy (``/v2.1/images``) is held to the same rules, through
:mod:`.interface`.
"""

from nova_lite.wsgi import policy as wsgi_policy

# (name, check rule, description, [(method, path)])
_RULES = [
    ('images:list', 'any_reader', 'List and show images, their data '
     'and members (Glance decides which images each caller sees)',
     [('GET', '/image/v2/images'), ('GET', '/image/v2/images/{id}')]),
    ('images:write', 'any_member', 'Create, update, upload, tag, share '
     'and delete images (owners only, as in Glance)',
     [('POST', '/image/v2/images'), ('PATCH', '/image/v2/images/{id}'),
      ('DELETE', '/image/v2/images/{id}')]),
    ('images:tasks', 'admin_api', "Glance's tasks API: list, show and "
     'create tasks (admins only, as Glance\'s tasks_api_access); an '
     "image's own tasks are seen by whoever sees the image",
     [('GET', '/image/v2/tasks'), ('GET', '/image/v2/tasks/{id}'),
      ('POST', '/image/v2/tasks')]),
    ('images:metadefs:write', 'admin_api', 'Create, change and delete '
     'metadata definitions (admins only, as in Glance); anyone reads the '
     'public ones',
     [('POST', '/image/v2/metadefs/namespaces'),
      ('PUT', '/image/v2/metadefs/namespaces/{namespace}'),
      ('DELETE', '/image/v2/metadefs/namespaces/{namespace}')]),
    ('images:cache:list', 'admin_api', "List the image cache (Glance's "
     'cache_list, admins only)', [('GET', '/image/v2/cache')]),
    ('images:cache:image', 'admin_api', "Queue an image for caching "
     "(Glance's cache_image, admins only)",
     [('PUT', '/image/v2/cache/{image_id}')]),
    ('images:cache:delete', 'admin_api', "Delete an image from the "
     "cache, or clear the cache (Glance's cache_delete, admins only)",
     [('DELETE', '/image/v2/cache/{image_id}'),
      ('DELETE', '/image/v2/cache')]),
]


def list_rules():
    return wsgi_policy.BASE_RULES + wsgi_policy.documented(_RULES)


_POLICY = wsgi_policy.Policy(list_rules)

check = _POLICY.check
authorize = _POLICY.authorize
