"""Server side of the conductor RPC API.

The same manager runs as the super conductor (API bus) and as a cell
conductor (``--cell NAME``: that cell's bus and database). The service
record methods are only meaningful in a cell conductor: they write the
cell database on behalf of computes, which have none.
"""

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite import exception
from nova_lite import manager
from nova_lite import objects

LOG = logging.getLogger(__name__)

# What a compute may change in its own service record.
SERVICE_FIELDS_FROM_COMPUTE = frozenset(['report_count', 'topic', 'version'])


class ConductorManager(manager.Manager):
    """Conductor endpoint (API version 1.0)."""

    target = messaging.Target(version='1.0')

    @messaging.expected_exceptions(exception.NovaLiteException)
    def service_get_or_create(self, context, host, binary, topic):
        service = objects.Service.get_or_create(
            self.cell_context(context), host, binary, topic)
        LOG.debug('Service record %s of %s on %s served', service.id,
                  binary, host)
        return service

    @messaging.expected_exceptions(exception.NovaLiteException)
    def service_update(self, context, service_id, values):
        unknown = set(values) - SERVICE_FIELDS_FROM_COMPUTE
        if unknown:
            raise exception.Invalid(
                reason='service fields %s cannot be updated over RPC' %
                ', '.join(sorted(unknown)))
        service = objects.Service.get_by_id(self.cell_context(context),
                                            service_id)
        for name, value in values.items():
            setattr(service, name, value)
        service.save()
        return service
