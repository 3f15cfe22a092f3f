"""SkillResult + RunData + history -> ReportView: everything ``<skill>.html`` shows. Pure.

In the manner of coverage.py's ``FileData``: the view holds only strings,
booleans and tuples of smaller views. Every number is already formatted and
every sentence already written, so ``report.html.j2`` only loops and looks up.
No clock, no filesystem: the time of generation is an argument.
"""

from __future__ import annotations

from typing import Optional, Sequence

from attrs import frozen

from .. import __version__
from ..results import counts_phrase, undecided, unjudged, why_fails
from ..model import (
    ArmUsage,
    LOSS,
    TIE,
    WIN,
    AssertionResult,
    AxisResult,
    AxisVerdict,
    CaseResult,
    ComparisonRecord,
    HistoryEntry,
    RunData,
    SkillResult,
    TrialData,
)
from . import fmt
from .trend import Ribbon, build_ribbon

COST_FOOTNOTE = (
    "Absolute cost is inflated by shared-context cache overhead (every subagent re-reads "
    "the session's context); the trustworthy figures are the two ratios, new / no-skill "
    "and new / previous, in cost-equivalent tokens."
)
COST_FOOTNOTE_TWO_ARM = (
    "Absolute cost is inflated by shared-context cache overhead (every subagent re-reads "
    "the session's context); the trustworthy figure is the ratio new / no-skill, in "
    "cost-equivalent tokens."
)
INFORMATIVE_NOTE = "informative only, never gating"


# --------------------------------------------------------------------------
# the view model


@frozen
class Pill:
    """A pass/fail marker: ``css`` picks the colour, ``text`` says it in words."""

    text: str
    css: str  # "pass" | "fail" | "na" | "incomplete"


@frozen
class Badge:
    axis: str
    text: str  # "pass" | "fail" | "n/a" | "incomplete"
    css: str  # "pass" | "fail" | "na" | "incomplete"
    net: str  # "net +14", or "" on n/a
    chip: Optional[str]  # narrowest margin, green badges only
    chip_href: Optional[str]


@frozen
class MetaItem:
    label: str
    value: str
    title: Optional[str] = None  # the full value when ``value`` is abbreviated


@frozen
class CostRow:
    label: str
    turns: str
    raw_tokens: str
    cost_equivalent: str
    cost: str
    priced: bool
    models: str


@frozen
class RatioItem:
    label: str
    value: str


@frozen
class EstimateRow:
    """Estimate against actual for one arm, the judges or the total."""

    label: str
    cells: str  # "30 planned, 30 run"
    estimated_raw: str
    actual_raw: str
    error: str  # "+3.2%" (actual against estimate), or "—"
    estimated_cost: str
    actual_cost: str


@frozen
class CostTable:
    rows: tuple[CostRow, ...]
    ratios: tuple[RatioItem, ...]
    footnote: str
    # Extensions (issue 13): estimate against actual, where the estimate came from, and the budget.
    estimate: tuple[EstimateRow, ...] = ()
    estimate_note: Optional[str] = None
    budget_note: Optional[str] = None


@frozen
class TrialCell:
    trial: str
    text: str  # WIN | TIE | LOSS | the em dash for a missing judgment
    css: str  # win | tie | loss | missing
    note: Optional[str]  # "gated" | "invalid"
    title: str


@frozen
class Segment:
    """A stretch of an output: prose (wrapped to the pane) or a fenced block, fences included, kept
    line for line (a 72-column commit message scrolls rather than re-wraps)."""

    text: str
    css: str  # "prose" | "code"


@frozen
class OutputPane:
    label: str
    text: str  # the output, or a sentence saying it is missing
    missing: bool
    segments: tuple[Segment, ...] = ()


@frozen
class JudgeNote:
    label: str  # "Judge 1", or "Judge 1 (claude-haiku-4-5)" with the model its transcript shows
    verdict: str  # "preferred no skill (clear)"
    rationale: str
    quote: Optional[str]


@frozen
class LossDetail:
    title: str
    outputs: tuple[OutputPane, ...]
    judges: tuple[JudgeNote, ...]
    note: Optional[str]  # e.g. no judgments on disk


@frozen
class GateCommand:
    comment: Optional[str]  # the comment above the predicate in case.md: what it checks
    command: str
    outcome: str  # "exit 1" | "timed out"
    stderr: str
    has_stderr: bool


