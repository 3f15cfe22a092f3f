"""Plan stage 3, the estimate and the budget: each run's expected cost from the history, and its sentences."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from attrs import evolve

from ... import serde
from ...estimate import estimate
from ...model import Budget, Estimate
from ..runs.costs import ceiling, cell_costs
from ..store.files import write_atomic
from .decide import Decision
from ..store.planfile import Plan, write_plan
from ..runs.folder import read_run_info


def with_estimate(run_dir: Path, plan: Plan, d: Decision, histories: dict, prices) -> Plan:
    """Estimate the run from the history, record it in run.json and its per-cell costs in plan.json."""
    cells: dict[str, int] = {}
    for c in plan.cells:
        cells[c.arm] = cells.get(c.arm, 0) + 1
    comparisons = 2 if d.shape == "three-arm" else 1  # a calibration has one, new against its twin
    readings = 2 if d.confirm else 1  # confirmed judging: at most a swapped second reading per packet
    est = estimate(d.skill.name, histories.get(d.skill.name, []), histories, cells,
                   len(d.cases) * d.trials * comparisons * readings, model=plan.model, prices=prices)
    info = evolve(read_run_info(run_dir), estimate=est)
    write_atomic(run_dir / "run.json", serde.dumps(info))
    plan = evolve(plan, cell_costs=cell_costs(est))
    write_plan(run_dir, plan)
    return plan


def skill_ceilings(runs: list) -> Optional[dict]:
    """skill -> its ceiling, for the skills with a budget; None when none has one."""
    out = {}
    for d, _, _ in runs:
        c = ceiling(d.budget)
        if c is not None:
            out[d.skill.name] = c
    return out or None


def budget_phrase(b: Optional[Budget]) -> str:
    """A budget as printed: "ceiling 2,000,000 raw tokens or $5.00 (its source)"."""
    parts = []
    if b is not None and b.raw_tokens is not None:
        parts.append(f"{b.raw_tokens:,} raw tokens")
    if b is not None and b.usd is not None:
        parts.append(f"${b.usd:,.2f}")
    return "ceiling " + " or ".join(parts) + (f" ({b.source})" if b is not None and b.source else "")


def _tok(x: Optional[float]) -> str:
    if x is None:
        return "?"
    if x >= 1_000_000:
        return f"{x / 1_000_000:.2f}M"
    if x >= 1_000:
        return f"{x / 1_000:.0f}k"
    return f"{x:.0f}"


def _usd(x: Optional[float]) -> str:
    return "no price" if x is None else f"${x:,.2f}"


def arms_phrase(est: Estimate, d: Decision, p: Plan) -> str:
    """A run's estimate as printed: each arm's cells and tokens, the judges, and the whole."""
    if est.basis == "none":
        return est.source
    parts = [f"{arm} {a.cells} cells {_tok(a.raw_tokens)}" for arm, a in est.arms.items()]
    if est.judges is not None:
        parts.append(f"judges {est.judges.cells} packets {_tok(est.judges.raw_tokens)}")
    return (f"{'; '.join(parts)} raw tokens; in all {_tok(est.raw_tokens)} raw, "
            f"{_tok(est.cost_equivalent_tokens)} cost-equivalent, {_usd(est.cost_usd)} (from {est.source})")


def estimate_line(runs: list, ests: list, total: Optional[Estimate]) -> str:
    """The one line the skill relays before the fan-out."""
    cells = sum(len(p.cells) - sum(1 for c in p.cells if c.skip) for _, _, p in runs)
    packets = sum(e.judges.cells for e in ests if e is not None and e.judges is not None)
    if total is None:
        known = [e for e in ests if e is not None and e.basis != "none"]
        why = ests[0].source if ests and ests[0] is not None and not known else "some runs have no earlier usage to go by"
        return f"{cells} arm cells and their judges; cannot estimate the tokens ({why.removeprefix('cannot estimate: ')})"
    return (f"{cells} arm cells and about {packets} judge packets, about {_tok(total.raw_tokens)} raw tokens "
            f"({_tok(total.cost_equivalent_tokens)} cost-equivalent), {_usd(total.cost_usd)}")
