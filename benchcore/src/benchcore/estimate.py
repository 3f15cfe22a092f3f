"""The pre-launch cost estimate and the budget cut (issue 13). Pure: no files, clock or subprocess.

- A run's usage is summarized per arm (and for its judges) as a :class:`UsageSummary`: the totals
  and the median cell (each figure the median over the cells that have usage), which ``render``
  writes into the history line.
- :func:`estimate` turns earlier history lines into an :class:`Estimate` of a planned run: per arm,
  the planned cells times the arm's cost per cell, where the cost per cell is the median of the
  median cells of the last :data:`RUNS` earlier runs (of this skill on the same model, else of this
  skill, else the median over the other skills), and likewise for the judge packets. A previous arm
  with no figure of its own takes the new arm's (the same skill, one edit apart).
- :func:`reached` is the ceiling test the fan-outs apply before each launch (see
  :func:`benchcore.harness.fanout.scripts.launches`, and the same rule in the workflow script).
"""

from __future__ import annotations

import statistics
from typing import Iterable, Mapping, Optional, Sequence

from . import pricing
from .model import ArmEstimate, ArmUsage, Budget, CellCost, Estimate, HistoryEntry, UsageSummary

RUNS = 5  # earlier runs an estimate looks at (the newest)
JUDGES = "judges"  # the key of the judges in a history line's usage
_FIGURES = ("raw_tokens", "cost_equivalent_tokens", "input", "output", "cache_write_5m", "cache_write_1h",
            "cache_read")


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def median_cell(cells: Sequence) -> CellCost:
    """The median of each figure over ``cells`` (ArmUsage or CellCost); dollars only when every cell has them."""
    figures = {k: round(_median([float(getattr(c, k)) for c in cells]), 6) for k in _FIGURES}
    usd = [c.cost_usd for c in cells]
    cost = round(_median(usd), 6) if usd and all(u is not None for u in usd) else None
    return CellCost(cost_usd=cost, **figures)


def summarize(cells: Sequence[ArmUsage]) -> Optional[UsageSummary]:
    """One arm of one run for its history line; None when no cell has usage."""
    if not cells:
        return None
    usd = [c.cost_usd for c in cells]
    total = round(sum(usd), 6) if all(u is not None for u in usd) else None
    return UsageSummary(cells=len(cells), raw_tokens=sum(c.raw_tokens for c in cells),
                        cost_equivalent_tokens=round(sum(c.cost_equivalent_tokens for c in cells), 6),
                        cost_usd=total, median_cell=median_cell(cells))


def _per_cell(entries: Sequence[HistoryEntry], key: str) -> Optional[CellCost]:
    """The cost per cell of ``key`` (an arm or "judges") over the newest RUNS entries that have it."""
    have = [e.usage[key].median_cell for e in entries if key in e.usage and e.usage[key].cells][-RUNS:]
    return median_cell(have) if have else None


def _figures_for(entries: Sequence[HistoryEntry], arms: Iterable[str]) -> Optional[dict[str, CellCost]]:
    out = {}
    for key in (*arms, JUDGES):
        cell = _per_cell(entries, key)
        if cell is None and key in ("previous", "twin"):
            cell = _per_cell(entries, "new")
        if cell is None:
            return None
        out[key] = cell
    return out


def _runs_phrase(n: int) -> str:
    return f"{n} earlier run{'s' if n != 1 else ''}"


def _reprice(cell: CellCost, model: Optional[str], same_model: bool, prices) -> CellCost:
    """Dollars for ``model`` when the figures come from runs on another model (and the price is known)."""
    if model is None or same_model or prices is None:
        return cell
    usd, unpriced = pricing.dollars(prices, {model: cell})
    return CellCost(**{**{k: getattr(cell, k) for k in _FIGURES}, "cost_usd": None if unpriced else usd})


def estimate(skill: str, own: Sequence[HistoryEntry], others: Mapping[str, Sequence[HistoryEntry]],
             cells: Mapping[str, int], packets: int, *, model: Optional[str] = None, prices=None) -> Estimate:
    """The estimate of a planned run of ``skill``: ``cells`` per arm and ``packets`` first-round judges.

    ``own``: this skill's history, newest last; ``others``: every other skill's history.
    ``model``: the model the arms are asked to run on (None: the session default)."""
    arms = tuple(cells)
    source, figures, same_model = "", None, True
    if model is not None:
        mine = [e for e in own if e.model == model and e.usage]
        figures = _figures_for(mine, arms)
        if figures:
            source = f"{skill}'s {_runs_phrase(min(len(mine), RUNS))} on {model}"
    if figures is None:
        mine = [e for e in own if e.usage]
        figures = _figures_for(mine, arms)
        if figures:
            same_model = model is None or all(e.model == model for e in mine[-RUNS:])
            source = f"{skill}'s {_runs_phrase(min(len(mine), RUNS))}"
    basis = "this skill"
    if figures is None:
        per_skill = {name: f for name, entries in sorted(others.items())
                     if name != skill and (f := _figures_for([e for e in entries if e.usage], arms))}
        if per_skill:
            figures = {key: median_cell([f[key] for f in per_skill.values()]) for key in (*arms, JUDGES)}
            basis, same_model = "other skills", model is None
            source = f"the median of {len(per_skill)} other skill{'s' if len(per_skill) != 1 else ''} " \
                     f"({', '.join(per_skill)})"
    if figures is None:
        return Estimate(basis="none", source="cannot estimate: no earlier run of any skill recorded its usage")
    figures = {k: _reprice(v, model, same_model, prices) for k, v in figures.items()}

    def scale(cell: CellCost, n: int) -> ArmEstimate:
        return ArmEstimate(cells=n, per_cell=cell, raw_tokens=round(cell.raw_tokens * n, 6),
                           cost_equivalent_tokens=round(cell.cost_equivalent_tokens * n, 6),
                           cost_usd=None if cell.cost_usd is None else round(cell.cost_usd * n, 6))

    arm_est = {arm: scale(figures[arm], n) for arm, n in cells.items()}
    judges = scale(figures[JUDGES], packets)
    parts = [*arm_est.values(), judges]
    usd = [p.cost_usd for p in parts]
    return Estimate(basis=basis, source=source, arms=arm_est, judges=judges,
                    raw_tokens=round(sum(p.raw_tokens for p in parts), 6),
                    cost_equivalent_tokens=round(sum(p.cost_equivalent_tokens for p in parts), 6),
                    cost_usd=round(sum(usd), 6) if all(u is not None for u in usd) else None)


