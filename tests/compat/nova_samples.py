"""Nova's notification samples, and a payload compared with one.

Nova documents each versioned notification with a sample
(``doc/notification_samples/<event-type>.json``, dots turned into dashes)
whose payload is written as references to shared payloads
(``{"$ref": "common_payloads/InstanceActionPayload.json#"}``) with the
fields that differ beside the reference, merged over it.
:func:`sample` resolves those; :func:`compare` says where a payload's
keys, types, object names or versions differ from the sample's. Values
are not compared (uuids, hosts, times differ by nature), nor the keys of
free-form dicts (``metadata``, ``extra_specs``), only their values' types.
"""

import json
import numbers
import os

OBJECT_KEYS = ('nova_object.name', 'nova_object.namespace',
               'nova_object.version')


def sample_path(samples_dir, event_type):
    return os.path.join(samples_dir, event_type.replace('.', '-') + '.json')


def sample(samples_dir, event_type):
    """Nova's sample notification of ``event_type``, references resolved
    (FileNotFoundError when Nova has none)."""
    return _load(sample_path(samples_dir, event_type))


def _load(path):
    with open(path) as f:
        return _resolve(json.load(f), os.path.dirname(path))


def _resolve(node, base):
    if isinstance(node, list):
        return [_resolve(item, base) for item in node]
    if not isinstance(node, dict):
        return node
    resolved = {key: _resolve(value, base) for key, value in node.items()
                if key != '$ref'}
    if '$ref' not in node:
        return resolved
    ref_path = os.path.normpath(os.path.join(base,
                                             node['$ref'].split('#')[0]))
    return _merge(_load(ref_path), resolved)


def _merge(under, over):
    merged = dict(under)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _kind(value):
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, numbers.Number):
        return 'number'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, list):
        return 'list'
    if isinstance(value, dict):
        return 'object'
    return type(value).__name__


def compare(expected, actual, path='payload'):
    """The differences of ``actual`` from ``expected`` (a sample's
    payload), as readable strings; empty when they match."""
    if expected is None or actual is None:
        return []
    if _kind(expected) != _kind(actual):
        return ['%s: %s in the sample, %s here'
                % (path, _kind(expected), _kind(actual))]
    if isinstance(expected, list):
        if not expected or not actual:
            return []
        return [problem for i, item in enumerate(actual)
                for problem in compare(expected[0], item,
                                       '%s[%d]' % (path, i))]
    if not isinstance(expected, dict):
        return []
    if 'nova_object.data' in expected:
        return _compare_object(expected, actual, path)
    # A free-form dict (metadata, extra_specs): value types only.
    return [problem for key in set(expected) & set(actual)
            for problem in compare(expected[key], actual[key],
                                   '%s.%s' % (path, key))]


def _compare_object(expected, actual, path):
    problems = []
    for key in OBJECT_KEYS:
        if expected.get(key) != actual.get(key):
            problems.append('%s.%s: %r in the sample, %r here'
                            % (path, key, expected.get(key),
                               actual.get(key)))
    data, got = expected['nova_object.data'], actual.get('nova_object.data')
    if not isinstance(got, dict):
        return problems + ['%s: no nova_object.data' % path]
    for key in sorted(set(data) - set(got)):
        problems.append('%s.%s: missing' % (path, key))
    for key in sorted(set(got) - set(data)):
        problems.append('%s.%s: not in the sample' % (path, key))
    for key in sorted(set(data) & set(got)):
        problems.extend(compare(data[key], got[key], '%s.%s' % (path, key)))
    return problems


def variants(samples_dir, event_type):
    """The sample files of ``event_type``: its own and the variants Nova
    documents beside it (``instance-delete-start_compute_down.json``: the
    API's delete of an instance whose compute is down)."""
    own = sample_path(samples_dir, event_type)
    stem = os.path.basename(own)[:-len('.json')]
    found = [os.path.join(samples_dir, name)
             for name in sorted(os.listdir(samples_dir))
             if name.startswith(stem + '_') and name.endswith('.json')]
    return ([own] if os.path.exists(own) else []) + found


def compare_notification(samples_dir, notification):
    """The differences of a received notification (a dict with
    ``event_type``, ``priority``, ``publisher_id``, ``payload``) from
    Nova's sample of its event type (from the closest of its variants):
    payload keys and types, priority and the publisher's binary."""
    event_type = notification['event_type']
    paths = variants(samples_dir, event_type)
    if not paths:
        return ['%s: Nova has no sample of this event type' % event_type]
    results = [_compare_with(_load(path), notification)
               for path in paths]
    return min(results, key=len)


def _compare_with(expected, notification):
    event_type = notification['event_type']
    problems = compare(expected['payload'], notification['payload'])
    if expected['priority'] != notification['priority']:
        problems.append('priority: %s in the sample, %s here'
                        % (expected['priority'], notification['priority']))
    source = expected['publisher_id'].split(':')[0]
    if event_type.startswith('service.'):
        # NOTE(nova_lite): a service record's notifications are published
        # as that service (its binary), whichever it is.
        data = notification['payload'].get('nova_object.data', {})
        source = data.get('binary') or source
    # NOTE(nova_lite): Nova sends compute.exception from whichever
    # service's method raised (its sample is the API's); the others
    # always come from one service.
    if event_type != 'compute.exception' and \
            notification['publisher_id'].split(':')[0] != source:
        problems.append('publisher_id: %s in the sample, %s here'
                        % (expected['publisher_id'],
                           notification['publisher_id']))
    return problems
