"""Domain exceptions shared by nova_lite services.

Each exception formats ``msg_fmt`` with its keyword arguments and carries an
HTTP-like ``code`` so the REST layers can map it without a lookup table.
Service-specific exceptions (placement's, the API's) live next to their
service and derive from :class:`NovaLiteException` too.
"""


class NovaLiteException(Exception):
    msg_fmt = 'An unknown exception occurred.'
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)


class Invalid(NovaLiteException):
    msg_fmt = 'Invalid input: %(reason)s'
    code = 400


class NotFound(NovaLiteException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class Conflict(NovaLiteException):
    msg_fmt = 'Conflict: %(reason)s'
    code = 409


class ConfigInvalid(Invalid):
    msg_fmt = 'Invalid configuration: %(reason)s'


class ServiceNotFound(NotFound):
    msg_fmt = 'Service %(service_id)s could not be found.'


class HostBinaryNotFound(NotFound):
    msg_fmt = 'Could not find binary %(binary)s on host %(host)s.'


class ServiceExists(Conflict):
    msg_fmt = 'Service with host %(host)s binary %(binary)s exists.'


class CellMappingNotFound(NotFound):
    msg_fmt = 'Cell %(uuid)s has no mapping.'


class HostMappingNotFound(NotFound):
    msg_fmt = 'Host %(name)s is not mapped to any cell.'


class InstanceMappingNotFound(NotFound):
    msg_fmt = 'Instance %(uuid)s has no mapping to a cell.'


class ComputeHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s could not be found.'


class ComputeNodeNotFound(NotFound):
    msg_fmt = 'Compute node %(node)s could not be found.'


class InstanceNotFound(NotFound):
    msg_fmt = 'Instance %(instance_id)s could not be found.'


class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class NoValidHost(NovaLiteException):
    msg_fmt = 'No valid host was found. %(reason)s'
    code = 500


class DBNotAvailable(NovaLiteException):
    msg_fmt = 'Database %(url)s cannot be reached: %(reason)s'
