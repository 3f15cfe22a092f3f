"""benchcore plan <skill>... | --all [--seed N]: run dirs, worlds, skill copies, plan.json.

For each skill: validate its tests (the checks of ``validate``), resolve the
default branch, decide the shape (CONTRACT section 2), then create the run
directory, one fresh world per case x trial x arm and the skill copies in a
temp root outside the repository, and write run.json, plan.json, the cases
as used, and a bound copy of the skill's workflow script. Nothing is created
when any check fails, and anything half-made is removed when a step fails.

Judge orders are drawn from ``random.Random(seed)`` in this order: cases in
case order, trials 1..5, comparisons in the order efficacy, regression (the
latter on three-arm runs only); one ``random()`` draw each, below 0.5 puts
the new arm in position A. ``plan --all`` draws each skill's orders from its
own ``Random(seed)``, so a run's orders depend only on its seed.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from attrs import frozen

from .. import serde
from ..errors import BenchError
from ..model import BranchRef, Case, RunInfo, SkillRef, Temperature, TRIALS
from ..harness import agents, fanout, gitrepo
from ..harness.files import write_atomic
from ..harness.planfile import Cell, Plan, write_plan
from ..harness.prompts import Templates, find_skill_dir
from ..harness.tree import (SkillInfo, case_dirs, discover_skills, find_repo_root, fixture_path, load_cases,
                            load_options, validate_tree)
from ..harness.worlds import make_temp_root, make_world, run_setup, token

RUNS_DIR = "tests/.reports/runs"
BASELINE_AGENT = "bench-baseline"


def add_arguments(p) -> None:
    p.add_argument("skills", nargs="*", metavar="skill", help="skill name(s), as in skills/**/<name>/SKILL.md")
    p.add_argument("--all", action="store_true", help="every skill that has tests")
    p.add_argument("--seed", type=int, default=None, help="seed for the judge orders (default: random, recorded)")
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from here)")
    p.add_argument("--temp-dir", type=Path, default=None,
                   help="where the temp root for worlds and skill copies goes (default: the system temp dir)")
    p.add_argument("--baseline-agent", default=None,
                   help=f"agent type for baseline cells (default: {BASELINE_AGENT} when its definition is installed)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


@frozen
class Decision:
    skill: SkillInfo
    cases: tuple[Case, ...]
    temperature: float
    shape: str
    why: str


def _pick(skills: dict[str, SkillInfo], wanted: list[str]) -> list[SkillInfo]:
    known = ", ".join(skills) or "none"
    out: list[SkillInfo] = []
    for name in wanted:
        key = name.strip("/").removeprefix("skills/")
        if key in skills:
            hit = skills[key]
        else:
            by_path = [s for s in skills.values() if s.path == f"skills/{key}"]
            if not by_path:
                # Never resolved silently: a part of a name may be the wrong skill, so it only names candidates.
                near = [s.name for s in skills.values() if key.lower() in s.name.lower()]
                if near:
                    raise BenchError(None, f"no skill is named {name!r}; did you mean "
                                     + " or ".join(repr(n) for n in near) + "?",
                                     fix=f"name the skill exactly, e.g. 'benchcore plan {near[0]}'")
                raise BenchError(None, f"no skill is named {name!r}; known skills: {known}",
                                 fix="name a skill by its folder name under skills/")
            hit = by_path[0]
        if hit not in out:
            out.append(hit)
    return out


def _check_tree(root: Path, chosen: list[SkillInfo], whole: bool) -> None:
    report = validate_tree(root)
    mine = []
    for p in report.problems:
        path = p.path or ""
        if whole or any(path == s.tests_path or path.startswith(s.tests_path + "/") or
                        path.startswith(s.path + "/") or path == s.path for s in chosen):
            mine.append(p)
    if mine:
        first = mine[0]
        more = f" (and {len(mine) - 1} more problem{'s' if len(mine) > 2 else ''}; run 'benchcore validate')" \
            if len(mine) > 1 else ""
        raise BenchError(first.path, first.message + more, line=first.line, fix=first.fix)


def _decide(root: Path, skill: SkillInfo, branch: gitrepo.DefaultBranch) -> Decision:
    cases = load_cases(root, skill)
    opts = load_options(root, skill)
    exists, changed = gitrepo.skill_changed(root, branch.commit, skill.path)
    at = f"{branch.name} ({branch.commit[:7]})"
    held = gitrepo.previous_contents(root, branch.commit, skill.path) if not exists else []
    if not exists and held == [""]:
        shape, why = "two-arm", (f"no previous version: {skill.path} is a file, not a skill folder, on the default "
                                 f"branch {at}")
    elif not exists and held:
        shape, why = "two-arm", (f"no previous version: {skill.path} on the default branch {at} has no SKILL.md "
                                 f"(it holds only {', '.join(held[:3])}{' ...' if len(held) > 3 else ''}), "
                                 f"so there is no released skill to compare against")
    elif not exists:
        shape, why = "two-arm", f"new skill: {skill.path} is not on the default branch {at}, so there is no previous version"
    elif not changed:
        shape, why = "two-arm", f"unchanged: {skill.path} is the same as on the default branch {at}, so previous would equal new"
    else:
        shape, why = "three-arm", f"edited released skill: {skill.path} differs from the default branch {at}"
    return Decision(skill, cases, float(opts["temperature"]), shape, why)


def _baseline_agent(root: Path, override: Optional[str]) -> Optional[str]:
    if override is not None:
        return override or None
    return _installed_agent(root, BASELINE_AGENT)


def _installed_agent(root: Path, name: str) -> Optional[str]:
    """Claude Code's name for the agent type ``name`` as installed (``bench-baseline``, or
    ``<plugin>:bench-baseline`` from a plugin; the rule is in harness/agents.py), or None."""
    used = os.environ.get("BENCHMARK_SKILL_DIR")  # the skill folder the wrapper ran from
    return agents.installed_agent_type(name, root, Path(used) if used else None)


def _draw_orders(seed: int, cases: tuple[Case, ...], comparisons: dict[str, tuple[str, str]]) -> dict:
    rng = random.Random(seed)
    orders: dict[str, dict[str, str]] = {}
    for case in cases:
        for trial in range(1, TRIALS + 1):
            for comp in ("efficacy", "regression"):
                if comp not in comparisons:
                    continue
                other = comparisons[comp][1]
                new_first = rng.random() < 0.5
                orders[f"{case.id}/t{trial}/{comp}"] = {"A": "new", "B": other} if new_first else {"A": other, "B": "new"}
    return orders


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _build_run(root: Path, d: Decision, branch: gitrepo.DefaultBranch, seed: int, now: datetime,
               templates: Templates, skill_dir: Path, temp_base: Optional[Path], baseline_agent: Optional[str],
               created: list[Path]) -> tuple[Path, Plan]:
    run_id = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}"
    run_dir = root / RUNS_DIR / run_id
    while run_dir.exists():
        run_id = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}"
        run_dir = root / RUNS_DIR / run_id
    temp_root = make_temp_root(run_id, root, temp_base)
    created.append(temp_root)
    three = d.shape == "three-arm"
    arms = ("new", "baseline", "previous") if three else ("new", "baseline")
    comparisons = {"efficacy": ("new", "baseline")}
    if three:
        comparisons["regression"] = ("new", "previous")

    copies = {"new": temp_root / "skills" / token() / d.skill.name}
    gitrepo.copy_worktree(root, d.skill.path, copies["new"])
    if three:
        copies["previous"] = temp_root / "skills" / token() / d.skill.name
        gitrepo.extract_at(root, branch.commit, d.skill.path, copies["previous"])

    world_root = temp_root / "worlds"
    case_dir_of = {p.name: p for p in case_dirs(root, d.skill)}
    cells: list[Cell] = []
    for case in d.cases:
        fixture = fixture_path(root, case_dir_of[case.id], case)
        for trial in range(1, TRIALS + 1):
            for arm in arms:
                world = make_world(world_root, case.id, trial, fixture)
                if case.setup:
                    run_setup(world, case.setup, case.path)
                skill_copy = str(copies[arm]) if arm in copies else None
                cells.append(Cell(id=f"{case.id}/t{trial}/{arm}", case=case.id, trial=trial, arm=arm,
                                  world=str(world), skill_dir=skill_copy,
                                  prompt=templates.arm_prompt(case, str(world), skill_copy),
                                  agent_type=baseline_agent if arm == "baseline" else None))

    run_dir.mkdir(parents=True)
    created.append(run_dir)
    for case in d.cases:
        write_atomic(run_dir / "cases" / case.id / "case.md",
                     (case_dir_of[case.id] / "case.md").read_text(encoding="utf-8"))
    info = RunInfo(run_id=run_id, skill=SkillRef(d.skill.name, d.skill.path), started_at=now.isoformat().replace("+00:00", "Z"),
                   shape=d.shape, arms=arms, comparisons=comparisons, trials=TRIALS,
                   temperature=Temperature(requested=d.temperature, applied="session default"), seed=seed,
                   default_branch=BranchRef(branch.name, branch.commit), cases=tuple(c.id for c in d.cases))
    write_atomic(run_dir / "run.json", serde.dumps(info))
    plan = Plan(run_dir=str(run_dir), cells=tuple(cells), run_id=run_id, repo=str(root), skill=d.skill.name,
                shape=d.shape, seed=seed, temp_root=str(temp_root), world_root=str(world_root),
                skill_copies={k: str(v) for k, v in copies.items()}, baseline_agent_type=baseline_agent,
                orders=_draw_orders(seed, d.cases, comparisons), planned_at=info.started_at)
    write_plan(run_dir, plan)
    return run_dir, plan


def run(args) -> int:
    if args.all and args.skills:
        raise BenchError(None, "give skill names or --all, not both", fix="benchcore plan <skill>... or benchcore plan --all")
    root = find_repo_root(args.repo or Path.cwd())
    skills = discover_skills(root)
    if not args.all and not args.skills:
        tested = [s.name for s in skills.values() if case_dirs(root, s)]
        raise BenchError(None, "which skill? plan needs a skill name, or --all"
                         + (f"; skills with tests: {', '.join(tested)}" if tested else "; no skill has tests yet"),
                         fix=(f"benchcore plan {tested[0]}   (or: benchcore plan --all)" if tested else
                              "write cases in tests/<skill path>/01-<case>/case.md first (see docs/case-format.md)"))
    untested: list[str] = []
    if args.all:
        chosen = [s for s in skills.values() if case_dirs(root, s)]
        untested = [s.name for s in skills.values() if not case_dirs(root, s)]
        if not chosen:
            raise BenchError(str(root / "tests"), "no skill has tests", fix="add tests/<skill path>/<case>/case.md")
    else:
        chosen = _pick(skills, args.skills)
        for s in chosen:
            if not case_dirs(root, s):
                raise BenchError(s.tests_path, f"the skill {s.name!r} has no tests",
                                 fix=f"add {s.tests_path}/01-<case>/case.md (see docs/case-format.md)")
    _check_tree(root, chosen, whole=args.all)
    branch = gitrepo.resolve_default_branch(root)
    decisions = [_decide(root, s, branch) for s in chosen]
    skill_dir = find_skill_dir(root)
    templates = Templates(skill_dir)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    baseline_agent = _baseline_agent(root, args.baseline_agent)
    now = _now()

    created: list[Path] = []
    runs: list[tuple[Decision, Path, Plan]] = []
    try:
        for d in decisions:
            run_dir, plan = _build_run(root, d, branch, seed, now, templates, skill_dir, args.temp_dir,
                                       baseline_agent, created)
            runs.append((d, run_dir, plan))
        kind_dir = fanout.batch_dir([r for _, r, _ in runs], "arms")
        if len(runs) > 1:
            created.append(kind_dir.parent)
        scripts = fanout.write_bound_scripts(skill_dir, kind_dir, "Arms",
                                             fanout.arm_tasks(c for _, _, p in runs for c in p.cells))
    except BaseException:
        for path in reversed(created):
            shutil.rmtree(path, ignore_errors=True)
        raise

    rel = lambda p: os.path.relpath(p, Path.cwd()) if Path(p).is_relative_to(Path.cwd()) else str(p)
    run_dirs = " ".join(rel(r) for _, r, _ in runs)
    nxt = (f"launch the arm cells with {fanout.workflow_calls(scripts)} "
           f"(no Workflow tool: Agent-tool batches of the cells in plan.json); then run: benchcore collect {run_dirs}")
    if args.json:
        print(json.dumps({
            "runs": [{"run_dir": str(r), "skill": d.skill.name, "shape": d.shape, "why": d.why,
                      "cases": [c.id for c in d.cases], "cells": len(p.cells), "seed": seed,
                      "temperature_requested": d.temperature} for d, r, p in runs],
            "untested": untested, "baseline_agent_type": baseline_agent,
            "arms_workflow": str(scripts[0]), "arms_workflows": [str(s) for s in scripts], "next": nxt,
        }, indent=1))
        return 0
    for d, r, p in runs:
        arms = ", ".join(("new", "baseline", "previous") if d.shape == "three-arm" else ("new", "baseline"))
        print(f"{d.skill.name}: {d.shape} ({arms}) - {d.why}")
        print(f"  cases: {len(d.cases)} ({', '.join(c.id for c in d.cases)}); cells: {len(p.cells)}; "
              f"seed: {seed}; run: {rel(r)}")
        if d.temperature != 1.0:
            print(f"  temperature: {d.temperature:g} requested; subagents run at the session default "
                  f"(Claude Code cannot set it; the report says so)")
    if untested:
        print(f"skills with no tests (not benchmarked): {', '.join(untested)}")
    if baseline_agent is None:
        print(f"note: the '{BASELINE_AGENT}' agent type is not installed, so baseline cells run as the default type "
              f"(which has the Skill tool); install it from {skill_dir}/agents/{BASELINE_AGENT}.md into .claude/agents/")
    print(f"next: {nxt}")
    return 0
