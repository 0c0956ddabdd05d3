"""Key pairs (os-keypairs): per user; admins may name another user (2.10).

Create generates an RSA pair when no ``public_key`` is given (until 2.92,
which requires one) and returns the private key once; imported keys are
checked. Pairs count against the ``key_pairs`` quota. 2.2 adds ``type``
(ssh or x509) and changes the create status to 201 and the delete status
to 204; 2.35 pages the list.
"""

import webob.exc

from nova_lite.api import keypair_crypto
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import quota
from nova_lite.api.schemas import keypairs as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import notifications
from nova_lite.objects import keypair as keypair_obj


def list_query_schema(req):
    """The query schema of the key pair list at ``req``'s version."""
    return (schema.LIST_QUERY_V2_75 if microversion.at_least(req, '2.75')
            else schema.LIST_QUERY)


def show_query_schema(req):
    """The query schema of one key pair at ``req``'s version."""
    return (schema.SHOW_QUERY_V2_75 if microversion.at_least(req, '2.75')
            else schema.SHOW_QUERY)


def _target_user(req, body_user=None, listing=False):
    context = util.context(req)
    validation.query(req, list_query_schema(req) if listing
                     else show_query_schema(req))
    user_id = body_user
    if user_id is None and microversion.at_least(req, '2.10'):
        user_id = req.GET.get('user_id')
    return user_id or context.user_id


def _authorize(req, rule, user_id):
    context = util.context(req)
    policy.authorize(context, rule, {'user_id': user_id,
                                     'project_id': context.project_id})


def _view(req, keypair, detail=False):
    item = {'name': keypair.name, 'public_key': keypair.public_key,
            'fingerprint': keypair.fingerprint}
    if microversion.at_least(req, '2.2'):
        item['type'] = keypair.type
    if detail:
        item.update({'user_id': keypair.user_id, 'id': keypair.id,
                     'created_at': util.isotime_micro(keypair.created_at),
                     'updated_at': util.isotime_micro(keypair.updated_at),
                     'deleted': False, 'deleted_at': None})
    return item


def create_schema(req):
    for version, body_schema in (('2.92', schema.CREATE_V2_92),
                                 ('2.10', schema.CREATE_V2_10),
                                 ('2.2', schema.CREATE_V2_2)):
        if microversion.at_least(req, version):
            return body_schema
    return schema.CREATE


def _key_material(data, user_id):
    """(type, public key, private key or None, fingerprint); a pair is
    generated when no public key is given (x509: a certificate for
    ``user_id``, as Nova)."""
    key_type = data.get('type', 'ssh')
    public_key = data.get('public_key')
    private_key = None
    try:
        if public_key is None:
            generate = (keypair_crypto.generate_x509_keypair
                        if key_type == 'x509' else
                        lambda user: keypair_crypto.generate_ssh_keypair())
            private_key, public_key, fingerprint = generate(user_id)
        elif key_type == 'x509':
            fingerprint = keypair_crypto.x509_fingerprint(public_key)
        else:
            fingerprint = keypair_crypto.check_ssh_public_key(public_key)
    except keypair_crypto.InvalidKeypair as exc:
        raise webob.exc.HTTPBadRequest(str(exc))
    return key_type, public_key, private_key, fingerprint


def create_keypair(req):
    """POST /os-keypairs: 200 (201 at 2.2+) with the key pair."""
    context = util.context(req)
    data = validation.body(req, create_schema(req))['keypair']
    user_id = data.get('user_id') or context.user_id
    _authorize(req, 'os-keypairs:create', user_id)
    limits = quota.limits_for(context, context.project_id, user_id)
    used = len(keypair_obj.KeyPair.get_all_by_user(context, user_id))
    quota.check_count('key_pairs', 1, used, limits['key_pairs'])
    action = 'import' if data.get('public_key') else 'create'
    host = util.conf(req).host
    notifications.keypair(context, action, 'start', _Pending(
        data, user_id), host)
    key_type, public_key, private_key, fingerprint = _key_material(
        data, user_id)
    keypair = keypair_obj.KeyPair.create(context, {
        'name': data['name'], 'user_id': user_id, 'type': key_type,
        'public_key': public_key, 'fingerprint': fingerprint})
    notifications.keypair(context, action, 'end', keypair, host)
    item = _view(req, keypair)
    item['user_id'] = user_id
    if private_key is not None:
        item['private_key'] = private_key
    status = 201 if microversion.at_least(req, '2.2') else 200
    return util.json_response({'keypair': item}, status=status)


def list_keypairs(req):
    """GET /os-keypairs: the user's pairs (``user_id`` for admins)."""
    user_id = _target_user(req, listing=True)
    _authorize(req, 'os-keypairs:index', user_id)
    keypairs = keypair_obj.KeyPair.get_all_by_user(util.context(req),
                                                   user_id)
    body = {}
    if microversion.at_least(req, '2.35'):
        keypairs = util.paginate(keypairs, req, lambda k: k.name,
                                 util.conf(req).api.max_limit)
        limit = util.query_int(req, 'limit')
        if keypairs and limit is not None and len(keypairs) >= limit:
            body['keypairs_links'] = [{'rel': 'next', 'href': (
                '%s/os-keypairs?limit=%d&marker=%s' % (
                    util.base_url(req), limit, keypairs[-1].name))}]
    body['keypairs'] = [{'keypair': _view(req, k)} for k in keypairs]
    return util.json_response(body)


def show_keypair(req):
    """GET /os-keypairs/{name}."""
    user_id = _target_user(req)
    _authorize(req, 'os-keypairs:show', user_id)
    keypair = keypair_obj.KeyPair.get_by_name(util.context(req), user_id,
                                              req.urlvars['name'])
    return util.json_response({'keypair': _view(req, keypair, detail=True)})


def delete_keypair(req):
    """DELETE /os-keypairs/{name}: 202 (204 at 2.2+)."""
    user_id = _target_user(req)
    _authorize(req, 'os-keypairs:delete', user_id)
    context = util.context(req)
    keypair = keypair_obj.KeyPair.get_by_name(context, user_id,
                                              req.urlvars['name'])
    host = util.conf(req).host
    notifications.keypair(context, 'delete', 'start', keypair, host)
    keypair_obj.KeyPair.destroy_by_name(context, user_id,
                                        req.urlvars['name'])
    notifications.keypair(context, 'delete', 'end', keypair, host)
    return util.no_content(204 if microversion.at_least(req, '2.2')
                           else 202)


class _Pending:
    """A key pair asked for and not made yet, as ``keypair.*.start``
    shows it: its public key when imported, no fingerprint yet."""

    def __init__(self, data, user_id):
        self.user_id = user_id
        self.name = data['name']
        self.public_key = data.get('public_key')
        self.fingerprint = None
        self.type = data.get('type') or 'ssh'
