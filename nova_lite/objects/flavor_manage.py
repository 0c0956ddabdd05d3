"""Managing flavors: list, create, describe, delete, extra specs, access.

Reading one flavor is :meth:`nova_lite.objects.flavor.Flavor.get_by_flavor_id`;
what only the API does with flavors (os-flavor-manage, os-extra_specs,
os-flavor-access) is here, answering with :class:`Flavor` objects. Which
projects may use a private flavor is not part of a Flavor (it does not
travel with one), so :func:`get_with_projects` returns it beside.
"""

from nova_lite.db.api import api as api_db
from nova_lite.objects import flavor as flavor_obj


def get_all(context, is_public=None, project_id=None, include_disabled=True,
            min_memory_mb=None, min_root_gb=None):
    """Flavors by memory then flavorid; see ``flavor_get_all``."""
    rows = api_db.flavor_get_all(
        context, is_public=is_public, project_id=project_id,
        include_disabled=include_disabled, min_memory_mb=min_memory_mb,
        min_root_gb=min_root_gb)
    return [flavor_obj.Flavor.from_db_row(context, row) for row in rows]


def get_with_projects(context, flavorid):
    """(flavor, the projects it is shared with) (FlavorNotFound)."""
    row = api_db.flavor_get_by_flavor_id(context, flavorid)
    return flavor_obj.Flavor.from_db_row(context, row), list(row.projects)


def create(context, values):
    """A new flavor from its columns (FlavorExists on a taken name/id)."""
    row = api_db.flavor_create(context, values)
    return flavor_obj.Flavor.get_by_flavor_id(context, row.flavorid)


def update(context, flavorid, values):
    """Change a flavor's own columns (the description); the flavor."""
    row = api_db.flavor_update(context, flavorid, values)
    return flavor_obj.Flavor.get_by_flavor_id(context, row.flavorid)


def destroy(context, flavorid):
    """Delete a flavor with its extra specs and access (FlavorNotFound)."""
    api_db.flavor_destroy(context, flavorid)


def update_extra_specs(context, flavorid, extra_specs):
    """Add or replace extra specs; the flavor's whole spec dict."""
    return api_db.flavor_extra_specs_update(context, flavorid, extra_specs)


def delete_extra_spec(context, flavorid, key):
    """Drop one extra spec (NotFound when the flavor has no ``key``)."""
    api_db.flavor_extra_spec_delete(context, flavorid, key)


def add_project(context, flavorid, project_id):
    """Share a private flavor (Conflict when shared already)."""
    api_db.flavor_add_project(context, flavorid, project_id)


def remove_project(context, flavorid, project_id):
    """Unshare a flavor (NotFound when it was not shared)."""
    api_db.flavor_remove_project(context, flavorid, project_id)
