import unittest

from paginate.pages import page, page_count


class PageCountTest(unittest.TestCase):
    def test_exact_pages(self):
        self.assertEqual(page_count(20, 10), 2)

    def test_partial_page_counts(self):
        self.assertEqual(page_count(21, 10), 2)

    def test_nothing_is_no_page(self):
        self.assertEqual(page_count(0, 10), 0)

    def test_size_must_be_positive(self):
        with self.assertRaises(ValueError):
            page_count(5, 0)


class PageTest(unittest.TestCase):
    def test_first_page(self):
        self.assertEqual(page(list(range(25)), 1, 10), list(range(10)))

    def test_last_partial_page(self):
        self.assertEqual(page(list(range(25)), 3, 10), [20, 21, 22, 23, 24])
