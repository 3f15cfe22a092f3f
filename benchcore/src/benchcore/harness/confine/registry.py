"""The guard's registry of active runs: ``<temp base>/benchcore-*/guard.json``, written by ``plan`` for each run,
gone with ``clean``; and taking the guard hook out of the settings when this repository has no run left (I/O)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

REGISTRY = "guard.json"


def register(temp_root: Path, run_dir: Path) -> None:
    """Mark a run active for the guard (``plan``); ``clean`` removes the temp root and with it the mark."""
    (Path(temp_root) / REGISTRY).write_text(json.dumps({"run_dir": str(run_dir)}) + "\n", encoding="utf-8")


def register_runs(run_dirs) -> None:
    """``register`` every planned run directory (from its plan.json's temp_root)."""
    for run_dir in run_dirs:
        plan = json.loads((Path(run_dir) / "plan.json").read_text(encoding="utf-8"))
        if plan.get("temp_root"):
            register(Path(plan["temp_root"]), Path(run_dir))


def benchmark_skill_dir(repo_root: Optional[Path]) -> Optional[str]:
    """The skill folder whose scripts/guard the hook runs: the wrapper's ($BENCHMARK_SKILL_DIR), else the one a
    ``benchcore`` typed by hand finds (fanout.prompts.find_skill_dir), else None."""
    from ...errors import BenchError
    from ..fanout.prompts import find_skill_dir

    if os.environ.get("BENCHMARK_SKILL_DIR"):
        return os.environ["BENCHMARK_SKILL_DIR"]
    try:
        return str(find_skill_dir(repo_root))
    except BenchError:
        return None


def release(repo_root: Path, base: Path) -> str:
    """After ``clean``: when no run of this repository under ``base`` is active any more (another repository's
    runs in the same temp folder do not count), take the guard hook plan added out of
    ``.claude/settings.local.json``, whichever install's guard script it names; the line to print ("" when
    nothing was removed)."""
    from ..claude.settings import LOCAL, guard_command, guard_hooks, remove_guard

    mine = Path(repo_root).resolve()
    if any(r.resolve() == mine or mine in r.resolve().parents for r in active_runs(base)):
        return ""
    commands = {guard_command(benchmark_skill_dir(repo_root), base), *guard_hooks(repo_root, base)}
    if not any([remove_guard(repo_root, c) for c in commands if c]):
        return ""
    return f"note: no run is active in this repository, so the benchmark's guard hook was taken out of {LOCAL}"


def active_runs(base: Path, broken: Optional[list] = None) -> list[Path]:
    """The run folders the registry files under ``base`` name; a file that cannot be read or has not the
    registry's shape is skipped, and named in ``broken`` when given."""
    out = []
    for f in sorted(Path(base).glob(f"benchcore-*/{REGISTRY}")):
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("run_dir"), str) or not data["run_dir"]:
                raise ValueError("not {\"run_dir\": <path>}")
            out.append(Path(data["run_dir"]))
        except (OSError, ValueError) as exc:
            if broken is not None:
                broken.append(f"{f} ({exc})")
    return out


def plans(base: Path, broken: Optional[list] = None) -> list[dict]:
    """The plan.json of every active run under ``base``, each with ``_run_dir``; unreadable ones named in
    ``broken``."""
    plans = []
    for run_dir in active_runs(base, broken):
        try:
            plan = json.loads((run_dir / "plan.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            if broken is not None and run_dir.exists():
                broken.append(f"{run_dir / 'plan.json'} ({exc})")
            continue
        if isinstance(plan, dict):
            plan["_run_dir"] = str(run_dir)
            plans.append(plan)
        elif broken is not None:
            broken.append(f"{run_dir / 'plan.json'} (not an object)")
    return plans
