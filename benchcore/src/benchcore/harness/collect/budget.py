"""Collect's budget: hold the arms and judges still to launch to each skill's ceiling, from what its runs spent."""

from __future__ import annotations

from attrs import evolve

from ... import serde
from ...estimate import JUDGES
from ..runs import costs
from .. import fanout
from .state import RunState
from ..store.files import write_atomic
from ..store.planfile import Cell, Packet


def spent_by_pool(runs: list[RunState]) -> dict[str, tuple]:
    """skill -> (its budget, raw tokens and dollars its runs have spent so far, invalid attempts included)."""
    pools: dict[str, tuple] = {}
    for c in runs:
        if c.plan.budget is None:
            continue
        raw, usd = costs.spent(c.run_dir)
        prev = pools.get(c.info.skill.name, (c.plan.budget, 0.0, 0.0))
        pools[c.info.skill.name] = (prev[0], prev[1] + raw, prev[2] + usd)
    return pools


def hold_arms_to_budget(runs: list[RunState], statuses: list, cells: list[Cell]):
    """Hold the arm cells still to launch (re-runs, cells never started) to each skill's ceiling, from what
    its runs have really spent, trial by trial. A trial that does not fit gets ``skip`` in plan.json and
    ``not_run`` in run.json ("budget reached"). Returns (the cells to launch, (ceilings, each one's bound
    cost), the statuses without the held-back cells)."""
    owner = {}
    for c in runs:
        for cell in c.plan.cells:
            owner[id(cell)] = c
    pools = spent_by_pool(runs)
    ceilings = {k: v for k, v in ((pool, costs.ceiling(b, raw, usd)) for pool, (b, raw, usd) in pools.items())
                if v is not None}
    task_costs = []
    for cell in cells:
        c = owner[id(cell)]
        task_costs.append(costs.task_cost(c.info.skill.name, f"{c.plan.run_id}/{cell.case}/t{cell.trial}",
                                          c.plan.cell_costs.get(cell.arm)) if c.info.skill.name in ceilings else None)
    tasks = [{"id": cell.id, **({"cost": tc} if tc else {})} for cell, tc in zip(cells, task_costs)]
    launched, _ = fanout.launches(tasks, ceilings)
    held = {id(cell) for cell, ok in zip(cells, launched) if not ok}
    for c in runs:
        mine = [cell for cell in c.plan.cells if id(cell) in held]
        if not mine:
            continue
        trials = {(cell.case, cell.trial) for cell in mine}
        c.plan = evolve(c.plan, cells=tuple(evolve(cell, skip=fanout.BUDGET_REACHED)
                                            if (cell.case, cell.trial) in trials else cell for cell in c.plan.cells))
        c.save_plan()
        c.info = evolve(c.info, not_run={**c.info.not_run,
                                         **{f"{case}/t{n}": fanout.BUDGET_REACHED for case, n in sorted(trials)}})
        write_atomic(c.run_dir / "run.json", serde.dumps(c.info))
    statuses = [evolve(s, not_started=tuple(i for i in s.not_started if not any(
                           cell.id == i and cell.skip for cell in c.plan.cells)),
                       missing_cells=tuple(i for i in s.missing_cells if not any(
                           cell.id == i and cell.skip for cell in c.plan.cells)),
                       not_run=tuple(c.info.not_run.items())) for c, s in zip(runs, statuses)]
    keep = [(cell, tc) for cell, tc, ok in zip(cells, task_costs, launched) if ok]
    return [cell for cell, _ in keep], (ceilings or None, [tc for _, tc in keep]), statuses


def hold_judges_to_budget(runs: list[RunState], statuses: list, pending: list[Packet]):
    """Hold the pending judges to each skill's ceiling, from what its runs have really spent so far.

    A judge that does not fit is recorded in run.json ``not_run`` ("budget reached") and leaves the list of
    pending packets for good; the report shows its trial as not run. Returns (the judges to launch,
    (ceilings, each one's bound cost), the statuses without the held-back packets)."""
    run_of = {id(p): c for c in runs for p in c.plan.packets}
    pools = spent_by_pool(runs)
    ceilings = {pool: costs.ceiling(b, raw, usd) for pool, (b, raw, usd) in pools.items()}
    ceilings = {k: v for k, v in ceilings.items() if v is not None}
    task_costs = []
    for p in pending:
        c = run_of[id(p)]
        cell = c.plan.cell_costs.get(JUDGES)
        task_costs.append(costs.task_cost(c.info.skill.name, f"{c.plan.run_id}/{p.id}", cell)
                          if c.info.skill.name in ceilings else None)
    tasks = [{"id": p.id, **({"cost": tc} if tc else {})} for p, tc in zip(pending, task_costs)]
    launched, _ = fanout.launches(tasks, ceilings)
    held: dict[int, list[Packet]] = {}
    for p, ok in zip(pending, launched):
        if not ok:
            held.setdefault(id(run_of[id(p)]), []).append(p)
    for c in runs:
        mine = held.get(id(c), [])
        if mine:
            c.info = evolve(c.info, not_run={**c.info.not_run, **{p.id: fanout.BUDGET_REACHED for p in mine}})
            write_atomic(c.run_dir / "run.json", serde.dumps(c.info))
    gone = {id(p) for ps in held.values() for p in ps}
    statuses = [evolve(s, pending_packets=tuple(pid for pid in s.pending_packets if pid not in c.info.not_run),
                       not_run=tuple(c.info.not_run.items())) for c, s in zip(runs, statuses)]
    keep = [(p, tc) for p, tc, ok in zip(pending, task_costs, launched) if ok and id(p) not in gone]
    return [p for p, _ in keep], (ceilings or None, [tc for _, tc in keep]), statuses