@frozen
class GateDetail:
    title: str
    commands: tuple[GateCommand, ...]
    output: OutputPane


@frozen
class AxisPanel:
    axis: str
    applicable: bool
    na_text: str
    pill: Pill
    cells: tuple[TrialCell, ...]
    summary: str
    gates: tuple[GateDetail, ...]
    losses: tuple[LossDetail, ...]
    evidence_title: str = ""  # heading above the gates and losses, under the axes


@frozen
class CasePanel:
    anchor: str
    id: str
    description: str
    so_what: str  # the case's result in one line, shown while the panel is collapsed
    so_what_css: str  # "pass" | "fail" | "incomplete"
    open: bool
    pills: tuple[Pill, ...]
    invalid: tuple[str, ...]
    axes: tuple[AxisPanel, ...]


@frozen
class ReportView:
    title: str
    skill: str
    badges: tuple[Badge, ...]
    meta: tuple[MetaItem, ...]
    jump_href: Optional[str]
    jump_label: Optional[str]
    ribbons: tuple[Ribbon, ...]
    informative_note: str
    headline: str
    counts: str
    notices: tuple[str, ...]
    cost: CostTable
    cases: tuple[CasePanel, ...]
    generated_at: str
    version: str


# --------------------------------------------------------------------------
# building it


def build_report_view(result: SkillResult, run: RunData, history: Sequence[HistoryEntry], *,
                      generated_at: str) -> ReportView:
    """The whole report of one run. ``history`` is newest last and includes this run."""
    trials = {(t.case, t.trial): t for t in run.trials}
    descriptions = {c.id: c.description for c in run.cases}
    two_arm = result.verdicts.regression.status == "n/a"
    jump = first_failure(result)
    return ReportView(
        title=f"{result.skill}: benchmark run {result.run_id}",
        skill=result.skill,
        badges=(axis_badge("Efficacy", result.verdicts.efficacy, _efficacy_chip(result)),
                axis_badge("Regression", result.verdicts.regression, _regression_chip(result))),
        meta=_meta(result, run),
        jump_href=fmt.case_href(jump) if jump else None,
        jump_label=f"Jump to the first failure: {jump}" if jump else None,
        ribbons=(build_ribbon("efficacy", result, history),
                 build_ribbon("regression", result, history)),
        informative_note=INFORMATIVE_NOTE,
        headline=result.headline,
        counts=_counts(result, two_arm),
        notices=_notices(result, run),
        cost=_cost_table(result, two_arm, run),
        cases=tuple(_case_panel(c, descriptions.get(c.id, c.description), trials, run, two_arm)
                    for c in result.cases),
        generated_at=generated_at,
        version=__version__,
    )


def first_failure(result: SkillResult) -> Optional[str]:
    """The first case, in case order, that fails an axis whatever its missing trials turn out to be; None
    when no verdict is red (a loss in a passing case, or a trial still unjudged, is not a failure)."""
    for case in result.cases:
        for key, axis in (("efficacy", case.efficacy), ("regression", case.regression)):
            if axis is not None and not axis.passed and not undecided(key, axis):
                return case.id
    return None


# header ---------------------------------------------------------------------


def axis_badge(axis: str, verdict: AxisVerdict, chip: Optional[tuple[str, str]]) -> Badge:
    if verdict.incomplete:  # fails only for want of judgments: not a finding yet, so not red
        net = "" if verdict.net is None else f"net {fmt.signed(verdict.net)} so far"
        return Badge(axis=axis, text="incomplete", css="incomplete", net=net, chip=None, chip_href=None)
    css = {"pass": "pass", "fail": "fail"}.get(verdict.status, "na")
    net = "" if verdict.net is None or verdict.status == "n/a" else f"net {fmt.signed(verdict.net)}"
    green = verdict.status == "pass"
    return Badge(axis=axis, text=verdict.status, css=css, net=net,
                 chip=chip[0] if green and chip else None,
                 chip_href=chip[1] if green and chip else None)


def efficacy_flips(result: SkillResult) -> Optional[int]:
    """flips_to_fail of the efficacy fragile case (the verdict's, else the case's own)."""
    verdict = result.verdicts.efficacy
    if verdict.fragile_flips is not None:
        return verdict.fragile_flips
    for case in result.cases:
        if case.id == verdict.fragile_case:
            return case.efficacy.flips_to_fail
    return None


