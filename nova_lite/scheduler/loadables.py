"""Find filter and weigher plugins by class name.

Configuration names plugins the way Nova does, by class name
(``ComputeFilter``, ``RAMWeigher``); a dotted path
(``mypackage.filters.MyFilter``) loads an out-of-tree plugin. ``all`` means
every plugin found in the package. Plugins are the subclasses of the base
class defined in the package's modules, found once by walking it.
"""

import importlib
import inspect
import pkgutil

from oslo_utils import importutils

from nova_lite import exception


class PluginNotFound(exception.ConfigInvalid):
    msg_fmt = 'Unknown %(kind)s %(name)s; known: %(known)s'


def discover(package, base_class):
    """``{class name: class}`` of every concrete plugin in ``package``."""
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith('_'):
            continue
        module = importlib.import_module(
            '%s.%s' % (package.__name__, info.name))
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if (issubclass(obj, base_class) and obj is not base_class and
                    not name.startswith(('Base', '_')) and
                    obj.__module__ == module.__name__):
                found[name] = obj
    return found


def load(names, package, base_class, kind='plugin'):
    """Classes for the configured ``names``, in the configured order.

    :raises PluginNotFound: a name is neither a known class nor a path.
    """
    known = discover(package, base_class)
    classes = []
    for name in names:
        name = name.strip()
        if not name:
            continue
        if name == 'all':
            classes.extend(known[key] for key in sorted(known))
        elif name in known:
            classes.append(known[name])
        elif '.' in name:
            classes.append(_import_plugin(name, base_class, kind, known))
        else:
            raise PluginNotFound(kind=kind, name=name,
                                 known=', '.join(sorted(known)))
    return classes


def _import_plugin(path, base_class, kind, known):
    try:
        cls = importutils.import_class(path)
    except (ImportError, ValueError, AttributeError):
        raise PluginNotFound(kind=kind, name=path,
                             known=', '.join(sorted(known)))
    if not (inspect.isclass(cls) and issubclass(cls, base_class)):
        raise PluginNotFound(kind=kind, name=path,
                             known=', '.join(sorted(known)))
    return cls
