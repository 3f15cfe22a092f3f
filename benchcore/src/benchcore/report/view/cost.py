"""The report's cost section: usage per arm and the judges, the ratios, estimate against actual, the budget."""

from __future__ import annotations

from typing import Optional

from attrs import frozen

from ...model import ArmUsage, RunData, SkillResult
from .. import fmt

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


def cost_table(result: SkillResult, two_arm: bool, run: Optional[RunData] = None) -> CostTable:
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
    if result.ignored_usage is not None:
        # Arms or judges the run's own sessions launched twice (collect counted one, ignored the others):
        # paid for, so shown, in no arm's figures and no ratio (the trial details name each one).
        rows.append(_cost_row("ignored duplicates", result.ignored_usage))
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
