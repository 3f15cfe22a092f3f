"""A pilot run (``plan --pilot``) read back: per case, did the outputs differ, did the judge decide, and what would
the full run cost. Never a verdict: one trial says nothing about passing. Pure.

The full run's cost is the pilot's, arms and judges, times :data:`benchcore.model.TRIALS` (a full run has that
many trials of the same cells and judges; panels, which split judges open, are not counted). A model with no
price gives no dollar figure, and the line says so.
"""

from __future__ import annotations

from typing import Optional

from attrs import frozen

from . import scoring
from .model import LOSS, TIE, TRIALS, WIN, ArmUsage, RunData
from .nosignal import silent_assertions
from .usage import sum_usage

_SAID = {WIN: "the skill's output won", LOSS: "the skill's output lost", TIE: "a tie"}


@frozen
class PilotComparison:
    comparison: str  # efficacy | regression
    outputs_differ: Optional[bool]  # None: an output is missing
    outcome: Optional[str]  # WIN | TIE | LOSS, None: not judged
    gated: bool = False  # the skill's output failed a hard assertion: a loss without judging


@frozen
class PilotCase:
    case: str
    comparisons: tuple[PilotComparison, ...]
    worth_a_look: bool  # outputs identical, a tie, or the skill's output lost or failed a hard assertion
    line: str


@frozen
class PilotCost:
    cells: int
    judges: int
    raw_tokens: int
    cost_equivalent_tokens: float
    cost_usd: Optional[float]
    full_raw_tokens: int
    full_cost_equivalent_tokens: float
    full_cost_usd: Optional[float]
    unpriced_models: tuple[str, ...] = ()


@frozen
class PilotReport:
    """``pilot.json`` in the run folder, and what ``render`` prints for a pilot."""

    run_id: str
    skill: str
    shape: str
    cases: tuple[PilotCase, ...]
    cost: PilotCost
    lines: tuple[str, ...]
    summary: str
    pilot: bool = True


def _same(a: Optional[str], b: Optional[str]) -> Optional[bool]:
    if a is None or b is None:
        return None
    return " ".join(a.split()) == " ".join(b.split())


def _money(usd: Optional[float]) -> str:
    return "no dollar figure (a model has no price)" if usd is None else f"${usd:,.2f}"


def build_pilot(data: RunData, baseline_results: Optional[dict] = None) -> PilotReport:
    """The pilot's report. ``baseline_results``: (case, trial) -> the baseline's hard-assertion results, when
    collect ran them (an assertion the baseline passes too is named)."""
    run = data.run
    tm = {(t.case, t.trial): t for t in data.trials}
    cases, lines = [], []
    for case_id in run.cases:
        td = tm.get((case_id, 1))
        comps = []
        for comp, (_new, other) in run.comparisons.items():
            outputs = td.outputs if td else {}
            differ = _same(outputs.get("new"), outputs.get(other))
            gated = bool(td and scoring.failed_assertions(td.assertions))
            outcome = LOSS if gated else scoring.trial_outcome(td.comparisons.get(comp) if td else None,
                                                                run.confirm_judgments)
            comps.append(PilotComparison(comparison=comp, outputs_differ=None if differ is None else not differ,
                                         outcome=outcome, gated=gated))
        parts = []
        for c in comps:
            other = run.comparisons[c.comparison][1]
            against = "no skill" if other == "baseline" else f"the {other} version"
            seen = ("an output is missing" if c.outputs_differ is None
                    else "the outputs differed" if c.outputs_differ else "the outputs were the same")
            if c.gated:
                judged = "the skill's output failed a hard assertion (a loss without judging)"
            elif c.outcome is None:
                judged = "not judged yet"
            else:
                judged = f"the judge decided: {_SAID[c.outcome]}" if c.outcome != TIE else "the judge called a tie"
            parts.append(f"against {against}, {seen}; {judged}")
        eff = comps[0] if comps else None
        look = eff is not None and (eff.outputs_differ is False or eff.outcome in (TIE, LOSS) or eff.gated)
        advice = ""
        if eff is not None and eff.outputs_differ is False:
            advice = " Worth rewriting: with and without the skill the answers were the same."
        elif eff is not None and eff.outcome == TIE:
            advice = " Worth a look: the judge could not tell the two apart."
        elif eff is not None and (eff.outcome == LOSS or eff.gated):
            advice = " Worth a look: the case or the skill may be wrong."
        line = f"{case_id}: " + "; ".join(parts) + "." + advice
        cases.append(PilotCase(case=case_id, comparisons=tuple(comps), worth_a_look=look, line=line))
        lines.append(line)
    if baseline_results:
        new = {(t.case, t.trial): t.assertions for t in data.trials if t.assertions is not None}
        for a in silent_assertions(data.cases, new, baseline_results):
            lines.append(a.statement)
    arms = [u for t in data.trials for u in t.usage.values()]
    judges = [u for t in data.trials for u in t.judge_usage]
    spent: ArmUsage = sum_usage(arms + judges)
    scale = TRIALS // max(run.trials, 1)
    cost = PilotCost(cells=len(arms), judges=len(judges), raw_tokens=spent.raw_tokens,
                     cost_equivalent_tokens=round(spent.cost_equivalent_tokens, 6),
                     cost_usd=None if spent.cost_usd is None else round(spent.cost_usd, 6),
                     full_raw_tokens=spent.raw_tokens * scale,
                     full_cost_equivalent_tokens=round(spent.cost_equivalent_tokens * scale, 6),
                     full_cost_usd=None if spent.cost_usd is None else round(spent.cost_usd * scale, 6),
                     unpriced_models=tuple(spent.unpriced_models))
    lines.append(f"cost: this pilot spent {_money(cost.cost_usd)} ({cost.raw_tokens:,} raw tokens, {cost.cells} arm "
                 f"cells and {cost.judges} judges); the full run ({TRIALS} trials) would cost about "
                 f"{_money(cost.full_cost_usd)} ({cost.full_raw_tokens:,} raw tokens), {scale} times this, before any "
                 "panel of extra judges.")
    look = [c.case for c in cases if c.worth_a_look]
    summary = (f"Pilot of {run.skill.name}, one trial per arm per case: no verdict (the pass rules need {TRIALS} "
               f"trials). " + (f"{len(look)} of {len(cases)} cases are worth a look before the full run: "
                               f"{', '.join(look)}." if look else
                               f"In all {len(cases)} cases the outputs differed and the judge decided."))
    return PilotReport(run_id=run.run_id, skill=run.skill.name, shape=run.shape, cases=tuple(cases), cost=cost,
                       lines=tuple(lines), summary=summary)


__all__ = ["PilotCase", "PilotComparison", "PilotCost", "PilotReport", "build_pilot"]
