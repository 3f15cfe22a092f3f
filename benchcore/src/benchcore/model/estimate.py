"""plan's estimate and budget (issue 13), and one arm's usage summary in a history line."""

from __future__ import annotations

from typing import Optional

from attrs import field, frozen


@frozen
class CellCost:
    """What one cell (or one judge packet) costs: the per-arm median over earlier runs."""

    raw_tokens: float = 0.0
    cost_equivalent_tokens: float = 0.0
    cost_usd: Optional[float] = None
    # The median of each component (for pricing on another model, and the output tokens a
    # workflow's ``budget`` counts).
    input: float = 0.0
    output: float = 0.0
    cache_write_5m: float = 0.0
    cache_write_1h: float = 0.0
    cache_read: float = 0.0


@frozen
class ArmEstimate:
    """The estimate of one arm (or of the judges): ``cells`` launches at ``per_cell`` each."""

    cells: int
    per_cell: CellCost
    raw_tokens: float
    cost_equivalent_tokens: float
    cost_usd: Optional[float] = None


@frozen
class Estimate:
    """plan's pre-launch estimate. ``basis`` is "this skill", "other skills" or "none" (cannot
    estimate: every figure is then absent); ``source`` says which runs, in words."""

    basis: str
    source: str
    arms: dict[str, ArmEstimate] = field(factory=dict)
    judges: Optional[ArmEstimate] = None
    raw_tokens: Optional[float] = None
    cost_equivalent_tokens: Optional[float] = None
    cost_usd: Optional[float] = None


@frozen
class Budget:
    """A ceiling on what one plan launches: raw tokens and/or dollars (benchmark.yaml or plan flags)."""

    raw_tokens: Optional[int] = None
    usd: Optional[float] = None
    source: str = ""


@frozen
class UsageSummary:
    """One arm (or the judges) of one run, in a history line: totals and the median cell."""

    cells: int
    raw_tokens: int
    cost_equivalent_tokens: float
    cost_usd: Optional[float]
    median_cell: CellCost
