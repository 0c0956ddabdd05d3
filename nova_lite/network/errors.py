"""Neutron's errors: ``{"NeutronError": {"type", "message", "detail"}}``.

Raise :class:`NeutronError` (or one of the helpers) anywhere under
``/network``; :data:`ERRORS`, mounted at ``/network`` by nova-lite-api's
deploy, renders every error under that path in Neutron's format.
"""

from oslo_serialization import jsonutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.wsgi import faults as wsgi_faults


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
             'floatingip': 'Floating IP', 'subnetpool': 'Subnet pool',
             'address_scope': 'Address scope', 'rbac_policy': 'RBAC policy',
             'trunk': 'Trunk', 'agent': 'Agent', 'qos_policy': 'QoS policy'}
    types = {'network': 'NetworkNotFound', 'subnet': 'SubnetNotFound',
             'port': 'PortNotFound', 'security_group': 'SecurityGroupNotFound',
             'security_group_rule': 'SecurityGroupRuleNotFound',
             'floatingip': 'FloatingIPNotFound',
             'subnetpool': 'SubnetPoolNotFound',
             'address_scope': 'AddressScopeNotFound',
             'rbac_policy': 'RbacPolicyNotFound',
             'trunk': 'TrunkNotFound', 'agent': 'AgentNotFound',
             'qos_policy': 'QosPolicyNotFound'}
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


class NetworkErrors(wsgi_faults.ErrorFormat):
    """The network service's error bodies (Neutron's); the messages of
    the shared layers are those of the process it is mounted in."""

    def render(self, req, exc):
        return render(exc)

    def render_exception(self, req, exc):
        """A domain exception whose ``code`` says it is the caller's."""
        if isinstance(exc, exception.NovaLiteException) and exc.code != 500:
            return render(NeutronError(exc.code, type(exc).__name__,
                                       exc.message))
        return None


ERRORS = NetworkErrors()