def _efficacy_chip(result: SkillResult) -> Optional[tuple[str, str]]:
    case = result.verdicts.efficacy.fragile_case
    if case is None:
        return None
    flips = efficacy_flips(result)
    text = f"narrowest: {case}"
    if flips is not None:
        text += f", {fmt.plural(flips, 'flip')} from failing"
    return text, fmt.case_href(case)


def _regression_chip(result: SkillResult) -> Optional[tuple[str, str]]:
    case = result.verdicts.regression.fragile_case
    if case is None:
        return None
    return f"narrowest: {case}, at 1 loss: 1 more loss fails it", fmt.case_href(case)


def _meta(result: SkillResult, run: RunData) -> tuple[MetaItem, ...]:
    info = run.run
    items = [
        MetaItem("Skill", f"{info.skill.name} ({info.skill.path})"),
        MetaItem("Run", f"{info.run_id}, started {info.started_at}"),
        MetaItem("Shape", f"{info.shape}: " + ", ".join(fmt.arm_label(a) for a in info.arms)),
    ]
    if info.default_branch is not None:
        items.append(MetaItem(
            "Default branch",
            f"{info.default_branch.name} @ {fmt.short_commit(info.default_branch.commit)}",
            title=info.default_branch.commit))
    else:
        items.append(MetaItem("Default branch", "not resolved"))
    items.append(MetaItem(
        "Trials", f"{info.trials} per case, {fmt.plural(len(result.cases), 'case')}"))
    items.append(MetaItem("Temperature", temperature_text(info.temperature.requested,
                                                          info.temperature.applied)))
    items.append(MetaItem("Seed", str(info.seed)))
    items.extend(_models(result, run))
    if result.model:
        items.append(MetaItem("Arms asked to run on", result.model))
    judge_models = result.judges.models if result.judges else ()
    if result.judge_model or judge_models:
        asked = f"asked for {result.judge_model}" if result.judge_model else "session default"
        ran = f"; ran on {', '.join(judge_models)}" if judge_models else ""
        items.append(MetaItem("Judges", asked + ran))
    items.extend(_agent_types(run))
    return tuple(items)


def _agent_types(run: RunData) -> list[MetaItem]:
    """The Claude Code agent type each arm really ran as (from the transcripts' meta files)."""
    per_arm = [(arm, ", ".join(run.run.agent_types[arm])) for arm in ("new", "previous", "baseline")
               if arm in run.run.arms and run.run.agent_types.get(arm)]
    if not per_arm:
        return []
    if len({t for _, t in per_arm}) == 1 and len(per_arm) == len(run.run.arms):
        return [MetaItem("Agent type", f"{per_arm[0][1]} (every arm)")]
    return [MetaItem(f"Agent type, {fmt.arm_label(arm)}", types) for arm, types in per_arm]


def _models(result: SkillResult, run: RunData) -> list[MetaItem]:
    """The resolved model of each arm (from run.json, else from the arm's usage);
    one line when every arm ran the same."""
    per_arm = []
    for arm in ("new", "previous", "baseline"):
        if arm not in run.run.arms:
            continue
        models = run.run.resolved_models.get(arm)
        if not models and arm in result.arms:
            models = result.arms[arm].models
        if models:
            per_arm.append((arm, ", ".join(models)))
    if not per_arm:
        return []
    if len({m for _, m in per_arm}) == 1 and len(per_arm) == len(run.run.arms):
        return [MetaItem("Model", f"{per_arm[0][1]} (every arm)")]
    return [MetaItem(f"Model, {fmt.arm_label(arm)}", models) for arm, models in per_arm]


# Claude Code's subagents run at temperature 1 (CLAUDE-CODE.md, "Temperature").
SESSION_DEFAULT_TEMPERATURE = 1.0


def temperature_text(requested: float, applied: str) -> str:
    """What temperature ran, saying so plainly when it is not what was requested."""
    req = fmt.temperature(requested)
    try:
        same = float(applied) == requested
    except ValueError:
        same = False
    if same:
        return req
    if applied.strip().lower() == "session default":
        if requested == SESSION_DEFAULT_TEMPERATURE:
            return f"{req} (the session default, as requested)"
        return (f"requested {req}, ran at the session default: "
                "Claude Code cannot set a subagent's temperature")
    return f"requested {req}, ran at {applied}"


# headline -------------------------------------------------------------------


