"""The metadata definition namespaces a fresh image service starts with.

A handful of the namespaces a fresh Glance loads, under the same names,
resource type associations and property names and types, described in
our own words and cut to the properties nova_lite's scheduler and
libvirt-like drivers care about. They are written to the metadefs store
the first time it is used (:mod:`nova_lite.image.metadefs`). Like
Glance's, they are public and protected (an admin unprotects one before
deleting it).
"""

_IMAGE = {'name': 'OS::Glance::Image'}
_VOLUME_IMAGE = {'name': 'OS::Cinder::Volume', 'properties_target': 'image'}
_HW_ASSOCIATIONS = [dict(_IMAGE, prefix='hw_'),
                    dict(_VOLUME_IMAGE, prefix='hw_'),
                    {'name': 'OS::Nova::Flavor', 'prefix': 'hw:'}]


def _prop(title, kind, description, **extra):
    return dict({'title': title, 'type': kind,
                 'description': description}, **extra)


NAMESPACES = [
    {'namespace': 'OS::Glance::CommonImageProperties',
     'display_name': 'Common Image Properties',
     'description': 'Properties many consumers of an image look for.',
     'resource_type_associations': [],
     'properties': {
         'kernel_id': _prop('Kernel ID', 'string',
                            'The kernel image of an AMI-style image.'),
         'ramdisk_id': _prop('Ramdisk ID', 'string',
                             'The ramdisk image of an AMI-style image.'),
         'instance_uuid': _prop('Instance ID', 'string',
                                'The server a snapshot was taken of.'),
         'architecture': _prop('CPU Architecture', 'string',
                               'The CPU architecture the image needs, '
                               'as uname -m prints it.'),
         'os_distro': _prop('OS Distro', 'string',
                            'The operating system distribution.'),
         'os_version': _prop('OS Version', 'string',
                             'The operating system version.')}},
    {'namespace': 'OS::OperatingSystem',
     'display_name': 'Common Operating System Properties',
     'description': 'What operating system an image or volume holds.',
     'resource_type_associations': [dict(_IMAGE),
                                    {'name': 'OS::Cinder::Volume'}],
     'properties': {
         'os_distro': _prop('Distro', 'string',
                            'The distribution, e.g. ubuntu or cirros.'),
         'os_version': _prop('Version', 'string',
                             'The distribution version.'),
         'os_admin_user': _prop('Admin User', 'string',
                                'The default administrative user.')}},
    {'namespace': 'OS::Compute::CPUPinning',
     'display_name': 'CPU Pinning',
     'description': 'How a guest\'s vCPUs are pinned to host CPUs.',
     'resource_type_associations': _HW_ASSOCIATIONS,
     'properties': {
         'cpu_policy': _prop('CPU Pinning policy', 'string',
                             'Whether vCPUs float or get dedicated CPUs.',
                             enum=['shared', 'dedicated']),
         'cpu_thread_policy': _prop('CPU Thread Pinning Policy', 'string',
                                    'How SMT siblings are used.',
                                    enum=['isolate', 'prefer',
                                          'require'])}},
    {'namespace': 'OS::Compute::Hypervisor',
     'display_name': 'Hypervisor Selection',
     'description': 'The hypervisor an image needs.',
     'resource_type_associations': [dict(_IMAGE)],
     'properties': {
         'hypervisor_type': _prop(
             'Hypervisor Type', 'string', 'The hypervisor to run on.',
             enum=['baremetal', 'hyperv', 'kvm', 'lxc', 'qemu', 'vmware',
                   'xen']),
         'vm_mode': _prop('VM Mode', 'string',
                          'The virtual machine mode (ABI).',
                          enum=['hvm', 'xen', 'uml', 'exe'])}},
    {'namespace': 'OS::Compute::Watchdog',
     'display_name': 'Watchdog Behavior',
     'description': 'What a virtual watchdog does when the guest hangs.',
     'resource_type_associations': _HW_ASSOCIATIONS,
     'properties': {
         'watchdog_action': _prop(
             'Watchdog Action', 'string',
             'The action taken when the watchdog fires.',
             enum=['disabled', 'reset', 'poweroff', 'pause', 'none'])}},
    {'namespace': 'OS::Compute::RandomNumberGenerator',
     'display_name': 'Random Number Generator',
     'description': 'A virtual random number generator for the guest.',
     'resource_type_associations': [{'name': 'OS::Nova::Flavor'}],
     'properties': {
         'hw_rng:allowed': _prop('Random Number Generator Allowed',
                                 'boolean', 'Whether guests may have one.'),
         'hw_rng:rate_bytes': _prop('Random number generator limits.',
                                    'integer', 'Bytes per period.'),
         'hw_rng:rate_period': _prop('Random number generator read '
                                     'period.', 'integer',
                                     'The period, in milliseconds.')}},
    {'namespace': 'OS::Compute::GuestShutdownBehavior',
     'display_name': 'Shutdown Behavior',
     'description': 'How long a clean shutdown may take.',
     'resource_type_associations': [dict(_IMAGE)],
     'properties': {
         'os_shutdown_timeout': _prop(
             'Shutdown timeout', 'integer',
             'Seconds to wait for a clean shutdown before powering off.',
             minimum=0)}},
    {'namespace': 'OS::Glance::Signatures',
     'display_name': 'Image Signature Verification',
     'description': 'The properties of a signed image.',
     'resource_type_associations': [dict(_IMAGE)],
     'properties': {
         'img_signature': _prop('Image Signature', 'string',
                                'The signature of the image data.'),
         'img_signature_certificate_uuid': _prop(
             'Image Signature Certificate UUID', 'string',
             'The certificate (in the key manager) that signed it.'),
         'img_signature_hash_method': _prop(
             'Image Signature Hash Method', 'string',
             'The hash the signature was made over.',
             enum=['SHA-224', 'SHA-256', 'SHA-384', 'SHA-512']),
         'img_signature_key_type': _prop(
             'Signature Key Type', 'string',
             'The kind of key that made the signature.',
             enum=['RSA-PSS', 'DSA', 'ECC_SECP384R1',
                   'ECC_SECP521R1'])}},
]

# Resource types a fresh Glance knows, associated or not.
RESOURCE_TYPES = ('OS::Glance::Image', 'OS::Cinder::Volume',
                  'OS::Nova::Flavor', 'OS::Nova::Aggregate',
                  'OS::Nova::Server')
