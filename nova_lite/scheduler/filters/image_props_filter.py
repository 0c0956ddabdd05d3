"""ImagePropertiesFilter: the host can run what the image says it needs.

The image may ask for an architecture (``hw_architecture``), a hypervisor
type (``img_hv_type``), a VM mode (``hw_vm_mode``) and a hypervisor version
(``img_hv_requested_version``, e.g. ``>=6.1``). A host advertises
``supported_instances``, a list of ``(arch, hypervisor_type, vm_mode)``,
and a ``hypervisor_version`` (an integer, 6001000 meaning 6.1.0). A host
passes when one supported triple matches every property the image sets and
its version satisfies the request. Images that set none of them go
anywhere; hosts that advertise nothing take only such images.
"""

import operator
import re

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler import filters

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

_VERSION_OPS = (('>=', operator.ge), ('<=', operator.le),
                ('==', operator.eq), ('!=', operator.ne),
                ('>', operator.gt), ('<', operator.lt), ('=', operator.eq))


def version_from_int(number):
    """6001000 -> (6, 1, 0): Nova's packed hypervisor version."""
    number = int(number)
    return (number // 1000000, number // 1000 % 1000, number % 1000)


def _version_tuple(text):
    parts = re.findall(r'\d+', text)
    if not parts:
        raise ValueError(text)
    return tuple(int(p) for p in parts)


def version_satisfies(host_version, requirement):
    """Whether packed ``host_version`` meets ``requirement`` (``>=6.1``)."""
    text = str(requirement).strip()
    compare, wanted = operator.ge, text
    for symbol, op in _VERSION_OPS:
        if text.startswith(symbol):
            compare, wanted = op, text[len(symbol):]
            break
    try:
        wanted = _version_tuple(wanted)
    except ValueError:
        LOG.warning('Ignoring unparsable img_hv_requested_version %r', text)
        return False
    have = version_from_int(host_version)
    width = max(len(have), len(wanted))
    pad = (0,) * width
    return compare((have + pad)[:width], (wanted + pad)[:width])


def _canonical(value):
    return str(value).strip().lower() if value else None


def _requested(spec):
    props = spec.image.properties
    arch = (props.get('hw_architecture') or props.get('architecture') or
            CONF.filter_scheduler.image_properties_default_architecture)
    return (_canonical(arch),
            _canonical(props.get('img_hv_type') or
                       props.get('hypervisor_type')),
            _canonical(props.get('hw_vm_mode') or props.get('vm_mode')),
            props.get('img_hv_requested_version'))


def _triple_matches(supported, wanted):
    return all(want is None or _canonical(have) == want
               for have, want in zip(supported, wanted, strict=False))


class ImagePropertiesFilter(filters.BaseHostFilter):
    """Rejects hosts that cannot run the image's architecture/hypervisor."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = True

    def filter_all(self, hosts, spec):
        # The image's wishes are read once, not once per host.
        wanted = _requested(spec)
        return [host for host in hosts if self._passes(host, wanted)]

    def host_passes(self, host_state, spec):
        return self._passes(host_state, _requested(spec))

    def _passes(self, host_state, wanted):
        arch, hv_type, vm_mode, version = wanted
        if not (arch or hv_type or vm_mode or version):
            return True
        if (arch or hv_type or vm_mode) and not any(
                _triple_matches(tuple(s)[:3], (arch, hv_type, vm_mode))
                for s in host_state.supported_instances):
            LOG.debug('%s rejected: supports %s, image wants %s/%s/%s',
                      host_state, host_state.supported_instances,
                      arch, hv_type, vm_mode)
            return False
        if version and host_state.hypervisor_version is not None:
            if not version_satisfies(host_state.hypervisor_version,
                                     version):
                LOG.debug('%s rejected: hypervisor version %s, image '
                          'wants %s', host_state,
                          host_state.hypervisor_version, version)
                return False
        return True