def _counts(result: SkillResult, two_arm: bool) -> str:
    total = len(result.cases)
    eff = sum(1 for c in result.cases if c.efficacy.passed)
    eff_text = f"Efficacy: {eff} of {fmt.plural(total, 'case')} " + ("passes" if total == 1 else "pass")
    if two_arm:
        reg_text = "Regression: n/a (two-arm run)"
    else:
        reg = sum(1 for c in result.cases if c.regression is not None and c.regression.passed)
        reg_text = f"Regression: {reg} of {fmt.plural(total, 'case')} " + (
            "holds" if total == 1 else "hold")
    return f"{eff_text} · {reg_text}"


def missing_trials(axis: AxisResult) -> tuple[int, ...]:
    return tuple(i + 1 for i, o in enumerate(axis.outcomes) if o is None)


def _notices(result: SkillResult, run: RunData) -> tuple[str, ...]:
    notes: list[str] = []
    gaps = []
    for case in result.cases:
        for name, axis in (("efficacy", case.efficacy), ("regression", case.regression)):
            if axis is not None and axis.incomplete:
                gaps.append(f"{case.id} {name} ({fmt.trials_phrase(missing_trials(axis))})")
    if result.incomplete or gaps:
        text = "This run is incomplete"
        if gaps:
            text += ": no judgment for " + "; ".join(gaps)
        notes.append(text + ". An incomplete axis does not pass; finish judging, then render again.")
    for esc in result.escalations:
        notes.append(f"{esc.case} {esc.comparison}: judges split on "
                     f"{fmt.trials_phrase(esc.trials)}; ask two more judges per trial "
                     "(collect names them)")
    invalid = [t for t in run.trials if t.invalid]
    if invalid:
        names = ", ".join(f"{t.case} trial {t.trial}" for t in
                          sorted(invalid, key=lambda t: (t.case, t.trial)))
        notes.append(f"{fmt.plural(len(invalid), 'trial')} must be re-run: {names}")
    return tuple(notes)


# cost -----------------------------------------------------------------------


def _cost_table(result: SkillResult, two_arm: bool, run: Optional[RunData] = None) -> CostTable:
    arms = ["new"] + ([] if two_arm else ["previous"]) + ["baseline"]
    rows = []
    for arm in arms:
        usage = result.arms.get(arm)
        if usage is None:
            rows.append(CostRow(fmt.arm_label(arm), "—", "—", "—", "no usage recorded",
                                False, ""))
            continue
        if usage.cost_usd is None:
            unpriced = usage.unpriced_models or usage.models
            cost = "no price for " + (", ".join(unpriced) if unpriced else "its model")
        else:
            cost = fmt.dollars(usage.cost_usd)
        rows.append(CostRow(
            label=fmt.arm_label(arm), turns=fmt.count(usage.turns),
            raw_tokens=fmt.count(usage.raw_tokens),
            cost_equivalent=fmt.tokens(usage.cost_equivalent_tokens),
            cost=cost, priced=usage.cost_usd is not None, models=", ".join(usage.models)))
    ratios = [RatioItem("new / no-skill", fmt.ratio(result.ratios.new_vs_baseline))]
    if not two_arm:
        ratios.append(RatioItem("new / previous", fmt.ratio(result.ratios.new_vs_previous)))
    if result.judges is not None:
        rows.append(_cost_row("judges", result.judges))
    cells_run: dict[str, int] = {}
    for t in (run.trials if run is not None else ()):
        for arm in t.usage:
            cells_run[arm] = cells_run.get(arm, 0) + 1
        cells_run["judges"] = cells_run.get("judges", 0) + len(t.judge_usage)
    est_rows, est_note = _estimate_rows(result, arms, cells_run)
    return CostTable(rows=tuple(rows), ratios=tuple(ratios), footnote=COST_FOOTNOTE_TWO_ARM if two_arm else COST_FOOTNOTE,
                     estimate=est_rows,
                     estimate_note=est_note, budget_note=_budget_note(result))


def _cost_row(label: str, usage: ArmUsage) -> CostRow:
    if usage.cost_usd is None:
        unpriced = usage.unpriced_models or usage.models
        cost = "no price for " + (", ".join(unpriced) if unpriced else "its model")
    else:
        cost = fmt.dollars(usage.cost_usd)
    return CostRow(label=label, turns=fmt.count(usage.turns), raw_tokens=fmt.count(usage.raw_tokens),
                   cost_equivalent=fmt.tokens(usage.cost_equivalent_tokens), cost=cost,
                   priced=usage.cost_usd is not None, models=", ".join(usage.models))


