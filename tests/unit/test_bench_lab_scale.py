"""How ``lab_scale`` knows a burst's deletes are done in a filled lab:
the project's placement usage is back to what the fill left, not zero."""

import testtools

from tests.bench import lab_scale


class UsageLab:
    """Answers ``GET /usages`` with each of ``answers`` in turn."""

    def __init__(self, *answers):
        self.answers = list(answers)

    def placement_get(self, path):
        return {'usages': self.answers.pop(0)}


FILLED = {'INSTANCE': {'VCPU': 2000, 'MEMORY_MB': 1024000,
                       'consumer_count': 2000}}
DURING = {'INSTANCE': {'VCPU': 2100, 'MEMORY_MB': 1075200,
                       'consumer_count': 2100}}


class TestUsageBeyond(testtools.TestCase):
    def test_usage_above_the_fill_is_in_use(self):
        lab = UsageLab(DURING)
        self.assertEqual({'INSTANCE': DURING['INSTANCE']},
                         lab_scale._usage_beyond(lab, FILLED))

    def test_back_to_what_the_fill_left_is_done(self):
        self.assertEqual({}, lab_scale._usage_beyond(UsageLab(FILLED),
                                                     FILLED))

    def test_a_lab_with_no_fill_is_done_at_zero(self):
        self.assertEqual({}, lab_scale._usage_beyond(UsageLab({}), {}))
        self.assertTrue(lab_scale._usage_beyond(UsageLab(DURING), {}))

    def test_a_delete_past_the_fill_is_not_done(self):
        # A fill server deleted by mistake shows too, rather than passing.
        fewer = {'INSTANCE': {'VCPU': 1999, 'MEMORY_MB': 1023488,
                              'consumer_count': 1999}}
        self.assertTrue(lab_scale._usage_beyond(UsageLab(fewer), FILLED))


class ListingLab:
    def __init__(self, servers):
        self.servers_listed = servers
        self.queries = []

    def servers(self, **query):
        self.queries.append(query)
        return self.servers_listed


class TestNewestNamed(testtools.TestCase):
    def test_reads_one_page_of_the_newest_and_keeps_the_prefix(self):
        lab = ListingLab([{'name': 'burst-01-3'}, {'name': 'fill-000100-7'}])
        listing = lab_scale._newest_named(100)
        self.assertEqual([{'name': 'burst-01-3'}], listing(lab, 'burst'))
        self.assertEqual([{'limit': 100}], lab.queries)


class ReservationLab:
    def __init__(self, servers):
        self.body = {'servers': servers}

    def compute(self, method, path, admin=True):
        return 200, self.body


class TestReservationSettled(testtools.TestCase):
    def test_errors_carry_their_fault_messages(self):
        lab = ReservationLab([
            {'status': 'ACTIVE'},
            {'status': 'ERROR', 'fault': {'message': 'No valid host'}},
            {'status': 'ERROR'}])
        self.assertEqual(
            (1, 2, ['No valid host', 'no fault recorded']),
            lab_scale._reservation_settled(lab, 'r-1', 3))

    def test_a_reservation_still_building_is_not_settled(self):
        lab = ReservationLab([{'status': 'ACTIVE'}, {'status': 'BUILD'}])
        self.assertIsNone(lab_scale._reservation_settled(lab, 'r-1', 2))
