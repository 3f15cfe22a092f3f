"""Plan stage 2, the worlds: a run directory, one fresh world per cell, the skill copies, run.json, plan.json."""

from __future__ import annotations

import contextlib
import secrets
import shutil
import signal
from datetime import datetime
from pathlib import Path
from typing import Iterator, Optional

from ... import serde
from ...model import BranchRef, RunInfo, Temperature
from ..repo import git
from ..store.files import write_atomic
from .decide import Decision
from ..claude.provenance import with_current
from ..confine import sandbox as box
from ..store.planfile import Cell, Plan, agent_tool_model, write_plan
from ..fanout.prompts import Templates
from ...environment import NOT_SANDBOXED
from ..repo.tree import case_dirs, fixture_path, skill_ref, unproven_cases
from ..runs.calibration import skill_version
from ..runs.folder import SHAPES
from ..worlds.shell import sigterm_as_interrupt
from ..worlds.temp import _make_writable, make_temp_root, make_world, new_nonce, run_setup, token

RUNS_DIR = "tests/.reports/runs"


def _retry_writable(func, path) -> None:
    try:
        _make_writable(func, path, None)
    except OSError:
        pass


@contextlib.contextmanager
def removed_on_failure() -> Iterator[list[Path]]:
    """A list to name each folder a plan makes in; when planning fails, or is stopped (Ctrl-C, or SIGTERM,
    which is made to stop it the same way), they are all removed: no temp folder is left that no run names."""
    created: list[Path] = []
    with sigterm_as_interrupt():
        try:
            yield created
        except BaseException:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the removal is not itself cut short
            for path in reversed(created):
                shutil.rmtree(path, onerror=lambda f, p, e: _retry_writable(f, p))
            raise


def build_run(root: Path, d: Decision, branch: git.DefaultBranch, seed: int, now: datetime,
              templates: Templates, skill_dir: Path, temp_base: Optional[Path], baseline_agent: Optional[str],
              judge_agent: Optional[str],
              created: list[Path], model: Optional[str] = None) -> tuple[Path, Plan]:
    """One run of a decision on one model: its run directory and plan; each folder it makes is added to
    ``created`` as soon as it exists."""
    run_id = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}"
    run_dir = root / RUNS_DIR / run_id
    while run_dir.exists():
        run_id = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}"
        run_dir = root / RUNS_DIR / run_id
    nonce = new_nonce()
    temp_root = make_temp_root(run_id, root, temp_base, nonce)
    created.append(temp_root)
    # The run's own /etc for its sandboxed commands: one bind, not one per entry (removed with the temp root)
    sandbox = box.with_etc_view(d.sandbox, str(temp_root / box.ETC_VIEW))
    three = d.shape == "three-arm"
    arms, comparisons = SHAPES[d.shape]
    comparisons = dict(comparisons)

    copies = {"new": temp_root / "skills" / token() / d.skill.name}
    git.copy_worktree(root, d.skill.path, copies["new"])
    if d.shape == "calibration":  # a second, independent copy of the same working-tree skill
        copies["twin"] = temp_root / "skills" / token() / d.skill.name
        git.copy_worktree(root, d.skill.path, copies["twin"])
    if three:
        copies["previous"] = temp_root / "skills" / token() / d.skill.name
        git.extract_at(root, branch.commit, d.skill.path, copies["previous"])

    world_root = temp_root / "worlds"
    case_dir_of = {p.name: p for p in case_dirs(root, d.skill)}
    cells: list[Cell] = []
    for case in d.cases:
        fixture = fixture_path(root, case_dir_of[case.id], case)
        for trial in range(1, d.trials + 1):
            for arm in arms:
                world = make_world(world_root, case.id, trial, fixture)
                if case.setup:
                    run_setup(world, case.setup, case.path, sandbox)
                skill_copy = str(copies[arm]) if arm in copies else None
                cells.append(Cell(id=f"{case.id}/t{trial}/{arm}", case=case.id, trial=trial, arm=arm,
                                  world=str(world), skill_dir=skill_copy,
                                  prompt=templates.arm_prompt(case, str(world), skill_copy),
                                  agent_type=baseline_agent, model=model,
                                  agent_model=agent_tool_model(model)))

    run_dir.mkdir(parents=True)
    created.append(run_dir)
    for case in d.cases:
        write_atomic(run_dir / "cases" / case.id / "case.md",
                     (case_dir_of[case.id] / "case.md").read_text(encoding="utf-8"))
    info = RunInfo(run_id=run_id, skill=skill_ref(d.skill), started_at=now.isoformat().replace("+00:00", "Z"),
                   shape=d.shape, arms=arms, comparisons=comparisons, trials=d.trials, pilot=d.pilot,
                   temperature=Temperature(requested=d.temperature, applied="session default"), seed=seed,
                   default_branch=BranchRef(branch.name, branch.commit, branch.remote_name if branch.remote_commit else None,
                                             branch.remote_commit), cases=tuple(c.id for c in d.cases),
                   model=model, judge_model=d.judge_model, budget=d.budget, confirm_judgments=d.confirm,
                   unproven=unproven_cases(case_dir_of, d.cases), sandbox=d.sandbox_words,
                   toolchain=d.toolchain_words, skill_version=skill_version(copies["new"]))
    write_atomic(run_dir / "run.json", serde.dumps(info))
    plan = Plan(run_dir=str(run_dir), cells=tuple(cells), run_id=run_id, repo=str(root), skill=d.skill.name,
                shape=d.shape, seed=seed, temp_root=str(temp_root), temp_nonce=nonce, world_root=str(world_root),
                skill_copies={k: str(v) for k, v in copies.items()}, baseline_agent_type=baseline_agent,
                order_rule="outputs", judge_agent_type=judge_agent, planned_at=info.started_at,
                model=model, judge_model=d.judge_model, budget=d.budget, sessions=with_current(()),
                sandbox=sandbox, unsandboxed=d.sandbox_words == NOT_SANDBOXED, arm_tools=d.tools)
    write_plan(run_dir, plan)
    return run_dir, plan
