"""Collect stage 3b: the new arm's hard assertions run on the baseline's output too, for information only.

``baseline/assertions.json`` says which assertions the no-skill output also passes. It never gates: the gate
(stage 3, :mod:`.gate`) applies to the new arm alone. ``render`` reads it to name an assertion that the
baseline passes in every trial (``no_signal`` in results.json): such an assertion cannot tell the skill from
no skill. The file is keyed to the sha256 of the baseline output.md bytes it ran against, as the gate's is;
nothing runs in a world that is gone (its trial is simply not counted).
"""

from __future__ import annotations

from pathlib import Path

from .gate import check_all, kept
from .state import RunState, file_sha256

ARM = "baseline"


def run_baseline_checks(run: RunState, found: dict) -> int:
    """Run each case's hard assertions on every collected baseline output that has no current result (the
    trials side by side, as the gate's: gate.check_all); the number of trials checked now."""
    jobs = []
    for cell in run.plan.cells:
        if cell.arm != ARM or cell.id not in found:
            continue
        case = run.cases[cell.case]
        if not case.hard_assertions:
            continue
        cdir = run.tdir(cell.case, cell.trial) / ARM
        output = cdir / "output.md"
        if not output.is_file():
            continue
        sha = file_sha256(output)
        if kept(cdir / "assertions.json", len(case.hard_assertions), sha) is not None:
            continue
        jobs.append((case, cdir, Path(cell.world), sha))
    # A world gone before or while they ran leaves None: that trial is not counted.
    return sum(results is not None for results in check_all(run, jobs))
