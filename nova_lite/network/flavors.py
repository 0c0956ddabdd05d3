"""Neutron's ``flavors``: network flavors and service profiles.

A flavor names a kind of service an advanced-service plugin offers
(``service_type``, fixed at creation: a loaded service plugin, for the
lab ``L3_ROUTER_NAT`` or ``FLAVORS``); a service profile holds what a
driver of that service would be configured with (``driver``,
``metainfo``); a flavor lists the profiles associated with it
(``service_profiles``) and a profile the flavors it is in
(``flavors``). As in Neutron, admins create, change and delete both,
everyone reads flavors and only admins read profiles (a hidden profile
is a 404, an admin-only write a 403). A profile needs a driver or
metainfo; a driver must be one of the service providers'
(:mod:`.providers`: the L3 ones), as Neutron refuses a driver it has not
loaded. An associated profile cannot be changed or
deleted (409) until it leaves its flavors.
"""

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.network import providers
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)

FLAVOR = 'flavor'
PROFILE = 'service_profile'
# The service plugins a flavor may be for, as Neutron's loaded ones:
# the lab's L3 (routers) and the flavors plugin itself.
SERVICE_TYPES = (providers.L3, 'FLAVORS')
FLAVOR_KEYS = ('name', 'description', 'service_type', 'enabled')
PROFILE_KEYS = ('description', 'driver', 'metainfo', 'enabled')


def _stored(context, kind, uuid):
    try:
        return net_obj.get(context, kind, uuid)
    except exception.NetworkResourceNotFound:
        if kind == FLAVOR:
            raise errors.NeutronError(
                404, 'FlavorNotFound',
                'Flavor %s could not be found.' % uuid)
        raise errors.NeutronError(
            404, 'ServiceProfileNotFound',
            'Service Profile %s could not be found.' % uuid)


def _check_strings(values, limits):
    for name, limit in limits:
        common.check_string(values, name, limit)
    common.check_bool(values, 'enabled')


# -- flavors -----------------------------------------------------------------

def list_flavors(context):
    return net_obj.get_all(context, FLAVOR)


def get_flavor(context, flavor_id):
    return _stored(context, FLAVOR, flavor_id)


def create_flavor(context, values):
    policy.authorize(context, 'create', FLAVOR)
    common.check_keys(values, FLAVOR_KEYS, FLAVOR)
    _check_strings(values, (('name', 255), ('description', 1024),
                            ('service_type', 255)))
    service_type = values.get('service_type')
    if not service_type:
        raise errors.bad_request(
            "Failed to parse request. Required attribute 'service_type' "
            "not specified")
    if service_type not in SERVICE_TYPES:
        raise errors.bad_request(
            'Invalid service type %s.' % service_type,
            'InvalidFlavorServiceType')
    flavor = {'id': uuidutils.generate_uuid(),
              'name': values.get('name', ''),
              'description': values.get('description', ''),
              'service_type': service_type,
              'enabled': values.get('enabled', True),
              'service_profiles': []}
    net_obj.create(context, FLAVOR, flavor)
    LOG.info('Network flavor %s created for %s', flavor['id'],
             service_type)
    return flavor


def update_flavor(context, flavor_id, values):
    flavor = get_flavor(context, flavor_id)
    policy.authorize(context, 'update', FLAVOR)
    common.check_keys(values, ('name', 'description', 'enabled'), FLAVOR)
    _check_strings(values, (('name', 255), ('description', 1024)))
    flavor.update(values)
    net_obj.update(context, FLAVOR, flavor)
    return flavor


def delete_flavor(context, flavor_id):
    get_flavor(context, flavor_id)
    policy.authorize(context, 'delete', FLAVOR)
    net_obj.destroy(context, FLAVOR, flavor_id)
    LOG.info('Network flavor %s deleted', flavor_id)


def associate(context, flavor_id, values):
    """POST /flavors/{id}/service_profiles: add the profile ``values``
    names (``{"id": ...}``) to the flavor."""
    policy.authorize(context, 'create', 'flavor_service_profile')
    flavor = get_flavor(context, flavor_id)
    common.check_keys(values, ('id',), PROFILE)
    profile_id = values.get('id')
    if not isinstance(profile_id, str) or not profile_id:
        raise errors.bad_request(
            "Failed to parse request. Required attribute 'id' not "
            "specified")
    _stored(context, PROFILE, profile_id)
    if profile_id in flavor['service_profiles']:
        raise errors.conflict(
            'FlavorServiceProfileBindingExists',
            'Service Profile %s is already associated with flavor %s.'
            % (profile_id, flavor_id))
    flavor['service_profiles'] = flavor['service_profiles'] + [profile_id]
    net_obj.update(context, FLAVOR, flavor)
    LOG.info('Service profile %s associated with network flavor %s',
             profile_id, flavor_id)
    return {'id': profile_id}