PRIOR = "prior"  # the basis of a first-run estimate (no earlier run of any skill to go by)
_COMPONENTS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")


def _prior_cell(base: Mapping[str, float], text_tokens: float, model: Optional[str], prices) -> CellCost:
    """One cell of the prior: its base tokens, plus ``text_tokens`` of the case's (and skill's) text written to the
    cache once and read back on each later turn; priced on ``model`` when its price is known."""
    turns = max(1, int(base.get("turns", 1)))
    parts = {k: float(base.get(k, 0)) for k in _COMPONENTS}
    parts["cache_write_5m"] += text_tokens
    parts["cache_read"] += text_tokens * (turns - 1)
    cell = CellCost(raw_tokens=round(sum(parts.values()), 6), **{k: round(v, 6) for k, v in parts.items()})
    cell = CellCost(**{**{k: getattr(cell, k) for k in _FIGURES},
                       "cost_equivalent_tokens": round(pricing.cost_equivalent_tokens(cell), 6)})
    return _reprice(cell, model, False, prices) if model else cell


def prior_estimate(prior: Mapping, cells: Mapping[str, int], packets: int, case_chars: float, skill_chars: float,
                   *, model: Optional[str], prices=None) -> Estimate:
    """A first run's rough estimate (``basis`` "prior"): the documented prior per cell
    (benchcore/data/estimate_prior.json), scaled by the case's text (``case_chars``: the mean of its cases' prompt
    and fixture) and, for arms with the skill, the skill's (``skill_chars``), priced on ``model`` (the model the
    arms will be served). Only when no run of any skill has recorded its usage."""
    per_token = float(prior.get("chars_per_token", 4)) or 4.0
    cap = float(prior.get("text_cap_chars", 400_000))
    case_t, skill_t = min(case_chars, cap) / per_token, min(skill_chars, cap) / per_token

    def scale(cell: CellCost, n: int) -> ArmEstimate:
        return ArmEstimate(cells=n, per_cell=cell, raw_tokens=round(cell.raw_tokens * n, 6),
                           cost_equivalent_tokens=round(cell.cost_equivalent_tokens * n, 6),
                           cost_usd=None if cell.cost_usd is None else round(cell.cost_usd * n, 6))

    arms = {arm: scale(_prior_cell(prior["baseline_cell"] if arm == "baseline" else prior["skill_cell"],
                                   case_t + (0 if arm == "baseline" else skill_t), model, prices), n)
            for arm, n in cells.items()}
    judges = scale(_prior_cell(prior["judge_packet"], case_t, model, prices), packets)
    parts = [*arms.values(), judges]
    usd = [p.cost_usd for p in parts]
    return Estimate(basis=PRIOR, source=f"a rough first-run prior per cell (docs/cost.md), on "
                                        f"{model or 'the session default model'}",
                    arms=arms, judges=judges, raw_tokens=round(sum(p.raw_tokens for p in parts), 6),
                    cost_equivalent_tokens=round(sum(p.cost_equivalent_tokens for p in parts), 6),
                    cost_usd=round(sum(usd), 6) if all(u is not None for u in usd) else None)


def total_of(estimates: Iterable[Estimate]) -> Optional[Estimate]:
    """Several runs' estimates summed (plan of several skills or models); None when any cannot estimate."""
    ests = list(estimates)
    if not ests or any(e.raw_tokens is None for e in ests):
        return None
    usd = [e.cost_usd for e in ests]
    return Estimate(basis=ests[0].basis if len({e.basis for e in ests}) == 1 else "mixed",
                    source="; ".join(e.source for e in ests),
                    raw_tokens=round(sum(e.raw_tokens for e in ests), 6),
                    cost_equivalent_tokens=round(sum(e.cost_equivalent_tokens for e in ests), 6),
                    cost_usd=round(sum(usd), 6) if all(u is not None for u in usd) else None)


# ----------------------------------------------------------------------------- the budget


def reached(budget: Budget, raw_tokens: float, usd: Optional[float]) -> bool:
    """Whether spending ``raw_tokens`` / ``usd`` passes the ceiling (unknown dollars never pass it)."""
    if budget.raw_tokens is not None and raw_tokens > budget.raw_tokens:
        return True
    return budget.usd is not None and usd is not None and usd > budget.usd


def run_usage(data) -> dict[str, UsageSummary]:
    """A run's usage per arm and for its judges (``RunData`` -> the history line's ``usage``)."""
    out: dict[str, UsageSummary] = {}
    for arm in data.run.arms:
        s = summarize([t.usage[arm] for t in data.trials if arm in t.usage and t.case in data.run.cases])
        if s is not None:
            out[arm] = s
    s = summarize([u for t in data.trials if t.case in data.run.cases for u in t.judge_usage])
    if s is not None:
        out[JUDGES] = s
    return out
