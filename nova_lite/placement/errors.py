"""Stable error codes of the placement API.

Every error body carries one of these in ``errors[].code``. Rules: one
symbol per string; never change or reuse a value once released, clients
branch on them.
"""

DEFAULT = 'placement.undefined_code'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
INVENTORY_INUSE = 'placement.inventory.inuse'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
QUERYPARAM_DUPLICATE_KEY = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'
ILLEGAL_DUPLICATE_QUERYPARAM = QUERYPARAM_DUPLICATE_KEY
