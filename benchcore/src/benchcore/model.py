"""The vocabulary of a benchmark run: frozen attrs classes, no behaviour, no I/O.

Wire names follow docs/run-format.md exactly; the one place an
attribute name differs from its wire name (``passed`` <-> ``"pass"``) is
handled by the single converter in :mod:`benchcore.serde`.
"""

from __future__ import annotations

from typing import Literal, Optional

import attrs
from attrs import field, frozen

from .armusage import ArmUsage  # noqa: F401  (defined apart so `benchcore usage` need not import the rest)
from .environment import NOT_SANDBOXED, EnvironmentCard, EnvironmentEvidence  # noqa: F401 (NOT_SANDBOXED re-exported)
from .nosignal import CaseCounts, NoSignal  # noqa: F401  (issue 41: defined beside the rule that fills them)

# Outcomes of one trial for the new arm, after collapse.
WIN = "WIN"
TIE = "TIE"
LOSS = "LOSS"
Outcome = Literal["WIN", "TIE", "LOSS"]

ARMS = ("new", "baseline", "previous", "twin")  # twin: the second new-skill arm of a calibration
COMPARISONS = ("efficacy", "regression", "calibration")
TRIALS = 5
PILOT_TRIALS = 1  # a pilot (issue 41): one trial per arm per case, never a verdict

# --------------------------------------------------------------------------
# case.md


@frozen
class Turn:
    """One role-tagged turn of a seed conversation."""

    role: Literal["user", "assistant"]
    text: str


@frozen
class HardAssertion:
    """One predicate from a ```sh block: a shell command; ``line`` is 1-based in case.md."""

    command: str
    line: int
    # The '#' comment lines right above the predicate (what it checks, in words); the report shows it
    # above a failed command.
    comment: Optional[str] = None


@frozen
class Case:
    """A parsed ``case.md``.

    ``id`` is the case folder's name; ``path`` is the case.md path as given to
    the parser (used in messages only). ``fixture`` is the frontmatter value
    as written (relative to the case folder), or None.
    """

    id: str
    path: str
    description: str
    prompt: str
    soft_criteria: tuple[str, ...]
    fixture: Optional[str] = None
    setup: Optional[str] = None
    seed: tuple[Turn, ...] = ()
    hard_assertions: tuple[HardAssertion, ...] = ()


# --------------------------------------------------------------------------
# run.json


@frozen
class SkillRef:
    name: str
    path: str
    # Extension: the skill's tests folder, when it is not tests/<path below skills/> (a .claude/skills/ or
    # plugin skill); left out otherwise.
    tests: Optional[str] = None


@frozen
class Temperature:
    requested: float = 1.0
    applied: str = "session default"


@frozen
class BranchRef:
    name: str
    commit: str  # the local branch's HEAD: the previous version's commit
    # Extension (issue 26): the remote's branch of that name ("origin/main") and its commit, when the
    # remote's differs from the local branch's (an edit committed locally and not pushed, or not pulled yet).
    remote: Optional[str] = None
    remote_commit: Optional[str] = None


@frozen
class RunInfo:
    """``run.json``: what was run."""

    run_id: str
    skill: SkillRef
    started_at: str
    shape: Literal["three-arm", "two-arm", "calibration"]
    arms: tuple[str, ...]
    comparisons: dict[str, tuple[str, str]]
    trials: int
    temperature: Temperature
    seed: int
    default_branch: Optional[BranchRef]
    cases: tuple[str, ...]
    schema: int = 1
    # Extension (issue 41): a pilot, one trial per arm per case: render reports what each case showed and what
    # the full run would cost, never a verdict, never a history line. Written only when true.
    pilot: bool = False
    # Extension: resolved model of each arm as recorded by collect (arm -> models).
    resolved_models: dict[str, tuple[str, ...]] = field(factory=dict)
    # Extensions (issue 13). ``model``: the model every arm was asked to run on (benchmark.yaml
    # ``models``: one run per skill x model), None for the session default. ``judge_model``: the
    # model the judges were asked to run on. ``estimate``: plan's pre-launch cost estimate.
    # ``budget``: the ceiling plan was given. ``not_run``: "<case>/t<N>" (or
    # "<case>/t<N>/<comparison>" for a judge) -> why it was never launched ("budget reached").
    model: Optional[str] = None
    judge_model: Optional[str] = None
    estimate: Optional["Estimate"] = None
    budget: Optional["Budget"] = None
    not_run: dict[str, str] = field(factory=dict)
    # Extension: the Claude Code agent type each arm really ran as, from its transcripts' .meta.json
    # (arm -> agent types; "unknown" where Claude Code wrote no meta file).
    agent_types: dict[str, tuple[str, ...]] = field(factory=dict)
    # Extension: the cases whose hard assertions have no samples to show they can pass and fail (unproven).
    unproven: tuple[str, ...] = ()
    # Extension (issue 25): the OS sandbox each arm's commands ran in, in words ("bubblewrap (/usr/bin/bwrap),
    # no network"), or NOT_SANDBOXED when the user opted out (plan --no-sandbox); None for runs planned before.
    sandbox: Optional[str] = None
    # Extension (issue 37): what the arms' toolchain was in their sandbox at plan (interpreter, test runner,
    # benchmark.yaml requires results), in words; None for runs planned before.
    toolchain: Optional[str] = None
    # Extension (issue 26): what plan found, before launch, that shows the skill under test to the baseline
    # arm (the session's git status naming it), in words; the verdict carries it as a caveat.
    baseline_sees: tuple[str, ...] = ()
    # Extension (issue 28): every decisive judgment is read again with the order swapped by a fresh judge; a
    # trial whose two readings disagree is a TIE (benchmark.yaml confirm_judgments). Left out when false.
    confirm_judgments: bool = False
    # Extension (issue 38): sha256 over the new arm's copy of the skill (every file's path and bytes), so a
    # calibration holds for the version it measured. None for runs planned before.
    skill_version: Optional[str] = None


# --------------------------------------------------------------------------
# per-trial files


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


# --------------------------------------------------------------------------
# usage


# --------------------------------------------------------------------------
# estimate and budget (issue 13)


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


# --------------------------------------------------------------------------
# results.json


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


# --------------------------------------------------------------------------
# history


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


def evolve(inst, **changes):
    """attrs.evolve, re-exported so callers need not import attrs."""
    return attrs.evolve(inst, **changes)
