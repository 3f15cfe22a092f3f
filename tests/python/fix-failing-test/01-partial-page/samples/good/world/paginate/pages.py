"""Pages of a list, numbered from 1."""


def page_count(total, size):
    """How many pages of ``size`` items hold ``total`` items; a last, partial page counts."""
    if size <= 0:
        raise ValueError("size must be positive")
    return (total + size - 1) // size


def page(items, number, size):
    """The items on page ``number`` (1-based)."""
    if number < 1 or number > page_count(len(items), size):
        raise IndexError(f"no page {number}")
    start = (number - 1) * size
    return items[start:start + size]
