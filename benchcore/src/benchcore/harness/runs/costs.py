"""The I/O side of the estimate and the budget: read every skill's history, sum what a run has spent.

Pure logic lives in :mod:`benchcore.estimate`; this module only reads files and hands data over.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ... import history as hist
from ...estimate import JUDGES
from ...model import Budget, CellCost, Estimate, HistoryEntry

HISTORY_SUFFIX = ".history.jsonl"


def read_histories(reports: Path) -> dict[str, list[HistoryEntry]]:
    """skill -> its history entries (newest last) from ``<reports>/<skill>.history.jsonl``; corrupt lines
    and unreadable files are left out (render reports them)."""
    out: dict[str, list[HistoryEntry]] = {}
    if not reports.is_dir():
        return out
    for path in sorted(reports.glob("*" + HISTORY_SUFFIX)):
        skill = path.name[: -len(HISTORY_SUFFIX)]
        if skill.endswith(".history.corrupt"):
            continue
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        entries, _, _ = hist.parse(text, str(path))
        out[skill] = entries
    return out


def cell_costs(est: Estimate) -> dict[str, CellCost]:
    """arm (and "judges") -> the estimated cost of one cell (one judge packet)."""
    out = {arm: a.per_cell for arm, a in est.arms.items()}
    if est.judges is not None:
        out[JUDGES] = est.judges.per_cell
    return out


def task_cost(pool: str, group: str, cell: Optional[CellCost]) -> Optional[dict]:
    """A bound task's ``cost``: what the workflow script reserves for it against its pool's ceiling."""
    if cell is None:
        return None
    return {"pool": pool, "group": group, "raw": cell.raw_tokens,
            "usd": cell.cost_usd if cell.cost_usd is not None else 0.0, "output": cell.output}


def ceiling(budget: Optional[Budget], spent_raw: float = 0.0, spent_usd: float = 0.0) -> Optional[dict]:
    """A pool's bound ``ceilings`` entry."""
    if budget is None or (budget.raw_tokens is None and budget.usd is None):
        return None
    out: dict = {"spent_raw": round(spent_raw, 6), "spent_usd": round(spent_usd, 6)}
    if budget.raw_tokens is not None:
        out["raw_tokens"] = budget.raw_tokens
    if budget.usd is not None:
        out["usd"] = budget.usd
    return out


def spent(run_dir: Path, prices=None) -> tuple[float, float]:
    """(raw tokens, dollars) of every transcript collected into a run directory so far (arms and judges;
    a transcript with no price counts no dollars)."""
    from ..claude.tokens import transcript_usage

    raw = usd = 0.0
    cases = run_dir / "cases"
    if not cases.is_dir():
        return raw, usd
    from .folder import transcript_files

    for p in transcript_files(sorted(cases.rglob("*.jsonl"))):
        u, _ = transcript_usage(p, prices, follow=False)  # invalid attempts kept aside were paid for too
        raw += u.raw_tokens
        usd += u.cost_usd or 0.0
    return raw, usd
