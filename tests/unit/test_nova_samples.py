"""The comparison of a payload with Nova's notification sample
(tests/compat/nova_samples.py), on samples written here."""

import json
import os

import fixtures
import testtools

from tests.compat import nova_samples


def _object(obj_name, version, **data):
    return {'nova_object.name': obj_name, 'nova_object.namespace': 'nova',
            'nova_object.version': version, 'nova_object.data': data}


class TestSamples(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(self.dir, 'common_payloads'))
        self._write('common_payloads/FlavorPayload.json',
                    _object('FlavorPayload', '1.4', vcpus=1, name='f',
                            extra_specs={'hw:a': 'b'}))
        base = _object('ThingPayload', '1.0', uuid='u', host='h',
                       flavor={'$ref': 'FlavorPayload.json#'},
                       items=[{'$ref': 'FlavorPayload.json#'}],
                       fault=None, locked=False)
        self._write('common_payloads/ThingPayload.json', base)
        self._write('thing-do-start.json', {
            'event_type': 'thing.do.start', 'priority': 'INFO',
            'publisher_id': 'nova-compute:compute',
            'payload': {'$ref': 'common_payloads/ThingPayload.json#',
                        'nova_object.data': {'host': None}}})

    def _write(self, name, content):
        with open(os.path.join(self.dir, name), 'w') as f:
            json.dump(content, f)

    def _good(self):
        def flavor():
            return _object('FlavorPayload', '1.4', vcpus=2, name='g',
                           extra_specs={})
        return {'event_type': 'thing.do.start', 'priority': 'INFO',
                'publisher_id': 'nova-compute:host1',
                'payload': _object('ThingPayload', '1.0', uuid='x',
                                   host='host1', flavor=flavor(),
                                   items=[flavor(), flavor()], fault=None,
                                   locked=True)}

    def test_references_resolved_and_overrides_merged(self):
        sample = nova_samples.sample(self.dir, 'thing.do.start')
        data = sample['payload']['nova_object.data']
        self.assertIsNone(data['host'])
        self.assertEqual('u', data['uuid'])
        self.assertEqual('FlavorPayload', data['flavor']['nova_object.name'])
        self.assertEqual(1, data['items'][0]['nova_object.data']['vcpus'])

    def test_same_keys_and_types_match(self):
        self.assertEqual([], nova_samples.compare_notification(
            self.dir, self._good()))

    def test_differences_are_named(self):
        notification = self._good()
        data = notification['payload']['nova_object.data']
        del data['uuid']
        data['extra'] = 1
        data['locked'] = 'yes'
        data['items'][1]['nova_object.data']['vcpus'] = '2'
        data['flavor']['nova_object.version'] = '1.3'
        notification['priority'] = 'ERROR'
        notification['publisher_id'] = 'nova-api:api'
        self.assertEqual(sorted([
            'payload.uuid: missing',
            'payload.extra: not in the sample',
            'payload.locked: boolean in the sample, string here',
            'payload.items[1].vcpus: number in the sample, string here',
            "payload.flavor.nova_object.version: '1.4' in the sample, "
            "'1.3' here",
            'priority: INFO in the sample, ERROR here',
            'publisher_id: nova-compute:compute in the sample, '
            'nova-api:api here']),
            sorted(nova_samples.compare_notification(self.dir,
                                                     notification)))

    def test_free_form_dicts_compare_value_types_only(self):
        notification = self._good()
        flavor = notification['payload']['nova_object.data']['flavor']
        flavor['nova_object.data']['extra_specs'] = {'other': 'x'}
        self.assertEqual([], nova_samples.compare_notification(
            self.dir, notification))
        flavor['nova_object.data']['extra_specs'] = {'hw:a': 1}
        self.assertEqual(
            ['payload.flavor.extra_specs.hw:a: string in the sample, '
             'number here'],
            nova_samples.compare_notification(self.dir, notification))

    def test_an_event_type_nova_does_not_have(self):
        notification = self._good()
        notification['event_type'] = 'thing.undo'
        self.assertEqual(['thing.undo: Nova has no sample of this event '
                          'type'],
                         nova_samples.compare_notification(self.dir,
                                                           notification))

    def test_the_closest_variant_counts(self):
        """Nova documents some event types twice (the API's delete of an
        instance whose compute is down beside the compute's)."""
        self._write('thing-do-start_elsewhere.json', {
            'event_type': 'thing.do.start', 'priority': 'INFO',
            'publisher_id': 'nova-api:api',
            'payload': {'$ref': 'common_payloads/ThingPayload.json#'}})
        notification = self._good()
        notification['publisher_id'] = 'nova-api:host1'
        self.assertEqual([], nova_samples.compare_notification(
            self.dir, notification))
        notification['publisher_id'] = 'nova-conductor:host1'
        self.assertEqual(1, len(nova_samples.compare_notification(
            self.dir, notification)))
