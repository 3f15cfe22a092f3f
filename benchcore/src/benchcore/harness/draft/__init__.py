"""Drafted cases written into the tests tree after they validate (``benchcore draft``)."""
