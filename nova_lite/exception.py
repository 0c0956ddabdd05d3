"""Domain exceptions shared by nova_lite services.

Each exception formats ``msg_fmt`` with its keyword arguments and carries an
HTTP-like ``code`` so the REST layers can map it without a lookup table.
Placement's own exceptions live next to it and derive from
:class:`NovaLiteException` too; those of the compute API layer
(:mod:`nova_lite.api.compute`) are here, at the end, so its handlers catch
them without importing the layer's modules.
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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # NOTE(nova_lite): oslo.messaging rebuilds an exception raised by
        # a remote service as a subclass ``<Name>_Remote`` whose __str__
        # appends the remote traceback. An expected error (NoValidHost
        # from the scheduler) would then log as a traceback and show one
        # in the instance fault. Its message is the one the server
        # raised; the server side logged any unexpected traceback
        # already. The remote text stays at hand as ``remote_text()``.
        if cls.__name__.endswith('_Remote') and '__str__' in vars(cls):
            cls.remote_text = vars(cls)['__str__']
            cls.__str__ = cls.__mro__[1].__str__

    def remote_text(self):
        """The message with the remote traceback (remote errors only)."""
        return str(self)


class Invalid(NovaLiteException):
    msg_fmt = 'Invalid input: %(reason)s'
    code = 400


class NotFound(NovaLiteException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class Conflict(NovaLiteException):
    msg_fmt = 'Conflict: %(reason)s'
    code = 409


class ServiceUnavailable(NovaLiteException):
    msg_fmt = 'Service unavailable: %(reason)s'
    code = 503


class InjectedRPCFault(NovaLiteException):
    """Raised by an RPC rule's ``fail`` (:mod:`nova_lite.rpc_rules`); it
    crosses the bus as itself, like every nova_lite exception."""
    msg_fmt = 'RPC rule %(rule)s failed %(method)s'


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


class InvalidSchedulerRequest(Invalid):
    """A request the scheduler cannot turn into a query or evaluate.

    ``key`` names the offending flavor extra spec, image property or hint,
    so the NoValidHost explanation can tell the user what to fix.
    """

    msg_fmt = 'Invalid scheduling request: %(key)s: %(reason)s'

    def __init__(self, key, reason):
        self.key = key
        self.reason = reason
        super().__init__(key=key, reason=reason)


class DBNotAvailable(NovaLiteException):
    msg_fmt = 'Database %(url)s cannot be reached: %(reason)s'


class ComputeNodeExists(Conflict):
    msg_fmt = 'Compute node %(node)s of host %(host)s exists.'


class CellMappingExists(Conflict):
    msg_fmt = 'A cell named %(name)s exists.'


class HostMappingExists(Conflict):
    msg_fmt = 'Host %(name)s is already mapped to a cell.'


class InstanceMappingExists(Conflict):
    msg_fmt = 'Instance %(uuid)s already has a mapping.'


class FlavorExists(Conflict):
    msg_fmt = 'Flavor with name %(name)s or id %(flavor_id)s exists.'


class InstanceExists(Conflict):
    msg_fmt = 'Instance %(uuid)s exists.'


class UnexpectedTaskStateError(Conflict):
    msg_fmt = ('Unexpected task state on instance %(instance_uuid)s: '
               'expected %(expected)s but found %(actual)s')


class UnexpectedVMStateError(Conflict):
    msg_fmt = ('Unexpected vm state on instance %(instance_uuid)s: '
               'expected %(expected)s but found %(actual)s')


class MigrationNotFound(NotFound):
    msg_fmt = 'Migration %(migration_id)s could not be found.'


class InstanceActionNotFound(NotFound):
    msg_fmt = ('Action for request %(request_id)s on instance '
               '%(instance_uuid)s not found.')


class InstanceActionEventNotFound(NotFound):
    msg_fmt = 'Event %(event)s not found for action id %(action_id)s.'


class RequestSpecNotFound(NotFound):
    msg_fmt = 'RequestSpec not found for instance %(instance_uuid)s.'


class BuildRequestNotFound(NotFound):
    msg_fmt = 'BuildRequest not found for instance %(uuid)s.'


class BuildRequestExists(Conflict):
    msg_fmt = 'BuildRequest for instance %(uuid)s exists.'


class AggregateNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s could not be found.'


class AggregateNameExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_name)s already exists.'


class AggregateHostExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_id)s already has host %(host)s.'


class AggregateHostNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s has no host %(host)s.'


class InstanceGroupNotFound(NotFound):
    msg_fmt = 'Instance group %(group_uuid)s could not be found.'


class KeypairNotFound(NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s'


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


# -- the compute API layer (nova_lite.api.compute), caught by its handlers --

class InstanceInvalidState(Conflict):
    msg_fmt = ("Cannot '%(action)s' instance %(uuid)s while it is in "
               "%(attr)s %(state)s")


class InstanceIsLocked(Conflict):
    msg_fmt = 'Instance %(uuid)s is locked'


class QuotaExceeded(NovaLiteException):
    msg_fmt = ('Quota exceeded for %(resources)s: Requested %(req)s, but '
               'already used %(used)s of %(allowed)s %(resources)s')
    code = 403


class ImageNotFound(Invalid):
    msg_fmt = 'Image %(image_id)s could not be found.'


class Forbidden(NovaLiteException):
    msg_fmt = '%(reason)s'
    code = 403


# -- the image service (nova_lite.db.api.image_api) --

class ImageRecordNotFound(NotFound):
    msg_fmt = 'No image found with ID %(image_id)s'


class ImageRecordExists(Conflict):
    msg_fmt = 'Image with identifier %(image_id)s already exists!'


class ImageMemberNotFound(NotFound):
    msg_fmt = 'Member %(member)s of image %(image_id)s not found.'


class ShelvedImageNotFound(NotFound):
    msg_fmt = 'Unshelve attempted but the image %(image_id)s cannot be found.'


class ImageMemberExists(Conflict):
    msg_fmt = ('Member %(member)s already exists for image '
               '%(image_id)s.')


class InvalidRequest(Invalid):
    msg_fmt = '%(reason)s'


class AutoDiskConfigDisabledByImage(Invalid):
    msg_fmt = 'Requested image %(image)s has automatic disk resize disabled.'


class InvalidSort(Invalid):
    """A sort key or direction the server list cannot sort by."""
    msg_fmt = '%(reason)s'


class ComputeServiceInUse(Invalid):
    msg_fmt = 'Compute service of %(host)s is still in use.'


class InvalidMigrationState(Invalid):
    msg_fmt = ('Migration %(migration_id)s state of instance '
               '%(instance_uuid)s is %(state)s. Cannot %(method)s while '
               'the migration is in this state.')


class MigrationNotFoundForInstance(NotFound):
    msg_fmt = ('Migration %(migration_id)s not found for instance '
               '%(instance_id)s')


class MarkerNotFound(NotFound):
    msg_fmt = 'Marker %(marker)s could not be found.'


class TaskAlreadyRunning(NovaLiteException):
    msg_fmt = 'Task %(task_name)s is already running on host %(host)s'
    code = 409


class TaskNotRunning(NovaLiteException):
    msg_fmt = 'Task %(task_name)s is not running on host %(host)s'
    code = 409


class NetworkResourceNotFound(NotFound):
    msg_fmt = '%(kind)s %(uuid)s could not be found.'


class NetworkResourceExists(Conflict):
    msg_fmt = '%(kind)s %(uuid)s already exists.'


class IpAddressInUse(Conflict):
    msg_fmt = ('Unable to complete operation for network %(net_id)s. The IP '
               'address %(ip_address)s is in use.')


class UnsupportedRescueImage(Invalid):
    msg_fmt = "Requested rescue image '%(image)s' is not supported"


class InterfaceAttachFailed(Conflict):
    msg_fmt = ('Failed to attach network adapter device to %(instance_uuid)s'
               ': %(reason)s')


class InterfaceDetachFailed(Conflict):
    msg_fmt = ('Failed to detach network adapter device from '
               '%(instance_uuid)s: %(reason)s')
