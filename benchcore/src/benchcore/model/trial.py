"""One trial's files as data (judgments, assertions, audit) and a run directory read whole for render."""

from __future__ import annotations

from typing import Literal, Optional

from attrs import field, frozen

from ..armusage import ArmUsage  # noqa: F401  (annotations name it)
from ..environment import EnvironmentEvidence  # noqa: F401
from .case import Case  # noqa: F401
from .run import RunInfo  # noqa: F401


@frozen
class Judgment:
    """One judge's answer. ``strength`` is absent for a tie."""

    verdict: Literal["A", "B", "TIE"]
    rationale: str = ""
    strength: Optional[Literal["clear", "slight"]] = None
    quote: Optional[str] = None
    # Extension: the model the judge really ran on, from its transcript (written by collect).
    model: Optional[str] = None


@frozen
class ComparisonRecord:
    """``<comparison>.json``: the blind order and 1 (or 3, escalated) judgments."""

    order: dict[str, str]
    judgments: tuple[Judgment, ...] = ()
    # Extension: arm -> sha256 of the output.md bytes the judges read; a judgment of other bytes is stale.
    outputs_sha256: Optional[dict[str, str]] = None
    # Extension (issue 28, benchmark.yaml confirm_judgments): index i is the swapped second reading of
    # judgments[i] by a fresh judge (its letters name the order swapped), None while unanswered or when
    # judgments[i] is a TIE (nothing to confirm). Left out when empty.
    confirmations: tuple[Optional[Judgment], ...] = ()


@frozen
class AssertionResult:
    """One entry of ``assertions.json``."""

    command: str
    exit: Optional[int]
    timed_out: bool = False
    stderr: str = ""
    # Extension: sha256 of the output.md bytes it ran against; a result for other bytes is stale.
    output_sha256: Optional[str] = None


@frozen
class AuditProblem:
    """One reason a trial is invalid: which arm, and what it did (or failed to do)."""

    arm: str
    problem: str


@frozen
class Audit:
    """``audit.json``: the contamination and engagement audit of one trial."""

    invalid: bool
    problems: tuple[AuditProblem, ...] = ()


# --------------------------------------------------------------------------
# what render reads from a run directory (assembled by the shell, consumed by the pure core)


@frozen
class TrialData:
    """Everything on disk for one case x trial.

    ``outputs``: arm -> output.md text (arm absent when the file is missing).
    ``usage``: arm -> usage of that cell's transcript (absent when none).
    ``assertions``: the new arm's assertions.json, or None when not run.
    ``comparisons``: comparison -> its ``<comparison>.json`` (absent when missing).
    ``invalid``: comparison-independent reason this trial must be re-run
    (contamination or engagement audit), or None.
    """

    case: str
    trial: int
    outputs: dict[str, str] = field(factory=dict)
    usage: dict[str, "ArmUsage"] = field(factory=dict)
    assertions: Optional[tuple[AssertionResult, ...]] = None
    comparisons: dict[str, ComparisonRecord] = field(factory=dict)
    invalid: Optional[str] = None
    # Extension: usage of every judge transcript of this trial (collect copies them under judges/).
    judge_usage: tuple["ArmUsage", ...] = ()
    # Extension: what the benchmark's guard refused this trial's arms, every attempt (run folder guard.jsonl).
    guard: tuple[str, ...] = ()
    # Extension (issue 18): what collect refused for this trial (refused.json): transcripts no session of the
    # run launched, tool calls Claude Code refused; one line each.
    refused: tuple[str, ...] = ()
    # Extension (issue 27): judge answers and arm transcripts collect ignored as duplicates from the run's own
    # sessions (ignored.json); one line each.
    ignored: tuple[str, ...] = ()
    # Extension (issue 27): usage of each ignored duplicate's transcript (kept under ignored/): real spend.
    ignored_usage: tuple["ArmUsage", ...] = ()


@frozen
class RunData:
    """A whole run directory as data: run.json, the cases as used, every trial."""

    run: RunInfo
    cases: tuple[Case, ...]
    trials: tuple[TrialData, ...]
    environment: Optional[EnvironmentEvidence] = None  # environment.json, when collect wrote one
