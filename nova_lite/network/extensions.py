"""``GET /v2.0/extensions``: what the service serves, as Neutron lists it.

Each module serving a Neutron extension registers its alias here
(:func:`register`), so the list holds exactly what is served; the base
attributes every resource has are :data:`nova_lite.network.handlers.
EXTENSIONS`.
"""

from nova_lite.network import errors
from nova_lite.wsgi import util

UPDATED = '2026-01-01T00:00:00-00:00'

# alias -> (name, description)
_REGISTERED = {}


def register(alias, name, description):
    _REGISTERED[alias] = (name, description)


def _body(alias, name, description):
    return {'alias': alias, 'name': name, 'description': description,
            'updated': UPDATED, 'links': []}


def served():
    """[extension body] of every registered alias, sorted by alias."""
    return [_body(alias, *_REGISTERED[alias])
            for alias in sorted(_REGISTERED)]


def list_extensions(req):
    return util.json_response({'extensions': served()})


def show_extension(req):
    alias = req.urlvars['alias']
    if alias not in _REGISTERED:
        raise errors.NeutronError(404, 'HTTPNotFound',
                                  'Extension with alias %s does not exist'
                                  % alias)
    return util.json_response({'extension': _body(
        alias, *_REGISTERED[alias])})


def routes(prefix):
    return {prefix + '/v2.0/extensions': {'GET': list_extensions},
            prefix + '/v2.0/extensions/{alias}': {'GET': show_extension}}
