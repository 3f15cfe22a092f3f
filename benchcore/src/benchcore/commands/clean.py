"""benchcore clean <run-dir>...: remove a run's temp worlds and skill copies, and only those.

Everything a run creates outside the repository lives under one temp root
(plan.json ``temp_root``) tagged with the run id; clean removes that folder
after checking the tag, and nothing else. The run directory (transcripts,
outputs, judgments, reports) stays. Safe to run again.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import BenchError
from ..harness.claude_settings import remove_grant
from ..harness.confine import release
from ..harness.planfile import read_plan
from ..harness.provenance import mark_cleaned
from ..harness.worlds import is_temp_root, remove_temp_root


def add_arguments(p) -> None:
    p.add_argument("run_dirs", nargs="+", type=Path, metavar="run-dir", help="run directory (tests/.reports/runs/<id>)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


def run(args) -> int:
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
