"""benchcore plan <skill>... | --all [--seed N]: run dirs, worlds, skill copies, plan.json.

For each skill: validate its tests (the checks of ``validate``), resolve the
default branch, decide the shape (CONTRACT section 2), then create the run
directory, one fresh world per case x trial x arm and the skill copies in a
temp root outside the repository, and write run.json, plan.json, the cases
as used, and a bound copy of the skill's workflow script. Nothing is created
when any check fails, and anything half-made is removed when a step fails.

Judge orders are not drawn here: ``collect`` draws each one when it writes that
trial's packet, from the seed and the bytes of the two outputs
(:func:`benchcore.harness.judging.draw_order`), so nothing an arm can read
while it runs (plan.json, run.json and the seed included) tells it its letter.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from attrs import evolve, frozen

from .. import serde
from ..errors import BenchError
from ..model import Budget, BranchRef, Case, Estimate, RunInfo, SkillRef, Temperature, TRIALS
from ..harness import agents, fanout, gitrepo
from ..harness.files import write_atomic
from ..estimate import estimate, total_of
from ..harness.costs import ceiling, cell_costs, read_histories, task_cost
from ..harness.planfile import Cell, Plan, agent_tool_model, write_plan
from ..harness.rundir import read_run_info
from ..harness.transcript_io import price_table
from ..harness.prompts import Templates, find_skill_dir
from ..harness.tree import (SkillInfo, case_dirs, discover_skills, find_repo_root, fixture_path, load_cases,
                            load_options, validate_tree)
from ..harness.claude_settings import LOCAL, allow_benchmark, git_status_reaches_subagents, guard_command
from ..harness.confine import register_runs
from ..harness.worlds import _make_writable, default_temp_base, make_temp_root, make_world, new_nonce, run_setup, token

RUNS_DIR = "tests/.reports/runs"
REPORTS_DIR = "tests/.reports"
BASELINE_AGENT = "bench-baseline"
JUDGE_AGENT = "bench-judge"


def add_arguments(p) -> None:
    p.add_argument("skills", nargs="*", metavar="skill", help="skill name(s), as in skills/**/<name>/SKILL.md")
    p.add_argument("--all", action="store_true", help="every skill that has tests")
    p.add_argument("--seed", type=int, default=None, help="seed for the judge orders (default: random, recorded)")
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from here)")
    p.add_argument("--temp-dir", type=Path, default=None,
                   help="the folder that holds the run's temp root for worlds and skill copies (default: <system temp dir>/benchcore)")
    p.add_argument("--keep-settings", action="store_true",
                   help="leave .claude/settings.local.json alone (by default plan adds, once, the worlds folder to its "
                        "additionalDirectories and allow rules for benchcore's own commands, so a run asks no "
                        "permission per cell)")
    p.add_argument("--baseline-agent", default=None,
                   help=f"agent type for baseline cells (default: {BASELINE_AGENT} when its definition is installed)")
    p.add_argument("--budget-tokens", type=int, default=None, metavar="N",
                   help="stop launching once the estimate reaches N raw tokens (overrides benchmark.yaml budget_tokens)")
    p.add_argument("--budget-usd", type=float, default=None, metavar="X",
                   help="stop launching once the estimate reaches X dollars (overrides benchmark.yaml budget_usd)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


@frozen
class Decision:
    skill: SkillInfo
    cases: tuple[Case, ...]
    temperature: float
    shape: str
    why: str
    models: tuple[Optional[str], ...] = (None,)
    judge_model: Optional[str] = None
    budget: Optional[Budget] = None


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
    models = tuple(opts.get("models") or (None,))
    budget = None
    if "budget_tokens" in opts or "budget_usd" in opts:
        budget = Budget(raw_tokens=opts.get("budget_tokens"), usd=opts.get("budget_usd"),
                        source=f"{skill.tests_path}/benchmark.yaml")
    return Decision(skill, cases, float(opts["temperature"]), shape, why, models, opts.get("judge_model"), budget)


def _baseline_agent(root: Path, override: Optional[str]) -> Optional[str]:
    if override is not None:
        return override or None
    return _installed_agent(root, BASELINE_AGENT)


def _installed_agent(root: Path, name: str) -> Optional[str]:
    """Claude Code's name for the agent type ``name`` as installed (``bench-baseline``, or
    ``<plugin>:bench-baseline`` from a plugin; the rule is in harness/agents.py), or None."""
    used = os.environ.get("BENCHMARK_SKILL_DIR")  # the skill folder the wrapper ran from
    return agents.installed_agent_type(name, root, Path(used) if used else None)


def _terminated(signum, frame):
    raise KeyboardInterrupt


def _retry_writable(func, path) -> None:
    try:
        _make_writable(func, path, None)
    except OSError:
        pass


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _build_run(root: Path, d: Decision, branch: gitrepo.DefaultBranch, seed: int, now: datetime,
               templates: Templates, skill_dir: Path, temp_base: Optional[Path], baseline_agent: Optional[str],
               judge_agent: Optional[str],
               created: list[Path], model: Optional[str] = None) -> tuple[Path, Plan]:
    run_id = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}"
    run_dir = root / RUNS_DIR / run_id
    while run_dir.exists():
        run_id = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}"
        run_dir = root / RUNS_DIR / run_id
    nonce = new_nonce()
    temp_root = make_temp_root(run_id, root, temp_base, nonce)
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
                                  agent_type=baseline_agent if arm == "baseline" else None, model=model,
                                  agent_model=agent_tool_model(model)))

    run_dir.mkdir(parents=True)
    created.append(run_dir)
    for case in d.cases:
        write_atomic(run_dir / "cases" / case.id / "case.md",
                     (case_dir_of[case.id] / "case.md").read_text(encoding="utf-8"))
    info = RunInfo(run_id=run_id, skill=SkillRef(d.skill.name, d.skill.path), started_at=now.isoformat().replace("+00:00", "Z"),
                   shape=d.shape, arms=arms, comparisons=comparisons, trials=TRIALS,
                   temperature=Temperature(requested=d.temperature, applied="session default"), seed=seed,
                   default_branch=BranchRef(branch.name, branch.commit), cases=tuple(c.id for c in d.cases),
                   model=model, judge_model=d.judge_model, budget=d.budget)
    write_atomic(run_dir / "run.json", serde.dumps(info))
    plan = Plan(run_dir=str(run_dir), cells=tuple(cells), run_id=run_id, repo=str(root), skill=d.skill.name,
                shape=d.shape, seed=seed, temp_root=str(temp_root), temp_nonce=nonce, world_root=str(world_root),
                skill_copies={k: str(v) for k, v in copies.items()}, baseline_agent_type=baseline_agent,
                order_rule="outputs", judge_agent_type=judge_agent, planned_at=info.started_at,
                model=model, judge_model=d.judge_model, budget=d.budget)
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
    budget_flag = None
    if args.budget_tokens is not None or args.budget_usd is not None:
        if (args.budget_tokens is not None and args.budget_tokens <= 0) or \
                (args.budget_usd is not None and not args.budget_usd > 0):
            raise BenchError(None, "a budget must be a positive number",
                             fix="pass e.g. --budget-tokens 2000000 or --budget-usd 5")
        budget_flag = Budget(raw_tokens=args.budget_tokens, usd=args.budget_usd, source="plan flag")
        decisions = [evolve(d, budget=budget_flag) for d in decisions]
    skill_dir = find_skill_dir(root)
    templates = Templates(skill_dir)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    baseline_agent = _baseline_agent(root, args.baseline_agent)
    judge_agent = _installed_agent(root, JUDGE_AGENT)
    now = _now()
    histories = read_histories(root / REPORTS_DIR)
    prices = price_table()

    created: list[Path] = []
    runs: list[tuple[Decision, Path, Plan]] = []
    # SIGTERM while planning removes what this plan made, like Ctrl-C: no temp folder is left that no run names.
    old_term = signal.signal(signal.SIGTERM, _terminated)
    try:
        for d in decisions:
            for model in d.models:
                run_dir, plan = _build_run(root, d, branch, seed, now, templates, skill_dir, args.temp_dir,
                                           baseline_agent, judge_agent, created, model)
                runs.append((d, run_dir, plan))
        runs = [(d, r, _with_estimate(r, p, d, histories, prices)) for d, r, p in runs]
        tasks, not_launched = _arm_tasks(runs)
        runs = [(d, r, _with_not_launched(r, p, not_launched)) for d, r, p in runs]
        kind_dir = fanout.batch_dir([r for _, r, _ in runs], "arms")
        if len(runs) > 1:
            created.append(kind_dir.parent)
        scripts = fanout.write_bound_scripts(skill_dir, kind_dir, "Arms", tasks, ceilings=_ceilings(runs))
    except BaseException:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for path in reversed(created):
            shutil.rmtree(path, onerror=lambda f, p, e: _retry_writable(f, p))
        raise
    finally:
        signal.signal(signal.SIGTERM, old_term)

    rel = lambda p: os.path.relpath(p, Path.cwd()) if Path(p).is_relative_to(Path.cwd()) else str(p)
    run_dirs = " ".join(rel(r) for _, r, _ in runs)
    nxt = (f"launch the arm cells with {fanout.workflow_calls(scripts)} "
           f"({fanout.agent_tasks_phrase(scripts)}); then run: benchcore collect {run_dirs}")
    register_runs(r for _, r, _ in runs)  # the guard confines these runs' arms until clean
    base = args.temp_dir or default_temp_base()
    settings_note = "" if args.keep_settings else allow_benchmark(
        root, base, os.environ.get("BENCHCORE_COMMAND"),
        guard=guard_command(os.environ.get("BENCHMARK_SKILL_DIR"), base))
    ests = [read_run_info(r).estimate for _, r, _ in runs]
    total = total_of(e for e in ests if e is not None) if all(e is not None for e in ests) else None
    if args.json:
        print(json.dumps({
            "runs": [{"run_dir": str(r), "skill": d.skill.name, "shape": d.shape, "why": d.why,
                      "cases": [c.id for c in d.cases], "cells": len(p.cells), "seed": seed,
                      "temperature_requested": d.temperature, "model": p.model, "judge_model": p.judge_model,
                      "estimate": serde.dump(e) if e is not None else None,
                      "budget": serde.dump(d.budget) if d.budget else None,
                      "not_launched": [c.id for c in p.cells if c.skip]}
                     for (d, r, p), e in zip(runs, ests)],
            "estimate": _estimate_line(runs, ests, total),
            "untested": untested, "baseline_agent_type": baseline_agent, "judge_agent_type": judge_agent,
            "settings_note": settings_note or None,
            "arms_workflow": str(scripts[0]), "arms_workflows": [str(s) for s in scripts], "next": nxt,
        }, indent=1))
        return 0
    for (d, r, p), est in zip(runs, ests):
        arms = ", ".join(("new", "baseline", "previous") if d.shape == "three-arm" else ("new", "baseline"))
        on = f" on {p.model}" if p.model else ""
        print(f"{d.skill.name}{on}: {d.shape} ({arms}) - {d.why}")
        print(f"  cases: {len(d.cases)} ({', '.join(c.id for c in d.cases)}); cells: {len(p.cells)}; "
              f"seed: {seed}; run: {rel(r)}")
        if d.temperature != 1.0:
            print(f"  temperature: {d.temperature:g} requested; subagents run at the session default "
                  f"(Claude Code cannot set it; the report says so)")
        if est is not None:
            print(f"  estimate: {_arms_phrase(est, d, p)}")
        if p.judge_model:
            print(f"  judges run on {p.judge_model}")
        for m in (p.model, p.judge_model):
            if m and agent_tool_model(m) is None:
                print(f"  note: the Agent tool takes only sonnet, opus, haiku or fable as a model, so without the "
                      f"Workflow tool {m} cannot be asked for (the session's model runs instead; the report shows it)")
        cut = [c for c in p.cells if c.skip]
        if cut:
            trials = len({(c.case, c.trial) for c in cut})
            print(f"  budget: {_budget_phrase(d.budget)} reached: {trials} of {len(d.cases) * TRIALS} trials "
                  f"({len(cut)} cells) will not be launched; the report shows them as not run")
        elif d.budget is not None and d.budget.usd is not None and est is not None and est.basis != "none" \
                and est.cost_usd is None:
            print(f"  budget: {_budget_phrase(d.budget)}; the estimate has no dollar figure (a model with no price), "
                  "so the dollar ceiling cannot stop a launch; set budget_tokens (or --budget-tokens) instead")
        elif d.budget is not None and est is not None and est.basis == "none":
            print(f"  budget: {_budget_phrase(d.budget)}; with no estimate the arms cannot be held to it before "
                  "launch; the judges are held to it from the arms' real usage")
    print(f"estimate: {_estimate_line(runs, ests, total)}")
    if untested:
        print(f"skills with no tests (not benchmarked): {', '.join(untested)}")
    if baseline_agent is None:
        print(f"note: the '{BASELINE_AGENT}' agent type is not installed, so baseline cells run as the default type "
              f"(which has the Skill tool); install it from {skill_dir}/agents/{BASELINE_AGENT}.md into .claude/agents/")
    if judge_agent is None:
        print(f"note: the '{JUDGE_AGENT}' agent type is not installed, so judges run as the default type (which has "
              f"tools; collect re-asks a judge that used one); install it from {skill_dir}/agents/{JUDGE_AGENT}.md "
              f"into .claude/agents/")
    edited = [d for d, _, _ in runs if d.shape == "three-arm"]
    if edited and git_status_reaches_subagents(root):
        names = sorted({d.skill.name for d in edited})
        print(f"note: Claude Code shows every subagent the git status, which lists the edited skill "
              f"({', '.join(names)}), so a baseline arm can read its name there; to keep it out, set "
              f'"includeGitInstructions": false in {LOCAL} (or CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS=1) and '
              "start a new session before the run")
    if settings_note:
        print(settings_note)
    print(f"next: {nxt}")
    return 0


# ----------------------------------------------------------------------------- estimate and budget


def _with_estimate(run_dir: Path, plan: Plan, d: Decision, histories: dict, prices) -> Plan:
    """Estimate the run from the history, record it in run.json and its per-cell costs in plan.json."""
    cells: dict[str, int] = {}
    for c in plan.cells:
        cells[c.arm] = cells.get(c.arm, 0) + 1
    comparisons = 2 if d.shape == "three-arm" else 1
    est = estimate(d.skill.name, histories.get(d.skill.name, []), histories, cells,
                   len(d.cases) * TRIALS * comparisons, model=plan.model, prices=prices)
    info = evolve(read_run_info(run_dir), estimate=est)
    write_atomic(run_dir / "run.json", serde.dumps(info))
    plan = evolve(plan, cell_costs=cell_costs(est))
    write_plan(run_dir, plan)
    return plan


def _order(runs: list) -> list:
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
            for trial in range(1, TRIALS + 1):
                for d, p in group:
                    out += [(d, p, c) for c in p.cells if c.case == case.id and c.trial == trial]
    return out


def _arm_tasks(runs: list) -> tuple[list[dict], set[str]]:
    """The bound arm tasks (each with its reserved cost when a budget is set) and the task ids the budget
    leaves out (the script's own counting, run here first so that plan.json and run.json can say so)."""
    ordered = _order(runs)

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
    launched, _ = fanout.launches(tasks, _ceilings(runs))
    return tasks, {(p.run_id, c.id) for (_, p, c), ok in zip(ordered, launched) if not ok}


def _ceilings(runs: list) -> Optional[dict]:
    out = {}
    for d, _, _ in runs:
        c = ceiling(d.budget)
        if c is not None:
            out[d.skill.name] = c
    return out or None


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


def _budget_phrase(b: Optional[Budget]) -> str:
    parts = []
    if b is not None and b.raw_tokens is not None:
        parts.append(f"{b.raw_tokens:,} raw tokens")
    if b is not None and b.usd is not None:
        parts.append(f"${b.usd:,.2f}")
    return "ceiling " + " or ".join(parts) + (f" ({b.source})" if b is not None and b.source else "")


def _tok(x: Optional[float]) -> str:
    if x is None:
        return "?"
    if x >= 1_000_000:
        return f"{x / 1_000_000:.2f}M"
    if x >= 1_000:
        return f"{x / 1_000:.0f}k"
    return f"{x:.0f}"


def _usd(x: Optional[float]) -> str:
    return "no price" if x is None else f"${x:,.2f}"


def _arms_phrase(est: Estimate, d: Decision, p: Plan) -> str:
    if est.basis == "none":
        return est.source
    parts = [f"{arm} {a.cells} cells {_tok(a.raw_tokens)}" for arm, a in est.arms.items()]
    if est.judges is not None:
        parts.append(f"judges {est.judges.cells} packets {_tok(est.judges.raw_tokens)}")
    return (f"{'; '.join(parts)} raw tokens; in all {_tok(est.raw_tokens)} raw, "
            f"{_tok(est.cost_equivalent_tokens)} cost-equivalent, {_usd(est.cost_usd)} (from {est.source})")


def _estimate_line(runs: list, ests: list, total: Optional[Estimate]) -> str:
    """The one line the skill relays before the fan-out."""
    cells = sum(len(p.cells) - sum(1 for c in p.cells if c.skip) for _, _, p in runs)
    packets = sum(e.judges.cells for e in ests if e is not None and e.judges is not None)
    if total is None:
        known = [e for e in ests if e is not None and e.basis != "none"]
        why = ests[0].source if ests and ests[0] is not None and not known else "some runs have no earlier usage to go by"
        return f"{cells} arm cells and their judges; cannot estimate the tokens ({why})"
    return (f"{cells} arm cells and about {packets} judge packets, about {_tok(total.raw_tokens)} raw tokens "
            f"({_tok(total.cost_equivalent_tokens)} cost-equivalent), {_usd(total.cost_usd)}")