def _bound(context, flavor_id, profile_id):
    flavor = get_flavor(context, flavor_id)
    if profile_id not in flavor['service_profiles']:
        raise errors.NeutronError(
            404, 'FlavorServiceProfileBindingNotFound',
            'Service Profile %s is not associated with flavor %s.'
            % (profile_id, flavor_id))
    return flavor


def show_association(context, flavor_id, profile_id):
    policy.authorize(context, 'get', 'flavor_service_profile')
    _bound(context, flavor_id, profile_id)
    return {'service_profile_id': profile_id, 'flavor_id': flavor_id}


def disassociate(context, flavor_id, profile_id):
    policy.authorize(context, 'delete', 'flavor_service_profile')
    flavor = _bound(context, flavor_id, profile_id)
    flavor['service_profiles'] = [p for p in flavor['service_profiles']
                                  if p != profile_id]
    net_obj.update(context, FLAVOR, flavor)
    LOG.info('Service profile %s disassociated from network flavor %s',
             profile_id, flavor_id)


# -- service profiles --------------------------------------------------------

def _with_flavors(context, profile):
    profile['flavors'] = [f['id'] for f in list_flavors(context)
                          if profile['id'] in f['service_profiles']]
    return profile


def list_profiles(context):
    if not policy.check(context, 'get_service_profile'):
        return []
    return [_with_flavors(context, p)
            for p in net_obj.get_all(context, PROFILE)]


def get_profile(context, profile_id):
    if not policy.check(context, 'get_service_profile'):
        raise errors.NeutronError(
            404, 'ServiceProfileNotFound',
            'Service Profile %s could not be found.' % profile_id)
    return _with_flavors(context, _stored(context, PROFILE, profile_id))


def _check_driver(values):
    if values.get('driver') and values['driver'] not in \
            providers.drivers():
        raise errors.NeutronError(
            404, 'ServiceProfileDriverNotFound',
            'Service Profile driver %s could not be found.'
            % values['driver'])


def create_profile(context, values):
    policy.authorize(context, 'create', PROFILE)
    common.check_keys(values, PROFILE_KEYS, PROFILE)
    _check_strings(values, (('description', 1024), ('driver', 1024),
                            ('metainfo', 4096)))
    _check_driver(values)
    if not (values.get('driver') or values.get('metainfo')):
        raise errors.bad_request(
            'Service Profile needs either a driver or metainfo.',
            'ServiceProfileEmpty')
    profile = {'id': uuidutils.generate_uuid(),
               'description': values.get('description', ''),
               'driver': values.get('driver') or '',
               'metainfo': values.get('metainfo') or '',
               'enabled': values.get('enabled', True)}
    net_obj.create(context, PROFILE, profile)
    LOG.info('Service profile %s created', profile['id'])
    return _with_flavors(context, profile)


def _not_in_use(context, profile):
    if _with_flavors(context, profile)['flavors']:
        raise errors.conflict(
            'ServiceProfileInUse', 'Service Profile %s is used by some '
            'service instance.' % profile['id'])


def update_profile(context, profile_id, values):
    profile = get_profile(context, profile_id)
    policy.authorize(context, 'update', PROFILE)
    common.check_keys(values, PROFILE_KEYS, PROFILE)
    _check_strings(values, (('description', 1024), ('driver', 1024),
                            ('metainfo', 4096)))
    _check_driver(values)
    _not_in_use(context, profile)
    profile.update(values)
    profile.pop('flavors')
    net_obj.update(context, PROFILE, profile)
    return _with_flavors(context, profile)


def delete_profile(context, profile_id):
    profile = get_profile(context, profile_id)
    policy.authorize(context, 'delete', PROFILE)
    _not_in_use(context, profile)
    net_obj.destroy(context, PROFILE, profile_id)
    LOG.info('Service profile %s deleted', profile_id)



# -- the association sub-resource --------------------------------------------

def _associate(req):
    context = util.context(req)
    values = dict(common.body_of(req, PROFILE))
    return util.json_response({PROFILE: associate(
        context, req.urlvars['id'], values)}, status=201)


def _show_association(req):
    return util.json_response({PROFILE: show_association(
        util.context(req), req.urlvars['id'], req.urlvars['profile_id'])})


def _disassociate(req):
    disassociate(util.context(req), req.urlvars['id'],
                 req.urlvars['profile_id'])
    return util.no_content()


def routes(prefix):
    base = prefix + '/v2.0/flavors/{id}/service_profiles'
    return {base: {'POST': _associate},
            base + '/{profile_id}': {'GET': _show_association,
                                     'DELETE': _disassociate}}
