"""results.json as data: verdicts, per-case axes, ratios, escalations, and the judges' noise floor (calibration)."""

from __future__ import annotations

from typing import Literal, Optional

from attrs import field, frozen

from ..armusage import ArmUsage  # noqa: F401  (annotations name it)
from ..environment import EnvironmentCard  # noqa: F401
from .estimate import Budget, Estimate  # noqa: F401
from ..nosignal import CaseCounts, NoSignal  # noqa: F401  (issue 41: defined beside the rule that fills them)


@frozen
class PositionBias:
    first_shown_won: int
    decisive: int


@frozen
class AxisVerdict:
    """Top-level verdict of one axis. ``status`` is pass, fail or n/a."""

    status: Literal["pass", "fail", "n/a"]
    net: Optional[int] = None
    fragile_case: Optional[str] = None
    # Extension (docs/run-format.md, results.json): informative, never gating.
    position_bias: Optional[PositionBias] = None
    sign_test_p: Optional[float] = None
    # Extension: flips_to_fail of the fragile case (the chip on the badge).
    fragile_flips: Optional[int] = None
    # Extension: the axis does not pass only because trials are still unjudged or must be re-run (no case
    # fails it whatever they turn out to be). ``status`` stays "fail" (an incomplete axis does not pass);
    # the report, leaderboard and trend show it as incomplete, not red. Written only when true.
    incomplete: bool = False


@frozen
class Verdicts:
    efficacy: AxisVerdict
    regression: AxisVerdict


@frozen
class AxisResult:
    """One axis of one case over its trials."""

    outcomes: tuple[Optional[str], ...]
    wins: int
    ties: int
    losses: int
    passed: bool  # wire name "pass"
    flagged: bool
    incomplete: bool
    gated: Optional[bool] = None  # efficacy: always; regression: true when gated, else None (left out)
    flips_to_fail: Optional[int] = None  # efficacy only
    # Extension: why the axis failed, in words (gate command, missing trials ...).
    reason: Optional[str] = None


@frozen
class CaseResult:
    id: str
    description: str
    efficacy: AxisResult
    regression: Optional[AxisResult]
    expanded: bool
    # Extension: false when the case's hard assertions have no samples proving they can pass and fail; left out
    # otherwise.
    predicates_proven: Optional[bool] = None


@frozen
class Ratios:
    new_vs_baseline: Optional[float] = None
    new_vs_previous: Optional[float] = None


@frozen
class Escalation:
    """A comparison of a case whose first judgments split: ask two more judges."""

    case: str
    comparison: str
    trials: tuple[int, ...]


@frozen
class NoiseCount:
    """Judgments on equal pairs of one case (or of all, ``case`` "all"): how many were decisive, how many of
    those named the output shown first, and the decisive rate with its 95% Wilson interval."""

    case: str
    judgments: int
    decisive: int
    first_shown_won: int
    decisive_rate: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    # Extension (issue 38): with confirm_judgments, the decisive judgments whose swapped confirmation answered,
    # how many of those disagreed (a flip: the reading is a TIE), and how many agreeing ones had named the output
    # shown first. Left out when the calibration ran without confirmations.
    confirmations: Optional[int] = None
    flipped: Optional[int] = None
    confirmed_first_shown: Optional[int] = None


@frozen
class Calibration:
    """``<skill>.calibration.json`` beside the history: the judges' noise floor measured by a calibration run
    (two independent new-skill arms per trial, judged blind). It holds for this judge model and these cases."""

    skill: str
    run_id: str
    at: str
    judge_model: Optional[str]
    cases_key: str
    cases: tuple[NoiseCount, ...]
    pooled: NoiseCount
    first_shown_share: Optional[float] = None
    first_shown_low: Optional[float] = None
    first_shown_high: Optional[float] = None
    interval: str = "Wilson score, 95%"
    schema: int = 1
    # Extensions (issue 38), left out when unknown (a file written before them): what the calibration is of.
    # ``skill_version``: sha256 of the skill's files the arms ran; ``judge_served``/``arm_served``: the models the
    # judges and the arms really ran on (transcripts); ``arm_model``: the model the arms were asked for (None:
    # session default); ``trials``: trials planned (cases x 5) and ``judged``: those with every judgment in;
    # ``partial``: judged < trials; ``confirmed``: its decisive judgments were confirmed by a swapped reading.
    skill_version: Optional[str] = None
    judge_served: tuple[str, ...] = ()
    arm_model: Optional[str] = None
    arm_served: tuple[str, ...] = ()
    trials: Optional[int] = None
    judged: Optional[int] = None
    partial: Optional[bool] = None
    confirmed: bool = False


