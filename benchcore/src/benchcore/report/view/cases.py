"""The report's cases: one panel per case, its one-line result and per axis the trial strip and its evidence."""

from __future__ import annotations

from typing import Optional, Sequence

from attrs import frozen

from ...model import LOSS, TIE, WIN, AxisResult, CaseResult, RunData
from ...results import counts_phrase, gate_phrase, undecided, why_fails
from .. import fmt
from .evidence import GateDetail, LossDetail, gate_detail, gate_failures, loss_detail
from .verdict import missing_trials


@frozen
class Pill:
    """A pass/fail marker: ``css`` picks the colour, ``text`` says it in words."""

    text: str
    css: str  # "pass" | "fail" | "na" | "incomplete"


@frozen
class TrialCell:
    trial: str
    text: str  # WIN | TIE | LOSS | the em dash for a missing judgment
    css: str  # win | tie | loss | missing
    note: Optional[str]  # "gated" | "invalid"
    title: str


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


def case_panel(case: CaseResult, description: str, trials: dict, run: RunData,
                two_arm: bool) -> CasePanel:
    own = [t for (cid, _), t in sorted(trials.items()) if cid == case.id]
    invalid = tuple(f"trial {t.trial} is invalid and must be re-run: {t.invalid}"
                    for t in own if t.invalid) + tuple(
        f"trial {t.trial}: the benchmark's guard refused {line}" for t in own for line in t.guard) + tuple(
        f"trial {t.trial}, refused by collect: {line}" for t in own for line in t.refused) + tuple(
        f"trial {t.trial}, ignored by collect: {line}" for t in own for line in t.ignored)
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
                     open=case.expanded, pills=tuple(a.pill for a in axes) + ((Pill(
                         "hard assertions unproven (no samples)", "na"),) if case.predicates_proven is False else ()),
                     invalid=invalid, axes=tuple(axes))


def so_what(case: CaseResult, gated_trials: Sequence[int], two_arm: bool) -> tuple[str, str]:
    """The case's result in one line, read from its trial strips: what each axis found, and why a
    failing one fails. Returns (text, css)."""
    found = [_axis_finding("efficacy", case.efficacy, f"beats no skill ({counts_phrase(case.efficacy)})",
                           "does not beat no skill", gated_trials)]
    reg = case.regression
    if reg is not None and not two_arm:
        found.append(_axis_finding("regression", reg, "holds against the previous version ("
                                   + fmt.plural(reg.losses, "loss", "losses") + ")", "regressed", gated_trials))
    parts, states = [p for p, _ in found], [s for _, s in found]
    text = "; ".join(parts)
    css = "fail" if "fail" in states else ("incomplete" if "incomplete" in states else "pass")
    return text[0].upper() + text[1:] + ".", css


def _axis_finding(key: str, axis: AxisResult, passed: str, failed: str, gated_trials: Sequence[int]
                  ) -> tuple[str, str]:
    """One axis's part of the case's line and its state ("pass", "incomplete" or "fail")."""
    if axis.passed:
        return passed, "pass"
    if undecided(key, axis):
        return f"{key} not final: {why_fails(key, axis)}", "incomplete"
    if key == "regression" and axis.gated:
        # A gated trial is a loss on both axes without a judge: the previous version was never compared there.
        on = f" on {fmt.trials_phrase(gated_trials)}" if gated_trials else ""
        return f"not compared with the previous version{on}: the new version failed a hard assertion", "fail"
    return f"{failed}: {why_fails(key, axis, tuple(gated_trials))}", "fail"


def _assertion_comments(run: RunData, case_id: str) -> dict[str, str]:
    """command -> the comment above it in the case as run, for the predicates that have one."""
    case = next((c for c in run.cases if c.id == case_id), None)
    if case is None:
        return {}
    return {h.command: h.comment for h in case.hard_assertions if h.comment}


def _axis_panel(key: str, case_id: str, axis: AxisResult, trials: dict, run: RunData,
                invalid_trials: set, comments: Optional[dict] = None) -> AxisPanel:
    name = "Efficacy" if key == "efficacy" else "Regression"
    gated_trials = [n for n in range(1, len(axis.outcomes) + 1) if gate_failures(trials.get((case_id, n)))]
    waiting = not axis.passed and undecided(key, axis)
    word = ("pass" if key == "efficacy" else "hold") if axis.passed else ("not final" if waiting else "fail")
    css = "pass" if axis.passed else ("incomplete" if waiting else "fail")
    cells = tuple(_cell(n, o, n in gated_trials, n in invalid_trials)
                  for n, o in enumerate(axis.outcomes, start=1))
    gates = tuple(gate_detail(n, trials[(case_id, n)], comments or {}) for n in gated_trials)
    other = run.run.comparisons.get(key, ("new", "baseline" if key == "efficacy" else "previous"))
    # The evidence: every lost trial; and when efficacy fails for want of wins (not gated, not merely
    # unjudged), the tied trials too, since they are what kept it from passing.
    short_of_wins = (key == "efficacy" and not axis.passed and not waiting and not gated_trials
                     and axis.wins < 3)
    losses = tuple(loss_detail(n, key, other, trials.get((case_id, n)), tie=(o != LOSS))
                   for n, o in enumerate(axis.outcomes, start=1)
                   if n not in gated_trials and (o == LOSS or (short_of_wins and o == TIE)))
    return AxisPanel(axis=name, applicable=True, na_text="",
                     pill=Pill(f"{name}: {word}", css),
                     cells=cells, summary=axis_summary(key, axis, gated_trials),
                     gates=gates, losses=losses,
                     evidence_title=f"{name}: the trials behind \u201c{word}\u201d" if gates or losses else "")


def axis_summary(key: str, axis: AxisResult, gated_trials: Sequence[int] = ()) -> str:
    """One line from the counts: why this axis of the case passes or fails."""
    if axis.gated or gated_trials:
        return f"gated: {gate_phrase(key, gated_trials)}"
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
