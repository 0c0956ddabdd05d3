"""The layering of nova_lite, checked on its imports.

A folder of ``nova_lite`` is one process or one shared layer, and the
architecture says which may use which (see doc/design.md, "Layout"). Those
promises are easy to break by one import added in a hurry, and hard to see
in review, so ``tox -e pep8`` checks them on every import statement of the
tree, at module level or inside a function alike.

The checker reads the source with :mod:`ast` and needs nothing beyond the
standard library (the pep8 environment installs no dependencies); it never
imports the code it checks. Run it as::

    python tests/hacking/import_rules.py nova_lite
"""

import ast
import collections
import os
import sys

# The services of nova (everything placement must not depend on). The
# neutral layers (conf, context, exception, wsgi, db.session and the
# migration helpers, i18n-like utilities) stay allowed.
NOVA_SERVICE_CODE = (
    'nova_lite.api', 'nova_lite.baserpc', 'nova_lite.cells',
    'nova_lite.clients', 'nova_lite.cmd', 'nova_lite.compute',
    'nova_lite.conductor', 'nova_lite.dashboard', 'nova_lite.db.api',
    'nova_lite.db.cell', 'nova_lite.db.host_discovery', 'nova_lite.image',
    'nova_lite.manager', 'nova_lite.network', 'nova_lite.objects',
    'nova_lite.rpc', 'nova_lite.scheduler', 'nova_lite.service',
    'nova_lite.servicegroup', 'nova_lite.testing', 'nova_lite.virt',
)

# Code that runs as a service (what a client library must not pull in).
SERVICE_CODE = (
    'nova_lite.api', 'nova_lite.cmd', 'nova_lite.compute',
    'nova_lite.conductor', 'nova_lite.dashboard', 'nova_lite.db',
    'nova_lite.image', 'nova_lite.manager', 'nova_lite.network',
    'nova_lite.placement', 'nova_lite.scheduler', 'nova_lite.service',
    'nova_lite.testing', 'nova_lite.virt',
)

# The REST services nova-lite-api serves next to the compute API.
MOUNTED_SERVICES = ('nova_lite/image', 'nova_lite/network',
                    'nova_lite/dashboard')
# The one module that mounts them all in nova-lite-api's process.
API_DEPLOY = 'nova_lite/api/deploy.py'

# A rule bans, in the files under ``where`` but not under ``exempt``, the
# imports of the modules under ``banned`` but not under ``allowed``.
Rule = collections.namedtuple('Rule', 'code where banned why allowed exempt',
                              defaults=((), ()))

RULES = (
    Rule('NL301', ('nova_lite/compute', 'nova_lite/virt'), ('nova_lite.db',),
         'a compute reaches the database only through the conductor'),
    Rule('NL302', ('nova_lite/placement',), NOVA_SERVICE_CODE,
         "placement is its own service and imports nothing of nova's"),
    Rule('NL303', ('nova_lite/clients',), SERVICE_CODE,
         'a client library imports no service code'),
    Rule('NL304', ('nova_lite/compute',), ('nova_lite.scheduler',),
         'a compute talks to the scheduler over RPC only (and it does not)'),
    Rule('NL305', ('nova_lite/objects',),
         ('nova_lite.scheduler', 'nova_lite.api'),
         'objects cross RPC between every service; they know none of them'),
    Rule('NL306', ('nova_lite/api',), ('nova_lite.db',),
         'the API reaches its data through objects, never the DB layer'),
    Rule('NL307', MOUNTED_SERVICES, ('nova_lite.api',),
         'the image, network and dashboard services never import the '
         'compute API (what they share with it is in nova_lite.wsgi)'),
    Rule('NL308', ('nova_lite',), ('nova_lite.image',),
         'the image service is reached only through '
         'nova_lite.image.interface, as Nova reaches Glance',
         allowed=('nova_lite.image.interface',),
         exempt=('nova_lite/image', API_DEPLOY)),
    Rule('NL309', ('nova_lite',), ('nova_lite.network',),
         'the network service is reached only through '
         'nova_lite.network.interface, as Nova reaches Neutron',
         allowed=('nova_lite.network.interface',),
         exempt=('nova_lite/network', API_DEPLOY)),
    Rule('NL310', ('nova_lite',), ('nova_lite.dashboard',),
         "the dashboard is mounted by nova-lite-api's deploy and used by "
         'nothing else', exempt=('nova_lite/dashboard', API_DEPLOY)),
    Rule('NL311', ('nova_lite/wsgi',),
         ('nova_lite.api', 'nova_lite.placement') + tuple(
             m.replace('/', '.') for m in MOUNTED_SERVICES),
         'what the REST services share knows none of them'),
    Rule('NL312', ('nova_lite/context',), ('nova_lite.db', 'nova_lite.rpc'),
         'every process builds contexts (a compute too) and rpc imports '
         'context: a cell is targeted from nova_lite.cells'),
)

Violation = collections.namedtuple('Violation', 'path line code message')


def module_name(path, root):
    """The dotted name of the module at ``path`` under the tree ``root``."""
    rel = os.path.relpath(path, os.path.dirname(os.path.abspath(root)))
    parts = rel[:-len('.py')].split(os.sep)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _absolute(node, module, is_package):
    """The module an ``ImportFrom`` names, with its dots resolved."""
    if not node.level:
        return node.module or ''
    base = module.split('.')
    drop = node.level - 1 if is_package else node.level
    base = base[:len(base) - drop] if drop else base
    return '.'.join(base + ([node.module] if node.module else []))


def imported_names(tree, module, is_package=False):
    """(line, dotted name) of everything a module imports.

    ``from a import b`` yields ``a.b``: ``b`` may be a submodule (``from
    nova_lite import db``) and the rule has to see it; a name that is not a
    module only makes the dotted name longer, which matches the same rules.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            for alias in node.names:
                yield node.lineno, '%s.%s' % (base, alias.name)


def _matches(name, prefixes):
    return any(name == p or name.startswith(p + '.') for p in prefixes)


def _under(rel_path, places):
    return any(rel_path == w + '.py' or rel_path == w or
               rel_path.startswith(w + '/') for w in places)


def _applies(rule, rel_path):
    return _under(rel_path, rule.where) and not _under(rel_path,
                                                       rule.exempt)


def _breaks(rule, name):
    return _matches(name, rule.banned) and not _matches(name, rule.allowed)


def check_file(path, root, rules=RULES):
    """Every rule the file at ``path`` breaks, one entry per import."""
    rel_path = os.path.relpath(
        path, os.path.dirname(os.path.abspath(root))).replace(os.sep, '/')
    rules = [r for r in rules if _applies(r, rel_path)]
    if not rules:
        return []
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read(), filename=path)
    module = module_name(path, root)
    is_package = path.endswith('__init__.py')
    found = []
    for line, name in imported_names(tree, module, is_package):
        for rule in rules:
            if _breaks(rule, name):
                found.append(Violation(rel_path, line, rule.code,
                                       '%s imports %s: %s'
                                       % (module, name, rule.why)))
    return found


def check_tree(root, rules=RULES):
    """Every violation under the package directory ``root``, sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != '__pycache__')
        for filename in sorted(filenames):
            if filename.endswith('.py'):
                found.extend(check_file(os.path.join(dirpath, filename),
                                        root, rules))
    return sorted(set(found))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else 'nova_lite'
    found = check_tree(root)
    for v in found:
        print('%s:%d: %s %s' % (v.path, v.line, v.code, v.message))
    print('import rules: %d violation(s) in %s' % (len(found), root))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
