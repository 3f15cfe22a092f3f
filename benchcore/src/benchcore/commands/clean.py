"""benchcore clean [<run-dir>... | --stale] [--dry-run]: remove runs' temp worlds and skill copies, and only those.

Everything a run creates outside the repository lives under one temp root
(plan.json ``temp_root``) tagged with the run id; clean removes that folder
after checking the tag, and nothing else. The run directory (transcripts,
outputs, judgments, reports) stays. Safe to run again.

Without a run directory (or with ``--stale``) it finds the repository's stale
runs (``harness/plan/open_runs.py``: rendered but not cleaned, superseded by a
newer run of the same skill, or unfinished for more than ``--older-than``
hours), lists each with the temp folder it will remove, then removes them;
``--dry-run`` only lists.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from ..errors import BenchError
from ..harness.claude.settings import remove_grant
from ..harness.confine.registry import release
from ..harness.store.files import shown_path
from ..harness.plan.open_runs import STALE_HOURS, planned_at, run_folders, stale_runs
from ..harness.store.planfile import read_plan
from ..harness.claude.provenance import mark_cleaned
from ..harness.repo.tree import find_repo_root
from ..harness.worlds.temp import default_temp_base, is_temp_root, remove_temp_root


def add_arguments(p) -> None:
    p.add_argument("run_dirs", nargs="*", type=Path, metavar="run-dir",
                   help="run directory (tests/.reports/runs/<id>); none: the stale runs (as --stale)")
    p.add_argument("--stale", action="store_true",
                   help="the repository's stale runs: rendered but not cleaned, superseded by a newer run of the same "
                        "skill, or unfinished for more than --older-than hours")
    p.add_argument("--older-than", type=float, default=STALE_HOURS, metavar="HOURS",
                   help="an unfinished run planned longer ago than this is stale (default: %(default)g)")
    p.add_argument("--dry-run", action="store_true", help="list the stale runs and what would be removed; remove nothing")
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from here)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


def run(args) -> int:
    if args.run_dirs and (args.stale or args.dry_run):
        raise BenchError(None, "give run directories or --stale/--dry-run, not both",
                         fix="benchcore clean <run-dir>... or benchcore clean --stale [--dry-run]")
    if not args.run_dirs:
        return _clean_stale(args)
    plans = [(Path(d), read_plan(Path(d))) for d in args.run_dirs]
    todo = []
    for run_dir, plan in plans:
        root = Path(plan.temp_root) if plan.temp_root else None
        if root is None:
            raise BenchError(str(run_dir / "plan.json"), "names no temp_root", fix="remove the run's temp folder by hand")
        if (root.exists() or root.is_symlink()) and not is_temp_root(root, plan.run_id, plan.temp_nonce):
            raise BenchError(str(root), f"is not the temp root of run {plan.run_id} (a link, or its name, tag file or "
                                        "secret differs); nothing was removed",
                             fix="check plan.json's temp_root and remove the folder by hand")
        todo.append((run_dir, plan, root))
    results = []
    for run_dir, plan, root in todo:
        existed = remove_temp_root(root, plan.run_id, plan.temp_nonce, Path(plan.repo or run_dir))
        remove_grant(Path(plan.repo or run_dir), root)  # granted only under plan --temp-dir
        mark_cleaned(run_dir)  # a transcript that arrives later is late: its world and skill copy are gone
        results.append({"run_dir": str(run_dir), "temp_root": str(root), "removed": existed})
    notes = {release(Path(plan.repo or run_dir), root.parent) for run_dir, plan, root in todo} - {""}
    if args.json:
        print(json.dumps({"cleaned": results}, indent=1))
        return 0
    for r in results:
        state = "removed" if r["removed"] else "already gone"
        print(f"{r['run_dir']}: worlds and skill copies {state} ({r['temp_root']})")
    for note in sorted(notes):
        print(note)
    print("next: nothing; the run directory and reports stay (open the report benchcore render printed)")
    return 0


def _clean_stale(args) -> int:
    if not (args.older_than >= 0 and math.isfinite(args.older_than)):
        raise BenchError(None, f"--older-than {args.older_than!r} is not a number of hours",
                         fix=f"pass 0 or more, e.g. --older-than {STALE_HOURS:g} (the default)")
    root = find_repo_root(args.repo or Path.cwd())
    now = datetime.now(timezone.utc)
    folders = run_folders(root)
    stale = stale_runs(folders, now, args.older_than)
    results = []
    for r, why in stale:
        entry = {"run_dir": str(r.run_dir), "why": why, "temp_root": r.plan.temp_root, "removed": False}
        if not args.dry_run:
            entry["removed"] = remove_temp_root(Path(r.plan.temp_root), r.plan.run_id, r.plan.temp_nonce, root)
            remove_grant(root, Path(r.plan.temp_root))
            mark_cleaned(r.run_dir)
        results.append(entry)
    # Every temp folder this repository's runs used: a guard hook left with no run active is taken out too.
    bases = {Path(r.plan.temp_root).parent for r in folders if r.plan.temp_root} | {default_temp_base()}
    notes = set() if args.dry_run else {release(root, b) for b in bases} - {""}
    stale_dirs = {e["run_dir"] for e in results}
    waiting = [r for r in folders if r.open and str(r.run_dir) not in stale_dirs]
    again = "benchcore clean --stale" + ("" if args.older_than == STALE_HOURS else f" --older-than {args.older_than:g}")
    give_up = "benchcore clean --stale --older-than 0"
    if args.json:
        print(json.dumps({"stale": results, "dry_run": args.dry_run,
                          "unfinished": [{"run_dir": str(r.run_dir), "resumable_for_hours": _hours_left(r, now, args)}
                                         for r in waiting],
                          "next": (again if args.dry_run and results else give_up if waiting else None)}, indent=1))
        return 0
    for note in sorted(notes):
        print(note)
    if not results:
        print("no stale runs: every run's worlds are removed, or the run can still be resumed")
    for e in results:
        print(f"stale: {shown_path(e['run_dir'])} ({e['why']})")
        print(f"  {'would remove' if args.dry_run else 'removed'}: {e['temp_root']} (its worlds and skill copies; "
              "the run folder and reports stay)")
    for r in waiting:
        left = _hours_left(r, now, args)
        print(f"unfinished: {shown_path(r.run_dir)} ({r.plan.skill}; planned {r.plan.planned_at}"
              + (f", resumed by its command for {left:g} more hours" if left is not None else "") + ")")
    if args.dry_run and results:
        print(f"next: run: {again} (to remove them)")
    elif waiting:
        print(f"next: nothing; to give up {'that run' if len(waiting) == 1 else 'those runs'} now: {give_up} "
              "(or benchcore clean <run-dir>)")
    else:
        print("next: nothing")
    return 0


def _hours_left(r, now: datetime, args) -> Optional[float]:
    """Hours until an unfinished run counts as stale (rounded up to a tenth), None when its time is unknown."""
    when = planned_at(r.plan)
    if when is None:
        return None
    return max(0.0, math.ceil((args.older_than - (now - when).total_seconds() / 3600) * 10) / 10)
