"""Collect's re-runs: which cells need a fresh world (invalid trials, cut-off cells) and planning them afresh."""

from __future__ import annotations

import shutil
from pathlib import Path

from attrs import evolve

from ...errors import BenchError
from .state import RunState
from ..store.planfile import Cell
from ..repo.tree import fixture_path, tests_path_of
from ..worlds.temp import is_temp_root, make_world, remove_world, run_setup

MAX_ATTEMPTS = 3  # a cell is planned at most this often: the first time and two --rerun rounds


def cells_to_rerun(run: RunState, found: dict, audits: dict) -> tuple[list[Cell], list[Cell]]:
    """(cells to plan afresh, cells that need it but were already planned MAX_ATTEMPTS times).

    Every cell of an invalid trial, and every cell whose transcript stopped with no final message; a
    trial is re-run as a whole, so it is given up when any of its cells is at the limit. A cell with no
    transcript at all has not run yet: it is launched, not re-planned, and costs no attempt."""
    by_trial = run.cells_by_trial()
    go: list[Cell] = []
    stop: list[Cell] = []
    for key, cells in by_trial.items():
        if audits.get(key):
            (go if max(c.attempt for c in cells) < MAX_ATTEMPTS else stop).extend(cells)
        else:
            for c in cells:
                if c.id not in found and c.id in run.unfinished and not c.skip:
                    (go if c.attempt < MAX_ATTEMPTS else stop).append(c)
    return go, stop


def replan_cells(run: RunState, found: dict, audits: dict) -> list[str]:
    """Plan the cells ``cells_to_rerun`` names afresh (new worlds first, so a failing setup changes nothing on
    disk but its own worlds); returns the re-planned cell ids."""
    go, _ = cells_to_rerun(run, found, audits)
    if not go:
        return []
    if not is_temp_root(Path(run.plan.temp_root), run.plan.run_id, run.plan.temp_nonce):
        raise BenchError(str(run.run_dir), f"cannot re-run {len(go)} cells: the run's temp folder "
                         f"{run.plan.temp_root} is gone (benchcore clean ran) or is not this run's",
                         fix="plan a new run with 'benchcore plan'; this one renders as it stands")
    repo = Path(run.plan.repo)
    tests_dir = repo / tests_path_of(run.info.skill)
    fresh: dict[str, Cell] = {}
    made: list[Path] = []
    try:
        for cell in go:
            case = run.cases[cell.case]
            case_dir = tests_dir / cell.case
            fixture = fixture_path(repo, case_dir, case) if case_dir.is_dir() else None
            if case.fixture is not None and (fixture is None or not fixture.exists()):
                raise BenchError(str(case_dir / "case.md"),
                                 f"the fixture {case.fixture!r} is gone, so {cell.id} cannot be re-run",
                                 fix="restore the fixture, or plan a new run")
            world = make_world(Path(run.plan.world_root), cell.case, cell.trial, fixture)
            made.append(world)
            if case.setup:
                run_setup(world, case.setup, case.path, run.plan.sandbox)
            prompt = run.templates.arm_prompt(case, str(world), cell.skill_dir)
            fresh[cell.id] = evolve(cell, world=str(world), prompt=prompt, attempt=cell.attempt + 1)
    except BaseException:
        for world in made:
            remove_world(world)  # and its scratch folders beside it
        raise
    for cell in go:
        tdir = run.tdir(cell.case, cell.trial)
        attic = tdir / f".invalid-{cell.attempt}"
        for name in (cell.arm, "audit.json"):
            if (tdir / name).exists():
                attic.mkdir(parents=True, exist_ok=True)
                shutil.move(str(tdir / name), str(attic / name))
    run.plan = evolve(run.plan, cells=tuple(fresh.get(c.id, c) for c in run.plan.cells))
    return [c.id for c in go]
