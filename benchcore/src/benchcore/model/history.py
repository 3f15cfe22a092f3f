"""One line of <skill>.history.jsonl as data."""

from __future__ import annotations

from typing import Optional

from attrs import field, frozen

from ..nosignal import CaseCounts  # noqa: F401  (annotations name it)
from .estimate import Estimate, UsageSummary  # noqa: F401  (annotations name them)


@frozen
class AxisSummary:
    net: int
    passed: bool  # wire name "pass"
    wins: int
    ties: int
    losses: int
    # Extension: not passed only because trials were unjudged (AxisVerdict.incomplete); written only when true.
    incomplete: bool = False


@frozen
class HistoryEntry:
    """One line of ``<skill>.history.jsonl``."""

    run_id: str
    at: str
    shape: str
    default_branch_commit: Optional[str]
    efficacy: AxisSummary
    regression: Optional[AxisSummary] = None
    # Extensions (issue 13): the arms' requested model (None: session default); per arm and for the
    # judges ("judges"), the run's usage and its median cell; plan's estimate of the run's total.
    model: Optional[str] = None
    usage: dict[str, UsageSummary] = field(factory=dict)
    estimate: Optional[Estimate] = None
    # Extensions (issue 27): the Claude Code versions the arms' transcripts record, and per arm and for the
    # judges ("judges") the models actually served (assistant records' model); older lines have neither.
    claude_code: tuple[str, ...] = ()
    served: dict[str, tuple[str, ...]] = field(factory=dict)
    # Extension (issue 41): per case, its efficacy wins, ties and losses (older lines have none).
    efficacy_cases: dict[str, CaseCounts] = field(factory=dict)
