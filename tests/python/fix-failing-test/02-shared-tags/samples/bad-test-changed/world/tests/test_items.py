import unittest

from inventory.items import labels, tag


class TagTest(unittest.TestCase):
    def test_each_item_gets_its_own_tags(self):
        tag("apple", "fruit")
        bolt = tag("bolt", "hardware")
        self.assertIn("hardware", bolt["tags"])

    def test_existing_tags_are_kept(self):
        self.assertEqual(tag("pear", "ripe", ["fruit"])["tags"], ["fruit", "ripe"])

    def test_the_callers_list_is_not_changed(self):
        mine = ["fruit"]
        tag("plum", "ripe", mine)
        self.assertEqual(mine, ["fruit"])


class LabelsTest(unittest.TestCase):
    def test_labels_once_each(self):
        records = [{"item": "a", "tags": ["x", "y"]}, {"item": "b", "tags": ["y"]}]
        self.assertEqual(labels(records), ["x", "y"])
