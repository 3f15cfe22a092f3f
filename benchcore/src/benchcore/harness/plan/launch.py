"""Plan stage 4, the launch: the bound arm tasks in launch order, the budget's cut, and the arms workflow scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from attrs import evolve

from ... import serde
from .. import fanout
from ..runs.costs import task_cost
from ..store.files import write_atomic
from .decide import Decision
from .estimate import skill_ceilings
from ..store.planfile import Cell, Plan, write_plan
from ..runs.folder import read_run_info


def write_arm_scripts(runs: list, skill_dir: Path, created: list[Path],
                      context_window: Optional[int] = None) -> tuple[list, list[Path], str]:
    """(the runs with the cells the budget leaves out marked, the bound arms workflow scripts, the note on
    whether the Agent-tool path fits one conversation of the orchestrating model's ``context_window``); a
    batch folder made for several runs is added to ``created``."""
    tasks, not_launched = arm_tasks(runs)
    runs = [(d, r, _with_not_launched(r, p, not_launched)) for d, r, p in runs]
    kind_dir = fanout.batch_dir([r for _, r, _ in runs], "arms")
    if len(runs) > 1:
        created.append(kind_dir.parent)
    note = fanout.write_agent_path(kind_dir, [(r, p) for _, r, p in runs], tasks, skill_ceilings(runs),
                                   context_window)
    skills = ", ".join(dict.fromkeys(d.skill.name for d, _, _ in runs))
    scripts = fanout.write_bound_scripts(skill_dir, kind_dir, "Arms", tasks, ceilings=skill_ceilings(runs),
                                         about=(skills, "arms", arms_cost([r for _, r, _ in runs])))
    return runs, scripts, note


def arms_cost(run_dirs: list[Path]) -> str:
    """What the arms are estimated to cost, for the launch dialog ("about $1.20 estimated", "rough" for a first
    run's prior); "" when any run has no dollar figure."""
    from ...estimate import PRIOR
    from ..runs.folder import read_run_info

    ests = [read_run_info(r).estimate for r in run_dirs]
    usd = [a.cost_usd for e in ests if e is not None for a in e.arms.values()]
    if not ests or any(e is None or not e.arms for e in ests) or not usd or any(u is None for u in usd):
        return ""
    rough = any(e.basis == PRIOR for e in ests)
    return f"about ${sum(usd):,.2f} estimated" + (" (rough: a first run)" if rough else "")


def _launch_order(runs: list) -> list:
    """The arm cells in launch order. With a budget, a skill's runs (one per model) are interleaved case by
    case, so a ceiling leaves whole cases on every model rather than every case of the first model."""
    out = []
    by_skill: dict[str, list] = {}
    for d, _, p in runs:
        by_skill.setdefault(d.skill.name, []).append((d, p))
    for name, group in by_skill.items():
        if group[0][0].budget is None or len(group) == 1:
            out += [(d, p, c) for d, p in group for c in p.cells]
            continue
        for case in group[0][0].cases:
            for trial in range(1, group[0][0].trials + 1):
                for d, p in group:
                    out += [(d, p, c) for c in p.cells if c.case == case.id and c.trial == trial]
    return out


def arm_tasks(runs: list) -> tuple[list[dict], set[str]]:
    """The bound arm tasks (each with its reserved cost when a budget is set) and the task ids the budget
    leaves out (the script's own counting, run here first so that plan.json and run.json can say so)."""
    ordered = _launch_order(runs)

    def cost(d: Decision, p: Plan, c: Cell) -> Optional[dict]:
        if d.budget is None:
            return None
        return task_cost(d.skill.name, f"{p.run_id}/{c.case}/t{c.trial}", p.cell_costs.get(c.arm))

    tasks = []
    for d, p, c in ordered:
        t = fanout.arm_tasks([c])[0]
        tc = cost(d, p, c)
        if tc is not None:
            t["cost"] = tc
        tasks.append(t)
    launched, _ = fanout.launches(tasks, skill_ceilings(runs))
    return tasks, {(p.run_id, c.id) for (_, p, c), ok in zip(ordered, launched) if not ok}


def _with_not_launched(run_dir: Path, plan: Plan, not_launched: set) -> Plan:
    """Mark the cells the budget leaves out (plan.json ``skip``) and their trials (run.json ``not_run``)."""
    mine = {cid for rid, cid in not_launched if rid == plan.run_id}
    if not mine:
        return plan
    plan = evolve(plan, cells=tuple(evolve(c, skip=fanout.BUDGET_REACHED) if c.id in mine else c for c in plan.cells))
    write_plan(run_dir, plan)
    info = read_run_info(run_dir)
    trials = sorted({(c.case, c.trial) for c in plan.cells if c.skip}, key=lambda k: (info.cases.index(k[0]), k[1]))
    write_atomic(run_dir / "run.json", serde.dumps(evolve(info, not_run={f"{c}/t{n}": fanout.BUDGET_REACHED
                                                                          for c, n in trials})))
    return plan
