"""A scheduler configuration file applied for one run, then taken back.

Each ``--config`` of ``sim run`` is an ordinary nova_lite configuration
file. Its options are set as overrides on the process configuration for
the length of one run (oslo.config converts and checks each value as it
would reading the file), so runs never leak into each other. Options this
process does not know (a typo, another service's group) are reported,
not silently dropped. Options the simulation itself must hold are listed
in ``PINNED`` and win over the file.
"""

import contextlib

from oslo_config import cfg

# NOTE(sim): services are "up" for the whole run whatever the wall clock
# says (their last heartbeat is set when the run starts); a hypervisor
# marked down in the snapshot is forced down instead. A simulation sends
# no notifications (building them cost a sixth of a decision).
PINNED = {('DEFAULT', 'service_down_time'): 10 ** 9,
          ('notifications', 'notification_format'): 'none'}


class ConfigError(ValueError):
    """The file cannot be read or a value is refused (says which)."""


def read(path):
    """``{(group, name): [values]}`` of the file at ``path``."""
    sections = {}
    try:
        cfg.ConfigParser(path, sections).parse()
    except (OSError, cfg.ParseError) as err:
        raise ConfigError('%s: %s' % (path, err))
    return {(group, name): values for group, opts in sections.items()
            for name, values in opts.items()}


def _opt(conf, group, name):
    try:
        if group == 'DEFAULT':
            return conf._get_opt_info(name)['opt']
        return conf._get_opt_info(name, group)['opt']
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
        return None


@contextlib.contextmanager
def applied(conf, path):
    """Apply the file's options; yields ``(applied, unknown)`` lists of
    ``group.name``."""
    done, unknown = [], []
    items = dict(read(path))
    try:
        for (group, name), values in sorted(items.items()):
            if (group, name) in PINNED:
                continue
            opt = _opt(conf, group, name)
            if opt is None:
                unknown.append('%s.%s' % (group, name))
                continue
            value = values if opt.multi else values[-1]
            try:
                conf.set_override(name, value, group=None if group ==
                                  'DEFAULT' else group)
            except (ValueError, TypeError) as err:
                raise ConfigError('%s: [%s] %s: %s' % (path, group, name,
                                                        err))
            done.append((group, name))
        from_file = ['%s.%s' % key for key in done]
        for (group, name), value in PINNED.items():
            conf.set_override(name, value, group=None if group ==
                              'DEFAULT' else group)
            done.append((group, name))
        yield from_file, unknown
    finally:
        for group, name in done:
            conf.clear_override(name, group=None if group == 'DEFAULT'
                                else group)
