"""Collect stage 7, what is left to launch: bound workflow scripts for the arms and judges, and the next step."""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from .. import fanout
from .budget import hold_arms_to_budget, hold_judges_to_budget
from .state import RunState
from .status import Status
from ..store.files import shown_path
from ..store.planfile import Cell, Packet
from ..fanout.prompts import Templates


@frozen
class Launches:
    """The arm cells and judge packets to launch now (the budget's held-back ones left out), their
    scripts, and the statuses as the budget left them."""

    cells: tuple[Cell, ...]
    packets: tuple[Packet, ...]
    arms_scripts: tuple[Path, ...]
    judges_scripts: tuple[Path, ...]
    statuses: tuple[Status, ...]


def write_launch_scripts(runs: list[RunState], statuses: list[Status], run_dirs: list[Path],
                         templates: Templates) -> Launches:
    """Bound workflow scripts for the cells never started (or just re-planned) and the packets with no
    answer, held to the budget. A cell cut off mid-way is not launched again in its used world; --rerun
    gives it a fresh one."""
    skill_dir = templates.dir.parent
    skills = ", ".join(dict.fromkeys(c.plan.skill for c in runs))  # named in each fan-out's approval dialog
    launch_cells = [cell for c, s in zip(runs, statuses) for cell in c.plan.cells if cell.id in s.not_started]
    pending = [p for c, s in zip(runs, statuses) for p in c.plan.packets if p.id in s.pending_packets]
    judge_costs = None
    if pending and any(c.plan.budget for c in runs):
        pending, judge_costs, statuses = hold_judges_to_budget(runs, statuses, pending)
    arms_scripts: list[Path] = []
    judges_scripts: list[Path] = []
    arm_ceilings = None
    if launch_cells and any(c.plan.budget for c in runs):
        launch_cells, arm_ceilings, statuses = hold_arms_to_budget(runs, statuses, launch_cells)
    if launch_cells:
        tasks = _priced(fanout.arm_tasks(launch_cells), arm_ceilings)
        reruns = sum(c.attempt > 1 for c in launch_cells)
        what = "re-runs" if reruns == len(launch_cells) else "arms and re-runs" if reruns else "arms"
        arms_scripts = fanout.write_bound_scripts(skill_dir, fanout.batch_dir(run_dirs, "arms"), "Arms", tasks,
                                                  ceilings=arm_ceilings[0] if arm_ceilings else None,
                                                  about=(skills, what))
    if pending:
        tasks = _priced(fanout.judge_tasks(pending), judge_costs)
        ceilings = judge_costs[0] if judge_costs is not None else None
        panel = sum(p.round > 1 for p in pending)
        what = "panel" if panel == len(pending) else "judges and panel" if panel else "judges"
        judges_scripts = fanout.write_bound_scripts(skill_dir, fanout.batch_dir(run_dirs, "judges"), "Judges",
                                                    tasks, templates.answer_schema, ceilings, about=(skills, what))
    return Launches(tuple(launch_cells), tuple(pending), tuple(arms_scripts), tuple(judges_scripts), tuple(statuses))


def _priced(tasks: list[dict], held) -> list[dict]:
    """The tasks with each one's cost ceiling where the budget set one (``held``: (ceilings, per-task costs))."""
    if held is not None:
        for t, cost in zip(tasks, held[1]):
            if cost is not None:
                t["cost"] = cost
    return tasks


HINT = "If a launch is refused or interrupted, type {command} again to continue this run."


def resume_hint(command: str) -> str:
    """The line plan and collect print before a launch: after a refused or cancelled fan-out the model gets no
    turn, so the user must already know how to go on (``command`` is plan.json ``resume_command``)."""
    return HINT.format(command=command)


def launch_hint(runs: list[RunState], launches: Launches) -> str:
    """The resume hint when something is to be launched now and the runs name their command, else ""."""
    command = next((r.plan.resume_command for r in runs if r.plan.resume_command), "")
    return resume_hint(command) if command and (launches.cells or launches.packets) else ""


def next_step(run_dirs: list[Path], launches: Launches) -> str:
    """The one next step collect ends with, for the agent that reads only its output."""
    statuses = launches.statuses
    arms_scripts, judges_scripts = list(launches.arms_scripts), list(launches.judges_scripts)
    runs = " ".join(shown_path(d) for d in run_dirs)
    unfinished = any(s.unfinished for s in statuses)
    invalid_to_rerun = any(set(s.to_rerun) - set(s.unfinished) for s in statuses)
    to_rerun = any(s.to_rerun for s in statuses)
    if any(s.rerun for s in statuses) and launches.cells:
        return (f"launch the re-planned arm cells with {fanout.workflow_calls(arms_scripts)} "
                f"({fanout.agent_tasks_phrase(arms_scripts)}); then run: benchcore collect {runs}")
    if launches.cells:
        return (f"if the arms you launched are still running, wait for them to finish, then run: benchcore collect "
                f"{runs}; if they were never launched, launch the arm cells that have not run with "
                f"{fanout.workflow_calls(arms_scripts)} ({fanout.agent_tasks_phrase(arms_scripts)}); "
                f"then run: benchcore collect {runs}")
    if unfinished and not invalid_to_rerun:
        return (f"if the arms are still running, wait for them to finish, then run: benchcore collect {runs}; "
                f"if they have finished, run: benchcore collect {runs} --rerun (fresh worlds for the cells cut off "
                "before their final message), then launch the arms it names")
    if to_rerun:
        return (f"run: benchcore collect {runs} --rerun (fresh worlds for the cells to run again), "
                "then launch the arms it names")
    if launches.packets:
        return (f"launch one fresh judge per packet with {fanout.workflow_calls(judges_scripts)} "
                f"({fanout.agent_tasks_phrase(judges_scripts)}); then run: benchcore collect {runs}")
    return f"run: benchcore render {runs}"