def _error(estimated: Optional[float], actual: Optional[float]) -> str:
    if not estimated or actual is None:
        return "—"
    return f"{(actual - estimated) / estimated * 100:+.1f}%"


def _money(x: Optional[float]) -> str:
    return "—" if x is None else fmt.dollars(x)


def _estimate_rows(result: SkillResult, arms: list[str],
                   cells_run: dict[str, int]) -> tuple[tuple[EstimateRow, ...], Optional[str]]:
    """Estimate against actual per arm, for the judges and in all (absent when plan made no estimate)."""
    est = result.estimate
    if est is None:
        return (), None
    if est.basis == "none":
        return (), f"No estimate before launch: {est.source}."
    rows = []
    tot_raw, tot_usd, usd_known = 0, 0.0, True
    for key in [a for a in arms if a in est.arms] + (["judges"] if est.judges else []):
        e = est.arms.get(key) if key != "judges" else est.judges
        actual = result.arms.get(key) if key != "judges" else result.judges
        run_cells = fmt.count(cells_run.get(key, 0))
        raw = actual.raw_tokens if actual is not None else 0
        usd = actual.cost_usd if actual is not None else 0.0
        tot_raw += raw
        if usd is None:
            usd_known = False
        else:
            tot_usd += usd
        label = "judges" if key == "judges" else fmt.arm_label(key)
        rows.append(EstimateRow(label=label, cells=f"{fmt.count(e.cells)} planned, {run_cells} run",
                                estimated_raw=fmt.count(round(e.raw_tokens)), actual_raw=fmt.count(raw),
                                error=_error(e.raw_tokens, raw), estimated_cost=_money(e.cost_usd),
                                actual_cost=_money(usd)))
    rows.append(EstimateRow(label="in all", cells="", estimated_raw=fmt.count(round(est.raw_tokens or 0)),
                            actual_raw=fmt.count(tot_raw), error=_error(est.raw_tokens, tot_raw),
                            estimated_cost=_money(est.cost_usd), actual_cost=_money(tot_usd if usd_known else None)))
    note = (f"Estimated before launch from {est.source}: per arm, the planned cells times the median cost "
            "of a cell in those runs; the error is the actual raw tokens against the estimate.")
    return tuple(rows), note


def _budget_note(result: SkillResult) -> Optional[str]:
    b = result.budget
    if b is None:
        return None
    parts = []
    if b.raw_tokens is not None:
        parts.append(f"{fmt.count(b.raw_tokens)} raw tokens")
    if b.usd is not None:
        parts.append(fmt.dollars(b.usd))
    text = f"Budget: a ceiling of {' or '.join(parts)}" + (f" ({b.source})" if b.source else "") + "."
    if result.not_run:
        trials = sorted(k for k in result.not_run if k.count("/") == 1)
        judges = sorted(k for k in result.not_run if k.count("/") == 2)
        left = []
        if trials:
            left.append(fmt.plural(len(trials), "trial") + " of arm cells")
        if judges:
            left.append(fmt.plural(len(judges), "judge packet"))
        text += (" It was reached: " + " and ".join(left) + " were never launched (budget reached); "
                 "they are reported as incomplete, never scored.")
    else:
        text += " It was not reached: everything planned was launched."
    return text


# cases ----------------------------------------------------------------------


def _case_panel(case: CaseResult, description: str, trials: dict, run: RunData,
                two_arm: bool) -> CasePanel:
    own = [t for (cid, _), t in sorted(trials.items()) if cid == case.id]
    invalid = tuple(f"trial {t.trial} is invalid and must be re-run: {t.invalid}"
                    for t in own if t.invalid) + tuple(
        f"trial {t.trial}: the benchmark's guard refused {line}" for t in own for line in t.guard)
    invalid_trials = {t.trial for t in own if t.invalid}
    comments = _assertion_comments(run, case.id)
    efficacy = _axis_panel("efficacy", case.id, case.efficacy, trials, run, invalid_trials, comments)
    axes = [efficacy]
    if case.regression is not None and not two_arm:  # a two-arm run has no regression half to show
        axes.append(_axis_panel("regression", case.id, case.regression, trials, run, invalid_trials,
                                comments))
    text, css = so_what(case, [n for n in range(1, len(case.efficacy.outcomes) + 1)
                               if gate_failures(trials.get((case.id, n)))], two_arm)
    return CasePanel(anchor=fmt.case_anchor(case.id), id=case.id, description=description,
                     so_what=text, so_what_css=css,
                     open=case.expanded, pills=tuple(a.pill for a in axes),
                     invalid=invalid, axes=tuple(axes))


