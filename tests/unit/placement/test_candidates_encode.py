"""The templated allocation_requests and provider_summaries text is the
encoder's, byte for byte, in every microversion shape."""

import json
from unittest import mock
import uuid

import testtools

from nova_lite.placement.handlers import candidate_encode
from nova_lite.placement.objects import candidate_answer

RP1 = '11111111-1111-4111-8111-111111111111'
RP2 = '22222222-2222-4222-8222-222222222222'
RP3 = '33333333-3333-4333-8333-333333333333'


def _candidates():
    shared = {'VCPU': 1, 'MEMORY_MB': 256}
    requests = [
        ({RP1: shared}, {'': [RP1]}),
        ({RP2: shared}, {'': [RP2]}),
        ({RP1: {'DISK_GB': 10}, RP2: {'VCPU': 2}},
         {'': [RP1], '_NET-1': [RP2]}),
        ({}, {'_X': [RP1]}),
    ]
    shared_traits = ['HW_CPU_X86_AVX2', 'CUSTOM_\u00e9']
    summaries = {RP1: candidate_answer.Summary(
        uuid=RP1, parent_uuid=None, root_uuid=RP1,
        resources={'VCPU': {'capacity': 8, 'used': 1}},
        traits=shared_traits),
        RP2: candidate_answer.Summary(
            uuid=RP2, parent_uuid=RP1, root_uuid=RP1,
            resources={'VCPU': {'capacity': 16, 'used': 0},
                       'MEMORY_MB': {'capacity': 2048, 'used': 512}},
            traits=shared_traits),
        RP3: candidate_answer.Summary(
            uuid=RP3, parent_uuid=RP2, root_uuid=RP1, resources={},
            traits=[])}
    return candidate_answer.Candidates(allocation_requests=requests,
                             summaries=summaries)


class TestEncode(testtools.TestCase):
    def test_same_text_as_the_encoder(self):
        candidates = _candidates()
        for want in ((1, 10), (1, 12), (1, 17), (1, 29), (1, 33), (1, 34),
                     (1, 36)):
            expected = json.dumps(candidate_encode.serialize(candidates, want),
                                  separators=(',', ':'))
            self.assertEqual(
                expected, candidate_encode.encode(candidates, want), want)

    def test_mappings_from_1_34_only(self):
        candidates = _candidates()
        body = json.loads(candidate_encode.encode(candidates, (1, 33)))
        self.assertNotIn('mappings', body['allocation_requests'][0])
        body = json.loads(candidate_encode.encode(candidates, (1, 34)))
        self.assertEqual({'': [RP1]},
                         body['allocation_requests'][0]['mappings'])


class _Provider:
    def __init__(self, rp_id, inv, used):
        self.id = rp_id
        self.uuid = str(uuid.UUID(int=rp_id))
        self.parent_id = None
        self.root_id = rp_id
        self.traits = set()
        # {rc id: (capacity, min, max, step, used)}
        self.inv = {1: ((8 - 0) * 1.5, 1, 8, 1, used),
                    2: ((inv - 1) * 1.0, 1, inv, 1, 0)}


class TestFoundSummaries(testtools.TestCase):
    def _source(self, providers, wanted=None):
        return candidate_answer.SummarySource(
            [p.id for p in providers], {p.id: p for p in providers},
            {1: 'VCPU', 2: 'MEMORY_MB'}, {}, wanted)

    def test_an_entry_is_formatted_once_per_distinct_row(self):
        # Four providers, two kinds of VCPU row (usage 0 and 3) and two
        # of MEMORY_MB (512 and 1024): four entries formatted, not eight.
        providers = [_Provider(1, 512, 0), _Provider(2, 512, 0),
                     _Provider(3, 1024, 3), _Provider(4, 512, 3)]
        source = self._source(providers)
        formatted = []
        missing = candidate_encode._EntryTexts.__missing__

        def record(entries, item):
            formatted.append(item)
            return missing(entries, item)

        texts = candidate_encode._UuidTexts({})
        with mock.patch.object(candidate_encode._EntryTexts, '__missing__',
                               record):
            for p in providers:
                texts[p.id] = json.dumps(p.uuid)
            body = json.loads(candidate_encode._encode_found_summaries(
                source, (1, 36), texts))
        self.assertEqual(4, len(formatted))
        self.assertEqual(
            {'VCPU': {'capacity': 12, 'used': 3},
             'MEMORY_MB': {'capacity': 1023, 'used': 0}},
            body[providers[2].uuid]['resources'])
        self.assertEqual(
            {'VCPU': {'capacity': 12, 'used': 0},
             'MEMORY_MB': {'capacity': 511, 'used': 0}},
            body[providers[0].uuid]['resources'])
        self.assertEqual(
            {'VCPU': {'capacity': 12, 'used': 3}},
            json.loads(candidate_encode._encode_found_summaries(
                self._source(providers, wanted={1}), (1, 36),
                texts))[providers[3].uuid]['resources'])
