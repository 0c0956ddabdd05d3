"""Domain exceptions of placement's object layer.

Objects raise these; handlers translate them into HTTP errors with a code
from :mod:`nova_lite.placement.errors`. The tree::

    NovaLiteException
     +-- NotFound                      -> 404 (mapped centrally)
     |    +-- ResourceProviderNotFound, ResourceClassNotFound,
     |        TraitNotFound, InventoryNotFound, ConsumerNotFound
     +-- Conflict                      -> 409
     |    +-- ConcurrentUpdateDetected (generation changed under us)
     |    |    +-- ConsumerGenerationConflict
     |    +-- Exists (duplicate name / uuid)
     |    +-- InventoryInUse, ResourceProviderInUse,
     |    |   CannotDeleteParentProvider, ResourceClassInUse, TraitInUse
     |    +-- CapacityExceeded
     +-- Invalid                       -> 400
          +-- InvalidInventory, AllocationConstraintsViolated,
              InvalidParent, NotCustom
"""

from nova_lite import exception as nl_exc

NovaLiteException = nl_exc.NovaLiteException
NotFound = nl_exc.NotFound
Conflict = nl_exc.Conflict
Invalid = nl_exc.Invalid


class ResourceProviderNotFound(NotFound):
    msg_fmt = 'No resource provider with uuid %(uuid)s found'


class ResourceClassNotFound(NotFound):
    msg_fmt = 'No such resource class %(name)s.'


class TraitNotFound(NotFound):
    msg_fmt = 'No such trait(s): %(names)s.'


class InventoryNotFound(NotFound):
    msg_fmt = 'No inventory of class %(resource_class)s for %(uuid)s'



class ConsumerNotFound(NotFound):
    msg_fmt = 'No consumer %(uuid)s.'


class ConcurrentUpdateDetected(Conflict):
    msg_fmt = ('resource provider generation conflict: another process '
               'changed resource provider %(uuid)s. Please retry your '
               'update.')


class ConsumerGenerationConflict(ConcurrentUpdateDetected):
    msg_fmt = 'consumer generation conflict - %(reason)s'


class Exists(Conflict):
    msg_fmt = '%(what)s already exists.'


class InventoryInUse(Conflict):
    msg_fmt = ("Inventory for '%(resource_classes)s' on resource provider "
               "'%(uuid)s' in use.")


class ResourceProviderInUse(Conflict):
    msg_fmt = ('Unable to delete resource provider %(uuid)s: Resource '
               'provider has allocations.')


class CannotDeleteParentProvider(Conflict):
    msg_fmt = ('Unable to delete parent resource provider %(uuid)s: It has '
               'child resource providers.')


class ResourceClassInUse(Conflict):
    msg_fmt = ('Error in delete resource class: Cannot delete resource '
               'class %(name)s. Class is in use in inventory.')


class TraitInUse(Conflict):
    msg_fmt = 'The trait %(name)s is in use by a resource provider.'


class CapacityExceeded(Conflict):
    msg_fmt = ("Unable to allocate inventory: Unable to create allocation "
               "for '%(resource_class)s' on resource provider '%(uuid)s'. "
               "The requested amount would exceed the capacity.")


class InvalidInventory(Invalid):
    msg_fmt = 'Invalid inventory: %(reason)s'


class AllocationConstraintsViolated(Invalid):
    msg_fmt = ('Unable to allocate inventory: %(reason)s')


class InvalidParent(Invalid):
    msg_fmt = '%(reason)s'


class NotCustom(Invalid):
    msg_fmt = '%(what)s %(name)s is standard and cannot be changed.'