def so_what(case: CaseResult, gated_trials: Sequence[int], two_arm: bool) -> tuple[str, str]:
    """The case's result in one line, read from its trial strips: what each axis found, and why a
    failing one fails. Returns (text, css)."""
    parts, states = [], []
    eff = case.efficacy
    if eff.passed:
        parts.append(f"beats no skill ({counts_phrase(eff)})")
        states.append("pass")
    elif undecided("efficacy", eff):
        parts.append(f"efficacy not final: {why_fails('efficacy', eff)}")
        states.append("incomplete")
    else:
        parts.append(f"does not beat no skill: {why_fails('efficacy', eff, tuple(gated_trials))}")
        states.append("fail")
    reg = case.regression
    if reg is not None and not two_arm:
        if reg.passed:
            parts.append("holds against the previous version ("
                         + fmt.plural(reg.losses, "loss", "losses") + ")")
            states.append("pass")
        elif undecided("regression", reg):
            parts.append(f"regression not final: {why_fails('regression', reg)}")
            states.append("incomplete")
        else:
            parts.append(f"regressed: {why_fails('regression', reg)}")
            states.append("fail")
    text = "; ".join(parts)
    css = "fail" if "fail" in states else ("incomplete" if "incomplete" in states else "pass")
    return text[0].upper() + text[1:] + ".", css


def _assertion_comments(run: RunData, case_id: str) -> dict[str, str]:
    """command -> the comment above it in the case as run, for the predicates that have one."""
    case = next((c for c in run.cases if c.id == case_id), None)
    if case is None:
        return {}
    return {h.command: h.comment for h in case.hard_assertions if h.comment}


def gate_failures(trial: Optional[TrialData]) -> tuple[AssertionResult, ...]:
    """The hard assertions of a trial's new arm that failed the gate."""
    if trial is None or trial.assertions is None:
        return ()
    return tuple(a for a in trial.assertions if a.timed_out or a.exit != 0)


def _axis_panel(key: str, case_id: str, axis: AxisResult, trials: dict, run: RunData,
                invalid_trials: set, comments: Optional[dict] = None) -> AxisPanel:
    name = "Efficacy" if key == "efficacy" else "Regression"
    gated_trials = []
    if key == "efficacy":
        gated_trials = [n for n in range(1, len(axis.outcomes) + 1)
                        if gate_failures(trials.get((case_id, n)))]
    waiting = not axis.passed and undecided(key, axis)
    word = ("pass" if key == "efficacy" else "hold") if axis.passed else ("not final" if waiting else "fail")
    css = "pass" if axis.passed else ("incomplete" if waiting else "fail")
    cells = tuple(_cell(n, o, n in gated_trials, n in invalid_trials)
                  for n, o in enumerate(axis.outcomes, start=1))
    gates = tuple(_gate_detail(n, trials[(case_id, n)], comments or {}) for n in gated_trials)
    other = run.run.comparisons.get(key, ("new", "baseline" if key == "efficacy" else "previous"))
    # The evidence: every lost trial; and when efficacy fails for want of wins (not gated, not merely
    # unjudged), the tied trials too, since they are what kept it from passing.
    short_of_wins = (key == "efficacy" and not axis.passed and not waiting and not gated_trials
                     and axis.wins < 3)
    losses = tuple(_loss_detail(n, key, other, trials.get((case_id, n)), tie=(o != LOSS))
                   for n, o in enumerate(axis.outcomes, start=1)
                   if n not in gated_trials and (o == LOSS or (short_of_wins and o == TIE)))
    return AxisPanel(axis=name, applicable=True, na_text="",
                     pill=Pill(f"{name}: {word}", css),
                     cells=cells, summary=axis_summary(key, axis, gated_trials),
                     gates=gates, losses=losses,
                     evidence_title=f"{name}: the trials behind \u201c{word}\u201d" if gates or losses else "")


