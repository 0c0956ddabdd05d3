"""The provider trees a compute last confirmed, kept across its restarts.

A restarted compute must know what placement holds before it can send
only the difference. Reading it back costs three requests per provider
(inventories, traits, aggregates); with the trees saved locally it costs
one provider listing: every provider whose generation is still the saved
one is taken from the file, only the others are re-read. The file is a
hint, never the truth: a missing, unreadable or foreign file just means
reading everything from placement.

File: ``<[DEFAULT] state_path>/provider-trees-<host>.json``, written
atomically (temporary file, then rename).
"""

import json
import os

from oslo_log import log as logging

from nova_lite.provider_tree import tree as pt

LOG = logging.getLogger(__name__)
FORMAT_VERSION = 1


def cache_path(state_path, host):
    return os.path.join(state_path, 'provider-trees-%s.json' % host)


def _records(tree):
    return [{'uuid': p.uuid, 'name': p.name, 'generation': p.generation,
             'parent_provider_uuid': p.parent_uuid,
             'inventories': p.inventory, 'traits': sorted(p.traits),
             'aggregates': sorted(p.aggregates)}
            for p in tree.all_data()]


def save(path, host, trees):
    """Write ``{nodename: ProviderTree}``; a failure is only logged."""
    body = {'version': FORMAT_VERSION, 'host': host,
            'trees': {name: _records(tree) for name, tree in trees.items()}}
    tmp = '%s.tmp' % path
    try:
        with open(tmp, 'w') as f:
            json.dump(body, f)
        os.replace(tmp, path)
    except OSError as error:
        LOG.warning('Provider tree cache %s not written: %s', path, error)


def load(path, host):
    """``{nodename: ProviderTree}`` saved for ``host``; {} when none."""
    try:
        with open(path) as f:
            body = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        LOG.warning('Provider tree cache %s ignored: %s', path, error)
        return {}
    if body.get('version') != FORMAT_VERSION or body.get('host') != host:
        return {}
    trees = {}
    for name, records in body.get('trees', {}).items():
        tree = pt.ProviderTree()
        try:
            tree.populate_from_iterable(records)
        except (KeyError, TypeError, ValueError) as error:
            LOG.warning('Cached tree of node %s ignored: %s', name, error)
            continue
        trees[name] = tree
    return trees
