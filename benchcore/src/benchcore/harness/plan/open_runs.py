"""The runs of a repository whose temp worlds still exist: which one plan may resume, and which are stale.

A run is *open* when its run folder has a readable plan.json and the temp
root it names still exists and carries the run's tag (``worlds.is_temp_root``):
its worlds and skill copies are still on disk. An open run is *stale* (what
``benchcore clean`` without a run folder removes) when any of:

- it was rendered (a ``<skill>.history.jsonl`` in ``tests/.reports`` names it,
  or ``results.json`` is in its folder): the report is written, only the
  worlds were left behind (``clean`` did not run);
- a newer run of the same skill and model was planned after it: ``plan``
  resumes only the newest run of a skill, so this one can never continue;
- it was planned more than ``older_than`` hours ago (24 by default) and is
  still unfinished: left for good.

An unfinished run's age stands in for "given up" here; whether the session that launched its arms still runs
is what a resume asks (``harness/claude/live.py``), and a rendered run's leftovers are removed by the next plan
(``leftovers.py``).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Optional

from attrs import frozen

from ...errors import BenchError
from ..store.files import not_regular, read_text
from .worlds import RUNS_DIR
from ..store.planfile import Plan, read_plan
from ..worlds.temp import is_temp_root

STALE_HOURS = 24.0
REPORTS_DIR = "tests/.reports"


@frozen
class RunFolder:
    """A planned run folder, its plan, and whether its temp worlds still exist and whether it was rendered."""

    run_dir: Path
    plan: Plan
    open: bool
    rendered: bool

    @property
    def key(self) -> tuple[str, Optional[str]]:
        return (self.plan.skill, self.plan.model)


def planned_at(plan: Plan) -> Optional[datetime]:
    try:
        return datetime.fromisoformat(plan.planned_at.replace("Z", "+00:00"))
    except ValueError:
        return None


def run_folders(root: Path) -> list[RunFolder]:
    """Every planned run folder of the repository, oldest first (by planned time, then id); a folder whose
    plan.json cannot be read is passed over (``collect`` names its problem when it is passed)."""
    runs_dir = root / RUNS_DIR
    rendered = rendered_ids(root / REPORTS_DIR)
    found = []
    for d in sorted(runs_dir.iterdir()) if runs_dir.is_dir() else ():
        if d.is_symlink() or not (d / "plan.json").is_file():
            continue
        try:
            plan = read_plan(d)
        except BenchError:
            continue
        temp = Path(plan.temp_root) if plan.temp_root else None
        is_open = temp is not None and is_temp_root(temp, plan.run_id, plan.temp_nonce)
        found.append(RunFolder(d, plan, is_open, plan.run_id in rendered or (d / "results.json").is_file()
                               or (d / "pilot.json").is_file()))
    return sorted(found, key=lambda r: (r.plan.planned_at, r.plan.run_id))


def rendered_ids(reports: Path) -> set[str]:
    """The run ids the reports folder's histories name (render appends one line per rendered run)."""
    ids = set()
    for path in sorted(reports.glob("*.history.jsonl")) if reports.is_dir() else ():
        if not_regular(path) is not None:
            continue
        try:
            lines = read_text(path).splitlines()
        except BenchError:
            continue
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("run_id"), str):
                ids.add(entry["run_id"])
    return ids


def newest_of(runs: list[RunFolder], skills: set[str]) -> Optional[RunFolder]:
    """The newest run of any of ``skills``, open or not (plan resumes it only if it is open)."""
    mine = [r for r in runs if r.plan.skill in skills]
    return mine[-1] if mine else None


def stale_runs(runs: list[RunFolder], now: datetime, older_than: float = STALE_HOURS) -> list[tuple[RunFolder, str]]:
    """The open runs that are stale, each with why (see the module's docstring), oldest first."""
    out = []
    for i, r in enumerate(runs):
        if not r.open:
            continue
        newer = [n for n in runs[i + 1:] if n.key == r.key and n.plan.planned_at > r.plan.planned_at]
        when = planned_at(r.plan)
        if r.rendered:
            why = "rendered, but its worlds were not removed"
        elif newer:
            why = f"unfinished, and a newer run of {r.plan.skill} was planned ({newer[-1].plan.run_id}), so it is never resumed"
        elif when is None or now - when > timedelta(hours=older_than):
            why = f"unfinished, planned {r.plan.planned_at or 'at an unknown time'} (more than {older_than:g} hours ago)"
        else:
            continue
        out.append((r, why))
    return out
