"""Collect stage 3, the gate: run the new arm's hard assertions in its world (assertions.json).

The predicates run in the run's OS sandbox (plan.json ``sandbox``), the one the arm's own Bash calls ran in
(``worlds/assertions.py``, ``worlds/shell.py``): a test file the arm planted and a predicate imports reaches no
more than the arm could. A run planned without one (``plan --no-sandbox``, or before the sandbox) runs them
unconfined, and collect says so (:func:`checks_where`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from attrs import evolve

from ... import serde
from ..worlds import assertions as hard
from ..worlds.shell import Stop
from .state import RunState, file_sha256, write_if_changed
from ..store.files import read_text


def run_gate(run: RunState, found: dict) -> tuple[dict[tuple[str, int], bool], set[tuple[str, int]]]:
    """((case, trial) -> gated, for every trial whose new output went through the gate; the trials whose
    gate could not be applied because their world is gone).

    assertions.json is keyed to the sha256 of the output.md bytes it ran against: a result for other
    bytes (the output changed, or collect was stopped between writing the output and running the
    assertions) is run again. Nothing runs in a world that is gone (benchcore clean ran): that trial's
    gate stays unknown, so its efficacy stays unjudged and incomplete, never a loss. The trials' checks
    run side by side (:func:`check_all`)."""
    gated: dict[tuple[str, int], bool] = {}
    unchecked: set[tuple[str, int]] = set()
    todo: list[tuple[tuple[str, int], Path, tuple]] = []
    for cell in run.plan.cells:
        if cell.arm != "new" or cell.id not in found:
            continue
        key = (cell.case, cell.trial)
        cdir = run.tdir(cell.case, cell.trial) / "new"
        apath = cdir / "assertions.json"
        case = run.cases[cell.case]
        sha = file_sha256(cdir / "output.md")
        results = kept(apath, len(case.hard_assertions), sha)
        if results is None and not case.hard_assertions:
            results = ()
            write_if_changed(apath, serde.dumps([]))
        if results is None:
            todo.append((key, apath, (case, cdir, Path(cell.world), sha)))
            continue
        gated[key] = hard.gated(results)
    for (key, apath, _), results in zip(todo, check_all(run, [job for _, _, job in todo])):
        if results is None:  # the world was gone before or while they ran: no result stands
            unchecked.add(key)
            if apath.is_file():
                apath.unlink()  # a result for other bytes must not gate this output
            continue
        gated[key] = hard.gated(results)
    return gated, unchecked


CHECKERS = 4  # trials whose checks run at once at most (fewer on fewer cores)


def check_all(run: RunState, jobs: list[tuple]) -> list[Optional[tuple]]:
    """:func:`check` of each (case, cdir, world, sha), in order: side by side, a trial a thread, as many at
    once as the machine has cores (at most CHECKERS; each world is its own, and each trial's checks still
    run one after the other in it), since a check mostly waits on its command. When one fails or collect
    is stopped (Ctrl-C), the commands still running are killed with their process groups and none of
    them leaves a result."""
    workers = min(len(jobs), CHECKERS, os.cpu_count() or 1)
    if workers <= 1:
        return [check(run, *job) for job in jobs]
    from concurrent.futures import ThreadPoolExecutor, wait

    stop = Stop()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="benchcore-check") as pool:
        futures = [pool.submit(check, run, *job, stop=stop) for job in jobs]
        try:
            for f in futures:
                while not f.done():  # in steps: a Ctrl-C that reached another thread is raised here within one
                    wait([f], timeout=0.25)
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            stop.stop()  # the running ones end now (shell.Stopped, no result); the pool waits for them
            raise


def kept(apath: Path, n: int, sha: str) -> Optional[tuple]:
    """The results in ``apath`` when there are ``n`` and all ran against output bytes ``sha``, else None."""
    if not apath.is_file():
        return None
    results = serde.loads(list[hard.AssertionResult], read_text(apath), source=str(apath))
    if len(results) == n and all(r.output_sha256 == sha for r in results):
        return tuple(results)
    return None


def check(run: RunState, case, cdir: Path, world: Path, sha: str, stop: Optional[Stop] = None) -> Optional[tuple]:
    """Run ``case``'s hard assertions on ``cdir``'s output.md in ``world``, in the run's sandbox, and keep them
    in ``cdir``/assertions.json keyed to ``sha``; None when the world is gone before or while they run.
    ``stop``: another thread may stop them (shell.Stopped is raised, and nothing is kept)."""
    if not world.is_dir():
        return None
    ran = hard.run_assertions(case.hard_assertions, cdir / "output.md", world, run.assert_timeout,
                              sandbox=run.plan.sandbox, stop=stop)
    if not world.is_dir():
        return None
    results = tuple(evolve(r, output_sha256=sha) for r in ran)
    write_if_changed(cdir / "assertions.json", serde.dumps(list(results)))
    return results


def checks_where(run: RunState) -> str:
    """Where this run's hard assertions run: "sandboxed", "unconfined" (no sandbox in the run), or "" (none)."""
    if not any(c.hard_assertions for c in run.cases.values()):
        return ""
    return "sandboxed" if run.plan.sandbox is not None else "unconfined"