@frozen
class CalibrationStore:
    """``<skill>.calibration.json`` since issue 38: every calibration kept (newest first), so a partial one never
    replaces a complete one and one for another judge, arm model, skill version or case set stays usable. A file
    holding one bare :class:`Calibration` (written before) is read as a store of one."""

    calibrations: tuple[Calibration, ...] = ()
    schema: int = 2


@frozen
class NoiseRed:
    """A red regression case the judges decided, read against the calibration: how likely noise alone gives at
    least its losses in it (``p``, posterior predictive; ``p_high``: the largest inside the calibration's 95%
    credible intervals) and in some case of the run (``p_any``, ``p_any_high``), and what that means."""

    case: str
    losses: int
    p: float
    p_high: float
    p_any: float
    p_any_high: float
    sentence: str


@frozen
class NoiseFloor:
    """results.json ``noise``: the calibration this run is read against (or why there is none), and the chance
    the pass rules give an unchanged skill a red regression verdict at that floor (and a useless one a green
    efficacy verdict)."""

    status: Literal["calibrated", "none", "void"]
    sentence: str
    calibration_run: Optional[str] = None
    decisive_rate: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    first_shown_share: Optional[float] = None
    confirmed: bool = False
    false_alarm_p: Optional[float] = None
    false_alarm_p_high: Optional[float] = None
    false_pass_p: Optional[float] = None
    cases: tuple[NoiseCount, ...] = ()
    flipped: Optional[int] = None
    confirmations: Optional[int] = None
    cost_usd: Optional[float] = None
    cost_equivalent_tokens: Optional[float] = None
    # Extensions (issue 38), left out when empty: the efficacy figure's upper end; each red regression case the
    # judges decided (NoiseRed) and the verdict's figure (the worst red case, in some case of the run) with its
    # sentence; whether the calibration used is partial; its own flips (with confirm_judgments).
    false_pass_p_high: Optional[float] = None
    reds: tuple[NoiseRed, ...] = ()
    red_p: Optional[float] = None
    red_p_high: Optional[float] = None
    red_sentence: Optional[str] = None
    partial: Optional[bool] = None
    calibration_flipped: Optional[int] = None
    calibration_confirmations: Optional[int] = None


@frozen
class SkillResult:
    """``<skill>.results.json``."""

    run_id: str
    skill: str
    shape: str
    verdicts: Verdicts
    headline: str
    cases: tuple[CaseResult, ...]
    arms: dict[str, ArmUsage]
    ratios: Ratios
    schema: int = 1
    # Extensions.
    incomplete: bool = False
    escalations: tuple[Escalation, ...] = ()
    # Extensions (issue 13): the arms' model (None: session default), the judges' usage and the
    # models they really ran on, plan's estimate, the budget and what it left unrun.
    model: Optional[str] = None
    judges: Optional[ArmUsage] = None
    judge_model: Optional[str] = None
    estimate: Optional[Estimate] = None
    budget: Optional[Budget] = None
    not_run: dict[str, str] = field(factory=dict)
    # Extension (issue 17): the environment card, what the arms shared with the session and what was sealed.
    environment: Optional[EnvironmentCard] = None
    # Extension (issue 25): whether every arm's commands ran in an OS sandbox (None: a run planned before it).
    sandboxed: Optional[bool] = None
    # Extension (issue 26): why the baseline may not have been blind to the skill (its git status named the
    # skill, it ran as a type with the Skill tool); the headline ends with them as a caveat.
    caveats: tuple[str, ...] = ()
    # Extensions (issue 27): the Claude Code versions the arms' transcripts record, and per arm and for the
    # judges ("judges") the models actually served, from the transcripts.
    claude_code: tuple[str, ...] = ()
    served: dict[str, tuple[str, ...]] = field(factory=dict)
    # Extension (issue 28): the judges' noise floor beside the verdicts.
    noise: Optional[NoiseFloor] = None
    # Extension (issue 27): the arm transcripts and judge answers collect ignored as duplicates the run's own
    # sessions launched (a fan-out launched twice), one line each ("<case> t<N>: <cell or packet>: <why> (<path>)"),
    # and what they spent: reported beside the arms and judges, never counted in them, never gating.
    ignored: tuple[str, ...] = ()
    ignored_usage: Optional[ArmUsage] = None
    # Extension (issue 41): the hard assertions the baseline passes too and the cases that only tie (left out
    # when none).
    no_signal: Optional[NoSignal] = None
