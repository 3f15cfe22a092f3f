"""Plan stage 3, the estimate and the budget: each run's expected cost from the history, and its sentences."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from attrs import evolve

from ... import serde
from ...errors import BenchError
from ...estimate import PRIOR, estimate, prior_estimate
from ...model import Budget, Estimate
from ..runs.costs import ceiling, cell_costs
from ..store.files import write_atomic
from .decide import Decision
from ..store.planfile import Plan, write_plan
from ..runs.folder import read_run_info


def with_estimate(run_dir: Path, plan: Plan, d: Decision, histories: dict, prices, root: Optional[Path] = None,
                  served: Optional[str] = None) -> Plan:
    """Estimate the run from the history (a skill's first run with no history anywhere: from the documented prior,
    scaled by its cases and skill and priced on the model served), record it in run.json and its per-cell costs
    in plan.json (never a prior's: a ceiling is not held to a rough figure)."""
    cells: dict[str, int] = {}
    for c in plan.cells:
        cells[c.arm] = cells.get(c.arm, 0) + 1
    comparisons = 2 if d.shape == "three-arm" else 1  # a calibration has one, new against its twin
    readings = 2 if d.confirm else 1  # confirmed judging: at most a swapped second reading per packet
    packets = len(d.cases) * d.trials * comparisons * readings
    est = estimate(d.skill.name, histories.get(d.skill.name, []), histories, cells, packets, model=plan.model,
                   prices=prices)
    costs = cell_costs(est)
    if est.basis == "none" and root is not None:
        case_chars, skill_chars = text_sizes(root, d)
        est = prior_estimate(read_prior(), cells, packets, case_chars, skill_chars,
                             model=plan.model or served or DEFAULT_MODEL, prices=prices)
    info = evolve(read_run_info(run_dir), estimate=est)
    write_atomic(run_dir / "run.json", serde.dumps(info))
    plan = evolve(plan, cell_costs=costs)
    write_plan(run_dir, plan)
    return plan


DEFAULT_MODEL = "claude-opus-5-5"  # Claude Code 2.1.328's default model (docs: CLAUDE-CODE.md), when none is known
PRIOR_RESOURCE = "data/estimate_prior.json"


def read_prior() -> dict:
    """The documented prior per cell (benchcore/data/estimate_prior.json)."""
    import json
    from importlib import resources

    try:
        return json.loads(resources.files("benchcore").joinpath(PRIOR_RESOURCE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchError(f"benchcore/{PRIOR_RESOURCE}", f"cannot be read: {exc}", fix="reinstall benchcore") from None


def text_sizes(root: Path, d: Decision) -> tuple[float, float]:
    """(the mean characters of a case's prompt, seed and fixture files; the characters of the skill's files):
    what an arm reads into its context beyond Claude Code's own."""
    from ..repo.tree import case_dirs, fixture_path

    def size(p: Optional[Path]) -> int:
        if p is None or not p.exists():
            return 0
        files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file() and not f.is_symlink()]
        return sum(f.stat().st_size for f in files)

    dirs = {c.name: c for c in case_dirs(root, d.skill)}
    per_case = [len(c.prompt) + sum(len(t.text) for t in c.seed) + size(fixture_path(root, dirs[c.id], c))
                for c in d.cases if c.id in dirs]
    return (sum(per_case) / len(per_case) if per_case else 0.0), float(size(root / d.skill.path))


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


def arms_phrase(est: Estimate, d: Decision, p: Plan, totals: bool = True) -> str:
    """A run's estimate as printed: each arm's cells and tokens, the judges, and (``totals``) the whole with its
    source; without, the plan's one ``estimate:`` line says those (a plan of one run prints each number once)."""
    if est.basis == "none":
        return est.source
    parts = [f"{arm} {a.cells} cells {_tok(a.raw_tokens)}" for arm, a in est.arms.items()]
    if est.judges is not None:
        parts.append(f"judges {est.judges.cells} packets {_tok(est.judges.raw_tokens)}")
    if not totals:
        return f"{'; '.join(parts)} raw tokens"
    return (f"{'; '.join(parts)} raw tokens; in all {_tok(est.raw_tokens)} raw, "
            f"{_tok(est.cost_equivalent_tokens)} cost-equivalent, {_usd(est.cost_usd)} (from {est.source})")


ROUGH_TAIL = "up to 2x either way"
ROUGH = f"rough: a first run's prior, {ROUGH_TAIL}"


def estimate_line(runs: list, ests: list, total: Optional[Estimate]) -> str:
    """The one line the skill relays before the fan-out (a first run's, from the prior, labelled rough)."""
    cells = sum(len(p.cells) - sum(1 for c in p.cells if c.skip) for _, _, p in runs)
    packets = sum(e.judges.cells for e in ests if e is not None and e.judges is not None)
    if total is None:
        known = [e for e in ests if e is not None and e.basis != "none"]
        why = ests[0].source if ests and ests[0] is not None and not known else "some runs have no earlier usage to go by"
        return f"{cells} arm cells and their judges; cannot estimate the tokens ({why.removeprefix('cannot estimate: ')})"
    rough = any(e is not None and e.basis == PRIOR for e in ests)
    one = ests[0] if len(ests) == 1 else None  # a single run's estimate names where it comes from
    if rough:
        tail = f" ({one.source}; {ROUGH_TAIL})" if one is not None else f" ({ROUGH})"
    else:
        tail = f" (from {one.source})" if one is not None else ""
    return (f"{cells} arm cells and about {packets} judge packets, about {_tok(total.raw_tokens)} raw tokens "
            f"({_tok(total.cost_equivalent_tokens)} cost-equivalent), {_usd(total.cost_usd)}" + tail)
