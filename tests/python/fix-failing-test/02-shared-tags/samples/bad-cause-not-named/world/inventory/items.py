"""Item records and their tags."""


def tag(item, label, tags=None):
    """A record of ``item`` with ``label`` added to its ``tags`` (the caller's list is left as it was)."""
    tags = [*(tags or []), label]
    return {"item": item, "tags": tags}


def labels(records):
    """Every label used by ``records``, sorted, once each."""
    return sorted({label for record in records for label in record["tags"]})
