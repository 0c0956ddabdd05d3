"""Policy rules of every placement resource family.

Rules are data: (name, description, [(method, path)], check string). They
are gathered in one module because each family is only a few lines.
"""

from nova_lite.placement.policies import base

RP = '/resource_providers/{uuid}'

_RULES = [
    ('placement:resource_providers:list', 'List resource providers.',
     [('GET', '/resource_providers')]),
    ('placement:resource_providers:create', 'Create a resource provider.',
     [('POST', '/resource_providers')]),
    ('placement:resource_providers:show', 'Show a resource provider.',
     [('GET', RP)]),
    ('placement:resource_providers:update', 'Update a resource provider.',
     [('PUT', RP)]),
    ('placement:resource_providers:delete', 'Delete a resource provider.',
     [('DELETE', RP)]),
    ('placement:resource_providers:inventories:list',
     'List the inventories of a provider.', [('GET', RP + '/inventories')]),
    ('placement:resource_providers:inventories:create',
     'Create one inventory.', [('POST', RP + '/inventories')]),
    ('placement:resource_providers:inventories:show', 'Show one inventory.',
     [('GET', RP + '/inventories/{resource_class}')]),
    ('placement:resource_providers:inventories:update',
     'Replace or update inventories.',
     [('PUT', RP + '/inventories'),
      ('PUT', RP + '/inventories/{resource_class}')]),
    ('placement:resource_providers:inventories:delete',
     'Delete inventories.',
     [('DELETE', RP + '/inventories'),
      ('DELETE', RP + '/inventories/{resource_class}')]),
    ('placement:resource_providers:aggregates:list',
     'List the aggregates of a provider.', [('GET', RP + '/aggregates')]),
    ('placement:resource_providers:aggregates:update',
     'Replace the aggregates of a provider.', [('PUT', RP + '/aggregates')]),
    ('placement:resource_providers:usages', 'Show the usages of a provider.',
     [('GET', RP + '/usages')]),
    ('placement:resource_providers:allocations:list',
     'List the allocations against a provider.',
     [('GET', RP + '/allocations')]),
    ('placement:allocations:list', 'Show the allocations of a consumer.',
     [('GET', '/allocations/{consumer_uuid}')]),
    ('placement:allocations:manage', 'Write allocations of several consumers.',
     [('POST', '/allocations')]),
    ('placement:allocations:update', 'Write the allocations of a consumer.',
     [('PUT', '/allocations/{consumer_uuid}')]),
    ('placement:allocations:delete', 'Delete the allocations of a consumer.',
     [('DELETE', '/allocations/{consumer_uuid}')]),
    ('placement:traits:list', 'List traits.', [('GET', '/traits')]),
    ('placement:traits:show', 'Check that a trait exists.',
     [('GET', '/traits/{name}')]),
    ('placement:traits:update', 'Create a custom trait.',
     [('PUT', '/traits/{name}')]),
    ('placement:traits:delete', 'Delete a custom trait.',
     [('DELETE', '/traits/{name}')]),
    ('placement:resource_providers:traits:list',
     'List the traits of a provider.', [('GET', RP + '/traits')]),
    ('placement:resource_providers:traits:update',
     'Replace the traits of a provider.', [('PUT', RP + '/traits')]),
    ('placement:resource_providers:traits:delete',
     'Remove every trait of a provider.', [('DELETE', RP + '/traits')]),
    ('placement:resource_classes:list', 'List resource classes.',
     [('GET', '/resource_classes')]),
    ('placement:resource_classes:create', 'Create a custom resource class.',
     [('POST', '/resource_classes')]),
    ('placement:resource_classes:show', 'Show a resource class.',
     [('GET', '/resource_classes/{name}')]),
    ('placement:resource_classes:update',
     'Create or rename a custom resource class.',
     [('PUT', '/resource_classes/{name}')]),
    ('placement:resource_classes:delete', 'Delete a custom resource class.',
     [('DELETE', '/resource_classes/{name}')]),
    ('placement:allocation_candidates:list', 'List allocation candidates.',
     [('GET', '/allocation_candidates')]),
    ('placement:nova_lite:capacity',
     'Every provider with inventories, usages, traits and aggregates '
     '(nova_lite extension, for the dashboard).',
     [('GET', '/nova_lite/capacity'),
      ('GET', '/nova_lite/capacity/fingerprint'),
      ('GET', '/nova_lite/capacity/usages')]),
]

# Readable by a reader of the project the request names.
_PROJECT_READER = [
    ('placement:usages', 'Show usages of a project or user.',
     [('GET', '/usages')]),
]

_SERVICE_ONLY = [
    ('placement:reshaper:reshape',
     'Reshape inventories and allocations atomically.',
     [('POST', '/reshaper')]),
]


def rules():
    return ([base.rule(*r) for r in _RULES] +
            [base.rule(*r, check_str=base.ADMIN_OR_PROJECT_READER_OR_SERVICE)
             for r in _PROJECT_READER] +
            [base.rule(*r, check_str=base.SERVICE) for r in _SERVICE_ONLY])