def axis_summary(key: str, axis: AxisResult, gated_trials: Sequence[int] = ()) -> str:
    """One line from the counts: why this axis of the case passes or fails."""
    if key == "efficacy" and (axis.gated or gated_trials):
        which = f" on {fmt.trials_phrase(gated_trials)}" if gated_trials else ""
        return f"gated: a hard assertion failed{which}"
    if axis.incomplete:
        return f"incomplete: no judgment for {fmt.trials_phrase(missing_trials(axis))}"
    counts = (f"{fmt.plural(axis.wins, 'win')}, {fmt.plural(axis.ties, 'tie')}, "
              f"{fmt.plural(axis.losses, 'loss', 'losses')}")
    if key == "efficacy":
        verdict = "passes" if axis.passed else "fails"
        return f"{counts}: {verdict} (needs >= 3 wins and <= 1 loss)"
    verdict = "passes" if axis.passed else "fails"
    return f"{counts}: {verdict} (holds with <= 1 loss)"


_CELL_CSS = {WIN: "win", TIE: "tie", LOSS: "loss"}


def _cell(n: int, outcome: Optional[str], gated: bool, invalid: bool) -> TrialCell:
    note = "gated" if gated else ("invalid" if invalid else None)
    if outcome is None:
        text, css, title = "—", "missing", f"trial {n}: no judgment"
    else:
        text, css, title = outcome, _CELL_CSS.get(outcome, "missing"), f"trial {n}: {outcome}"
    if gated:
        title += " (failed the hard-assertion gate)"
    elif invalid:
        title += " (invalid: must be re-run)"
    return TrialCell(trial=str(n), text=text, css=css, note=note, title=title)


def segments(text: str) -> tuple[Segment, ...]:
    """Split an output into prose and fenced blocks (``` or ~~~, fence lines kept in the block)."""
    out: list[Segment] = []
    buf: list[str] = []
    fence: Optional[str] = None

    def flush(css: str) -> None:
        if buf:
            out.append(Segment(text="\n".join(buf), css=css))
            buf.clear()

    for line in text.split("\n"):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            flush("prose")
            fence = stripped[:3]
            buf.append(line)
        elif fence is not None and stripped.startswith(fence) and not stripped.strip(fence[0]).strip():
            buf.append(line)
            flush("code")
            fence = None
        else:
            buf.append(line)
    flush("code" if fence is not None else "prose")
    return tuple(out)


def _output(trial: Optional[TrialData], arm: str) -> OutputPane:
    text = None if trial is None else trial.outputs.get(arm)
    if text is None:
        note = f"no output.md was collected for the {fmt.arm_label(arm)} arm"
        return OutputPane(label=fmt.arm_label(arm), missing=True, text=note,
                          segments=(Segment(text=note, css="prose"),))
    return OutputPane(label=fmt.arm_label(arm), text=text, missing=False,
                      segments=segments(text.rstrip("\n")))


def _gate_detail(n: int, trial: TrialData, comments: dict) -> GateDetail:
    commands = tuple(
        GateCommand(comment=comments.get(a.command), command=a.command,
                    outcome="timed out" if a.timed_out else f"exit {a.exit}",
                    stderr=a.stderr, has_stderr=bool(a.stderr.strip()))
        for a in gate_failures(trial))
    return GateDetail(title=f"Trial {n}: failed the hard-assertion gate (a loss, not judged)",
                      commands=commands, output=_output(trial, "new"))


def _loss_detail(n: int, key: str, pair: Sequence[str], trial: Optional[TrialData],
                 tie: bool = False) -> LossDetail:
    other = pair[1] if len(pair) > 1 else ("baseline" if key == "efficacy" else "previous")
    record = None if trial is None else trial.comparisons.get(key)
    judges = () if record is None else _judges(record)
    note = None if judges else "no judgments on disk for this trial"
    title = (f"Trial {n}: tied with {fmt.arm_label(other)} (a win was needed)" if tie
             else f"Trial {n}: lost to {fmt.arm_label(other)}")
    return LossDetail(title=title,
                      outputs=(_output(trial, "new"), _output(trial, other)),
                      judges=judges, note=note)


def _judges(record: ComparisonRecord) -> tuple[JudgeNote, ...]:
    notes = []
    for i, j in enumerate(record.judgments, start=1):
        if j.verdict == "TIE":
            verdict = "called it a tie"
        else:
            arm = record.order.get(j.verdict)
            verdict = "preferred " + (fmt.arm_label(arm) if arm else f"output {j.verdict}")
            if j.strength:
                verdict += f" ({j.strength})"
        notes.append(JudgeNote(label=f"Judge {i} ({j.model})" if j.model else f"Judge {i}",
                               verdict=verdict, rationale=j.rationale,
                               quote=j.quote or None))
    return tuple(notes)
