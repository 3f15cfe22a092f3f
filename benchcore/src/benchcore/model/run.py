"""run.json as data: what was run (the skill, arms, trials, temperature, branch), and the outcome words."""

from __future__ import annotations

from typing import Literal, Optional

from attrs import field, frozen

from .estimate import Budget, Estimate  # noqa: F401  (RunInfo's annotations name them)

# Outcomes of one trial for the new arm, after collapse.
WIN = "WIN"
TIE = "TIE"
LOSS = "LOSS"
Outcome = Literal["WIN", "TIE", "LOSS"]

ARMS = ("new", "baseline", "previous", "twin")  # twin: the second new-skill arm of a calibration
COMPARISONS = ("efficacy", "regression", "calibration")
TRIALS = 5
PILOT_TRIALS = 1  # a pilot (issue 41): one trial per arm per case, never a verdict


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
