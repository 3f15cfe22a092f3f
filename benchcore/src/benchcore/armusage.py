"""The token usage of transcripts as benchcore reports it (part of :mod:`benchcore.model`, which re-exports
it): apart, so ``benchcore usage`` imports this class without the rest of the vocabulary."""

from __future__ import annotations

from typing import Optional

from attrs import frozen


@frozen
class ArmUsage:
    """Token usage summed over transcripts (one cell, or every cell of an arm).

    ``cost_usd`` is None when any model in ``models`` has no price, or its
    dollars cannot be told from the transcript (a stream-json result line
    that sums responses at different prices); then ``unpriced_models`` names
    them, the latter with the reason in brackets.
    """

    turns: int = 0
    input: int = 0
    output: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    raw_tokens: int = 0
    cost_equivalent_tokens: float = 0.0
    cost_usd: Optional[float] = 0.0
    models: tuple[str, ...] = ()
    unpriced_models: tuple[str, ...] = ()
