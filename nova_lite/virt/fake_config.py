"""Reading and checking the fake driver's [fake_driver] options.

Everything is read once, at driver start (``FakeDriver.init_host``), into a
:class:`FakeSettings`. A bad value stops the compute with one line naming
the option: negative counts, unknown node names in ``nested_nodes`` or the
fault injection lists, duplicate names, counts larger than the node list.
"""

import re

from oslo_config import cfg

from nova_lite import exception

GROUP = 'fake_driver'
_COUNT = re.compile(r'^[+-]?\d+$')


def _invalid(option, reason):
    message = '[%s] %s: %s' % (GROUP, option, reason)
    return exception.ConfigInvalid(reason=' '.join(message.split()))


def _option(conf, name):
    """Read one option, turning oslo.config's range errors into one line."""
    try:
        return getattr(conf[GROUP], name)
    except (ValueError, cfg.Error) as error:
        raise _invalid(name, error)


class FakeSettings:
    """The validated [fake_driver] configuration of one compute host."""

    def __init__(self, conf, host):
        self.nodes = _parse_nodes(_option(conf, 'nodes'), host)
        served = self.node_set = frozenset(self.nodes)
        self.nested_nodes = _parse_nested(_option(conf, 'nested_nodes'),
                                          self.nodes)
        self.fail_spawn_nodes = _checked_names(
            'fail_spawn_nodes', _option(conf, 'fail_spawn_nodes'), served)
        self.abort_spawn_nodes = _checked_names(
            'abort_spawn_nodes', _option(conf, 'abort_spawn_nodes'), served)
        for name in ('vcpus', 'memory_mb', 'disk_gb', 'numa_nodes',
                     'sriov_pfs', 'vfs_per_pf', 'pgpus', 'vgpus_per_pgpu',
                     'fail_every_nth_spawn'):
            setattr(self, name, _non_negative(name, _option(conf, name)))
        self.physnets = [p.strip() for p in _option(conf, 'physnets')
                         if p.strip()]
        self.vgpu_on_children = _option(conf, 'vgpu_on_children')
        self.fail_probability = _option(conf, 'fail_probability')
        self.seed = _option(conf, 'seed')
        self.spawn_delay = _option(conf, 'spawn_delay')
        if self.spawn_delay < 0:
            raise _invalid('spawn_delay', 'must not be negative')

    def is_nested(self, nodename):
        """Whether ``nodename`` gets the nested children."""
        return nodename in self.nested_nodes


def _non_negative(name, value):
    if value < 0:
        raise _invalid(name, 'must not be negative (got %s)' % value)
    return value


def _split_names(option, text):
    names = [n.strip() for n in text.split(',') if n.strip()]
    _reject_duplicates(option, names)
    return names


def _reject_duplicates(option, names):
    seen = set()
    for name in names:
        if name in seen:
            raise _invalid(option, 'node %s is listed twice' % name)
        seen.add(name)


def _parse_nodes(text, host):
    text = (text or '').strip()
    if _COUNT.match(text):
        count = int(text)
        if count < 0:
            raise _invalid('nodes', 'count %d is negative' % count)
        return ['%s-node-%d' % (host, i) for i in range(count)]
    names = _split_names('nodes', text)
    if not names:
        raise _invalid('nodes', 'neither a count nor a list of names')
    return names


def _parse_nested(text, nodes):
    text = (text or '').strip()
    if text.lower() == 'all':
        return frozenset(nodes)
    if _COUNT.match(text):
        count = int(text)
        if count < 0:
            raise _invalid('nested_nodes', 'count %d is negative' % count)
        if count > len(nodes):
            raise _invalid('nested_nodes', 'count %d exceeds the %d nodes '
                           'served' % (count, len(nodes)))
        return frozenset(nodes[:count])
    return _checked_names('nested_nodes', _split_names('nested_nodes', text),
                          set(nodes))


def _checked_names(option, names, served):
    names = [n.strip() for n in names if n.strip()]
    _reject_duplicates(option, names)
    unknown = [n for n in names if n not in served]
    if unknown:
        raise _invalid(option, 'unknown node %s (not in [%s] nodes)' % (
            ', '.join(unknown), GROUP))
    return frozenset(names)
