"""Quota limits a project (or a user in it) has set, in the API database.

Only the overrides live here; the defaults are ``[quota]`` options and
usage is counted where the resources are (see ``nova_lite.api.quota``).
"""

from nova_lite.db.api import group_api


def get_all_by_project(context, project_id):
    """{resource: hard limit} the project set."""
    return group_api.quota_get_all_by_project(context, project_id)


def get_all_by_project_and_user(context, project_id, user_id):
    """{resource: hard limit} set for the user within the project."""
    return group_api.quota_get_all_by_project_and_user(context, project_id,
                                                       user_id)


def set_limit(context, project_id, resource, hard_limit, user_id=None):
    """Create or change a project (or project user) limit."""
    group_api.quota_set(context, project_id, resource, hard_limit,
                        user_id=user_id)


def destroy_all_by_project(context, project_id, user_id=None):
    """Forget the project's (or only that user's) limits."""
    group_api.quota_destroy_all_by_project(context, project_id,
                                           user_id=user_id)
