import unittest

from timings.duration import format_duration, parse_duration


class ParseTest(unittest.TestCase):
    def test_seconds(self):
        self.assertEqual(parse_duration("45s"), 45)

    def test_minutes(self):
        self.assertEqual(parse_duration("2m10s"), 130)

    def test_hours(self):
        self.assertEqual(parse_duration("1h30m"), 90)

    def test_not_a_duration(self):
        with self.assertRaises(ValueError):
            parse_duration("soon")


class FormatTest(unittest.TestCase):
    def test_round_trip(self):
        self.assertEqual(format_duration(parse_duration("2h5m")), "2h5m")
