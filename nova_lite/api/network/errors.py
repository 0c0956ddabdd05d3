"""Neutron's errors: ``{"NeutronError": {"type", "message", "detail"}}``.

Raise :class:`NeutronError` (or one of the helpers) anywhere under
``/network``; the compute API's error renderer turns it into Neutron's
format for requests under ``/network`` (:func:`render`).
"""

from oslo_serialization import jsonutils
import webob
import webob.exc


class NeutronError(webob.exc.HTTPError):
    """An error with Neutron's status, type name and message."""

    def __init__(self, code, kind, message):
        self.code = code
        self.title = webob.exc.status_map[code].title
        self.explanation = message
        super().__init__(detail=message)
        self.neutron_type = kind


def not_found(kind, uuid):
    names = {'network': 'Network', 'subnet': 'Subnet', 'port': 'Port',
             'security_group': 'Security group',
             'security_group_rule': 'Security group rule',
             'floatingip': 'Floating IP'}
    types = {'network': 'NetworkNotFound', 'subnet': 'SubnetNotFound',
             'port': 'PortNotFound', 'security_group': 'SecurityGroupNotFound',
             'security_group_rule': 'SecurityGroupRuleNotFound',
             'floatingip': 'FloatingIPNotFound'}
    return NeutronError(404, types.get(kind, 'NotFound'),
                        '%s %s could not be found.' % (
                            names.get(kind, kind), uuid))


def bad_request(message, kind='HTTPBadRequest'):
    return NeutronError(400, kind, message)


def conflict(kind, message):
    return NeutronError(409, kind, message)


def forbidden(message, kind='HTTPForbidden'):
    return NeutronError(403, kind, message)


def render(exc):
    """A webob error as Neutron's JSON error response."""
    kind = getattr(exc, 'neutron_type', None) or {
        400: 'HTTPBadRequest', 401: 'HTTPUnauthorized',
        403: 'HTTPForbidden', 404: 'HTTPNotFound',
        405: 'HTTPMethodNotAllowed', 409: 'HTTPConflict'}.get(
            exc.code, 'HTTPError')
    message = str(exc.detail or exc.explanation or exc.title)
    response = webob.Response(status=exc.code,
                              content_type='application/json',
                              charset='utf-8')
    response.text = jsonutils.dumps({'NeutronError': {
        'type': kind, 'message': message, 'detail': ''}})
    for key in ('Allow', 'WWW-Authenticate'):
        if key in exc.headers:
            response.headers[key] = exc.headers[key]
    return response
