"""os-quota-class-sets/{id} (admins): the limits of a quota class.

Only the class ``default`` means anything, as in Nova: its limits
override the ``[quota]`` defaults for every project (see
``nova_lite.api.quota``). A class shows, per resource, its own limit or
the default. The keys follow the microversion as Nova's do: the legacy
network quotas (always -1) until 2.50, ``server_groups`` and
``server_group_members`` from 2.50, the injected-file quotas until 2.57.
The PUT answer carries no ``id``.
"""

import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api.schemas import common
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import conf as nl_conf
from nova_lite.objects import quota_classes

CONF = nl_conf.CONF

# API resource -> [quota] option (None: a legacy network quota, -1).
RESOURCES = {
    'instances': 'instances', 'cores': 'cores', 'ram': 'ram',
    'floating_ips': None, 'fixed_ips': None,
    'metadata_items': 'metadata_items', 'injected_files': 'injected_files',
    'injected_file_content_bytes': 'injected_file_content_bytes',
    'injected_file_path_bytes': 'injected_file_path_length',
    'security_groups': None, 'security_group_rules': None,
    'key_pairs': 'key_pairs', 'server_groups': 'server_groups',
    'server_group_members': 'server_group_members',
}
_NETWORK = ('floating_ips', 'fixed_ips', 'security_groups',
            'security_group_rules')
_FILES = ('injected_files', 'injected_file_content_bytes',
          'injected_file_path_bytes')
_GROUPS = ('server_groups', 'server_group_members')


def class_limits(context, class_name):
    """{API resource: limit} of the class (its own, else the default)."""
    own = quota_classes.get_all_by_name(context, class_name)
    return {name: own.get(name, -1 if option is None
                          else getattr(CONF.quota, option))
            for name, option in RESOURCES.items()}


def _keys(req):
    if microversion.at_least(req, '2.57'):
        hidden = _NETWORK + _FILES
    elif microversion.at_least(req, '2.50'):
        hidden = _NETWORK
    else:
        hidden = _GROUPS
    return [name for name in RESOURCES if name not in hidden]


def _view(req, limits, class_name=None):
    body = {'id': class_name} if class_name is not None else {}
    body.update({name: limits[name] for name in _keys(req)})
    return util.json_response({'quota_class_set': body})


def show_quota_class(req):
    """GET: the class's limits, with its ``id``."""
    context = util.context(req)
    policy.authorize(context, 'os-quota-class-sets:show')
    class_name = req.urlvars['class_name']
    return _view(req, class_limits(context, class_name), class_name)


def update_quota_class(req):
    """PUT: set some limits of the class; 200 with all of them."""
    context = util.context(req)
    policy.authorize(context, 'os-quota-class-sets:update')
    class_name = req.urlvars['class_name']
    if not 1 <= len(class_name) <= 255:
        raise webob.exc.HTTPBadRequest(
            'quota_class_name has a length of %d; it must be 1 to 255 '
            'characters.' % len(class_name))
    # Every value is checked before any is written (a 400 changes nothing).
    wanted = {name: validation.integer(name, value) for name, value in
              validation.body(req, update_schema(req))[
                  'quota_class_set'].items()}
    for name, value in wanted.items():
        quota_classes.set_limit(context, class_name, name, value)
    return _view(req, class_limits(context, class_name))


def update_schema(req):
    """The body schema of PUT at ``req``'s version."""
    return common.wrapped('quota_class_set', common.obj(
        {name: common.QUOTA_LIMIT for name in _update_keys(req)}))


def _update_keys(req):
    """What a PUT may set: every resource until 2.50, as the schemas of
    Nova allow (server groups included)."""
    if microversion.at_least(req, '2.50'):
        return _keys(req)
    return list(RESOURCES)
