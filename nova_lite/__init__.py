"""nova_lite: a compute cloud controller modelled on Nova and Placement.

Importing this package chooses the concurrency backend before anything can
import oslo.messaging (whose import would otherwise pick oslo.service's
eventlet backend by default):

* native threads (the default, as in Nova 2026.2): oslo.service's threading
  backend, no monkey patching;
* eventlet (opt-in with ``NOVA_LITE_EVENTLET=1``): the standard library is
  monkey patched and oslo.service keeps its eventlet backend.

The code above this layer uses plain ``threading`` primitives so both modes
behave the same.
"""

import os
import warnings

# NOTE(nova_lite): eventlet is a hard dependency of oslo.service and futurist
# imports it even in threading mode; its deprecation notices say nothing
# about nova_lite, so they are silenced here once for every process.
for _category, _module in ((DeprecationWarning, r'eventlet.*'),
                           (DeprecationWarning, r'oslo_utils\.eventletutils'),
                           (DeprecationWarning, r'oslo_service.*'),
                           (DeprecationWarning, r'oslo_messaging.*'),
                           (DeprecationWarning, r'futurist.*')):
    warnings.filterwarnings('ignore', category=_category, module=_module)
warnings.filterwarnings('ignore', message=r'(?is).*eventlet')
# NOTE(nova_lite): eventlet imports dnspython, whose DNSSEC module names
# cryptography's DSA key classes at import; cryptography 51 warns for each
# (CryptographyDeprecationWarning, a UserWarning). nova_lite signs nothing
# with DSA, and the eight lines otherwise open every command's output.
warnings.filterwarnings('ignore', message=r'DSA is deprecated',
                        module=r'dns\.dnssecalgs(\..*)?$')

EVENTLET_MODE = os.environ.get('NOVA_LITE_EVENTLET', '').lower() in (
    '1', 'true', 'yes', 'on')


def _select_backend():
    from oslo_service import backend
    if EVENTLET_MODE:
        import eventlet
        eventlet.monkey_patch()
        wanted = backend.BackendType.EVENTLET
    else:
        wanted = backend.BackendType.THREADING
    try:
        backend.init_backend(wanted)
    except backend.exceptions.BackendAlreadySelected:
        # NOTE(nova_lite): something imported oslo.messaging before
        # nova_lite (a tool such as oslo-config-generator). Harmless for
        # tools; services and tests import nova_lite first.
        warnings.warn('nova_lite imported after oslo.service chose its '
                      'backend; keeping %s' % backend.get_backend_type(),
                      stacklevel=2)


_select_backend()
