"""Collect stage 3b: the new arm's hard assertions run on the baseline's output too, for information only.

``baseline/assertions.json`` says which assertions the no-skill output also passes. It never gates: the gate
(stage 3, :mod:`.gate`) applies to the new arm alone. ``render`` reads it to name an assertion that the
baseline passes in every trial (``no_signal`` in results.json): such an assertion cannot tell the skill from
no skill. The file is keyed to the sha256 of the baseline output.md bytes it ran against, as the gate's is;
nothing runs in a world that is gone (its trial is simply not counted).
"""

from __future__ import annotations

from pathlib import Path

from attrs import evolve

from ... import serde
from ...model import AssertionResult
from ..worlds import assertions as hard
from .state import RunState, file_sha256, write_if_changed
from ..store.files import read_text

ARM = "baseline"


def run_baseline_checks(run: RunState, found: dict) -> int:
    """Run each case's hard assertions on every collected baseline output that has no current result; the
    number of trials checked now."""
    ran_now = 0
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
        apath = cdir / "assertions.json"
        sha = file_sha256(output)
        if apath.is_file():
            kept = serde.loads(list[AssertionResult], read_text(apath), source=str(apath))
            if len(kept) == len(case.hard_assertions) and all(r.output_sha256 == sha for r in kept):
                continue
        world = Path(cell.world)
        if not world.is_dir():
            continue
        ran = hard.run_assertions(case.hard_assertions, output, world, run.assert_timeout,
                                 sandbox=run.plan.sandbox)  # as the gate: the baseline's world is as untrusted
        if not world.is_dir():  # gone while they ran: no result stands
            continue
        write_if_changed(apath, serde.dumps([evolve(r, output_sha256=sha) for r in ran]))
        ran_now += 1
    return ran_now
