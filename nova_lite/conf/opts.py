"""Entry point for oslo-config-generator (namespace ``nova_lite``)."""

from nova_lite import conf as nl_conf


def list_opts():
    """Return ``[(group, [opts])]`` for every nova_lite option group."""
    result = []
    for module in nl_conf.ALL_MODULES:
        if not hasattr(module, 'list_opts'):
            raise AttributeError('%s has no list_opts()' % module.__name__)
        result.extend(module.list_opts())
    return result
