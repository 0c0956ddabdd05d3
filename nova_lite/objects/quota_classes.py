"""Quota class limits (``default`` overrides the ``[quota]`` defaults),
in the API database; a plain record module like ``quotas``."""

from nova_lite.db.api import quota_class_api


def get_all_by_name(context, class_name):
    """{resource: hard limit} the class sets."""
    return quota_class_api.quota_class_get_all_by_name(context, class_name)


def set_limit(context, class_name, resource, hard_limit):
    """Create or change one limit of the class."""
    quota_class_api.quota_class_set(context, class_name, resource,
                                    hard_limit)


DEFAULT_CLASS = 'default'
# Resource names of the [quota] options that the API names otherwise.
_API_NAMES = {'injected_file_path_length': 'injected_file_path_bytes'}


def default_overrides(context, names):
    """{name: limit} the ``default`` class sets for those of ``names``
    (option or API names) it sets."""
    own = get_all_by_name(context, DEFAULT_CLASS)
    result = {}
    for name in names:
        key = name if name in own else _API_NAMES.get(name)
        if key in own:
            result[name] = own[key]
    return result
