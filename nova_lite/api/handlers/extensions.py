"""/extensions: the legacy v2 extension list v2.1 still answers.

Every v2 extension is built into v2.1, so the list is fixed: Nova's
aliases and names, each with no links. ``/extensions/{alias}`` shows
one, 404 for an alias not in the list. Readable by anyone
authenticated.
"""

import webob.exc

from nova_lite.api import policy
from nova_lite.api import util

_UPDATED = '2014-12-03T00:00:00Z'
_NAMESPACE = 'http://docs.openstack.org/compute/ext/fake_xml'

# (alias, name) of the built-in extensions, in Nova's order.
_EXTENSIONS = (
    ('NMN', 'Multinic'),
    ('OS-DCF', 'DiskConfig'),
    ('OS-EXT-AZ', 'ExtendedAvailabilityZone'),
    ('OS-EXT-IMG-SIZE', 'ImageSize'),
    ('OS-EXT-IPS', 'ExtendedIps'),
    ('OS-EXT-IPS-MAC', 'ExtendedIpsMac'),
    ('OS-EXT-SRV-ATTR', 'ExtendedServerAttributes'),
    ('OS-EXT-STS', 'ExtendedStatus'),
    ('OS-FLV-DISABLED', 'FlavorDisabled'),
    ('OS-FLV-EXT-DATA', 'FlavorExtraData'),
    ('OS-SCH-HNT', 'SchedulerHints'),
    ('OS-SRV-USG', 'ServerUsage'),
    ('os-access-ips', 'AccessIPs'),
    ('os-admin-actions', 'AdminActions'),
    ('os-admin-password', 'AdminPassword'),
    ('os-agents', 'Agents'),
    ('os-aggregates', 'Aggregates'),
    ('os-assisted-volume-snapshots', 'AssistedVolumeSnapshots'),
    ('os-attach-interfaces', 'AttachInterfaces'),
    ('os-availability-zone', 'AvailabilityZone'),
    ('os-baremetal-ext-status', 'BareMetalExtStatus'),
    ('os-baremetal-nodes', 'BareMetalNodes'),
    ('os-block-device-mapping', 'BlockDeviceMapping'),
    ('os-block-device-mapping-v2-boot', 'BlockDeviceMappingV2Boot'),
    ('os-cell-capacities', 'CellCapacities'),
    ('os-cells', 'Cells'),
    ('os-certificates', 'Certificates'),
    ('os-cloudpipe', 'Cloudpipe'),
    ('os-cloudpipe-update', 'CloudpipeUpdate'),
    ('os-config-drive', 'ConfigDrive'),
    ('os-console-auth-tokens', 'ConsoleAuthTokens'),
    ('os-console-output', 'ConsoleOutput'),
    ('os-consoles', 'Consoles'),
    ('os-create-backup', 'CreateBackup'),
    ('os-create-server-ext', 'Createserverext'),
    ('os-deferred-delete', 'DeferredDelete'),
    ('os-evacuate', 'Evacuate'),
    ('os-extended-evacuate-find-host', 'ExtendedEvacuateFindHost'),
    ('os-extended-floating-ips', 'ExtendedFloatingIps'),
    ('os-extended-hypervisors', 'ExtendedHypervisors'),
    ('os-extended-networks', 'ExtendedNetworks'),
    ('os-extended-quotas', 'ExtendedQuotas'),
    ('os-extended-rescue-with-image', 'ExtendedRescueWithImage'),
    ('os-extended-services', 'ExtendedServices'),
    ('os-extended-services-delete', 'ExtendedServicesDelete'),
    ('os-extended-status', 'ExtendedStatus'),
    ('os-extended-volumes', 'ExtendedVolumes'),
    ('os-fixed-ips', 'FixedIPs'),
    ('os-flavor-access', 'FlavorAccess'),
    ('os-flavor-extra-specs', 'FlavorExtraSpecs'),
    ('os-flavor-manage', 'FlavorManage'),
    ('os-flavor-rxtx', 'FlavorRxtx'),
    ('os-flavor-swap', 'FlavorSwap'),
    ('os-floating-ip-dns', 'FloatingIpDns'),
    ('os-floating-ip-pools', 'FloatingIpPools'),
    ('os-floating-ips', 'FloatingIps'),
    ('os-floating-ips-bulk', 'FloatingIpsBulk'),
    ('os-fping', 'Fping'),
    ('os-hide-server-addresses', 'HideServerAddresses'),
    ('os-hosts', 'Hosts'),
    ('os-hypervisor-status', 'HypervisorStatus'),
    ('os-hypervisors', 'Hypervisors'),
    ('os-instance-actions', 'InstanceActions'),
    ('os-instance_usage_audit_log', 'OSInstanceUsageAuditLog'),
    ('os-keypairs', 'Keypairs'),
    ('os-lock-server', 'LockServer'),
    ('os-migrate-server', 'MigrateServer'),
    ('os-migrations', 'Migrations'),
    ('os-multiple-create', 'MultipleCreate'),
    ('os-networks', 'Networks'),
    ('os-networks-associate', 'NetworkAssociationSupport'),
    ('os-pause-server', 'PauseServer'),
    ('os-personality', 'Personality'),
    ('os-preserve-ephemeral-rebuild', 'PreserveEphemeralOnRebuild'),
    ('os-quota-class-sets', 'QuotaClasses'),
    ('os-quota-sets', 'Quotas'),
    ('os-rescue', 'Rescue'),
    ('os-security-group-default-rules', 'SecurityGroupDefaultRules'),
    ('os-security-groups', 'SecurityGroups'),
    ('os-server-diagnostics', 'ServerDiagnostics'),
    ('os-server-external-events', 'ServerExternalEvents'),
    ('os-server-group-quotas', 'ServerGroupQuotas'),
    ('os-server-groups', 'ServerGroups'),
    ('os-server-list-multi-status', 'ServerListMultiStatus'),
    ('os-server-password', 'ServerPassword'),
    ('os-server-sort-keys', 'ServerSortKeys'),
    ('os-server-start-stop', 'ServerStartStop'),
    ('os-services', 'Services'),
    ('os-shelve', 'Shelve'),
    ('os-simple-tenant-usage', 'SimpleTenantUsage'),
    ('os-suspend-server', 'SuspendServer'),
    ('os-tenant-networks', 'OSTenantNetworks'),
    ('os-used-limits', 'UsedLimits'),
    ('os-used-limits-for-admin', 'UsedLimitsForAdmin'),
    ('os-user-data', 'UserData'),
    ('os-user-quotas', 'UserQuotas'),
    ('os-virtual-interfaces', 'VirtualInterfaces'),
    ('os-volume-attachment-update', 'VolumeAttachmentUpdate'),
    ('os-volumes', 'Volumes'),
)


def _view(alias, name):
    return {'alias': alias, 'name': name, 'links': [],
            'description': 'The %s API (built into v2.1).' % name,
            'namespace': _NAMESPACE, 'updated': _UPDATED}


def list_extensions(req):
    """GET /extensions."""
    policy.authorize(util.context(req), 'extensions')
    return util.json_response({'extensions': [
        _view(alias, name) for alias, name in _EXTENSIONS]})


def show_extension(req):
    """GET /extensions/{alias}."""
    policy.authorize(util.context(req), 'extensions')
    wanted = req.urlvars['alias']
    for alias, name in _EXTENSIONS:
        if alias == wanted:
            return util.json_response({'extension': _view(alias, name)})
    raise webob.exc.HTTPNotFound('The resource could not be found.')
