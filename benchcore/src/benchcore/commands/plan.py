"""benchcore plan <skill>... | --all [--seed N]: run dirs, worlds, skill copies, plan.json.

For each skill: validate its tests (the checks of ``validate``), resolve the
default branch, decide the shape (docs/run-format.md), then create the run
directory, one fresh world per case x trial x arm and the skill copies in a
temp root outside the repository, and write run.json, plan.json, the cases
as used, and a bound copy of the skill's workflow script. Nothing is created
when any check fails, and anything half-made is removed when a step fails.
The stages are in ``harness/plan/run.py``; this command parses and prints.
Unless ``--fresh`` is given, it first continues the newest unfinished run of
the same skills when that still fits the tree (``harness/plan/resume.py``).

Judge orders are not drawn here: ``collect`` draws each one when it writes that
trial's packet, from the seed and the bytes of the two outputs
(:func:`benchcore.judging.draw_order`), so nothing an arm can read
while it runs (plan.json, run.json and the seed included) tells it its letter.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from attrs import evolve

from .. import serde
from ..errors import BenchError
from ..model import Budget, TRIALS
from ..harness.repo import git
from ..harness.claude.settings import LOCAL, allow_benchmark, guard_command, hide_git_status
from ..harness.plan import blind
from ..harness.confine.guard import benchmark_skill_dir, register_runs
from ..harness.store.files import shown_path
from ..harness.plan.decide import BASELINE_AGENT, JUDGE_AGENT, choose_skills, decide
from ..harness.plan.estimate import arms_phrase, budget_phrase, estimate_line
from ..harness.plan.resume import Resumable, find_resumable, not_resumed_line, resume, resume_hint, resumed_lines, resumed_next, slash_command
from ..harness.plan.run import plan_runs
from ..harness.plan.sandboxing import choose_sandbox
from ..harness.store.planfile import agent_tool_model, read_plan
from ..harness.repo.roots import installed_note
from ..harness.repo.tree import find_repo_root
from ..harness.worlds.temp import default_temp_base


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
                   help=f"agent type for every arm cell (default: {BASELINE_AGENT} when its definition is installed)")
    p.add_argument("--budget-tokens", type=int, default=None, metavar="N",
                   help="stop launching once the estimate reaches N raw tokens (overrides benchmark.yaml budget_tokens)")
    p.add_argument("--budget-usd", type=float, default=None, metavar="X",
                   help="stop launching once the estimate reaches X dollars (overrides benchmark.yaml budget_usd)")
    p.add_argument("--fresh", action="store_true",
                   help="plan a new run even when an unfinished run of the same skills could be resumed")
    p.add_argument("--invoked-as", default=None, metavar="/COMMAND",
                   help="the slash command the session ran (e.g. /benchmark-skill:benchmark-skill), named in the "
                        "line that says how to resume; default: /benchmark-skill, or /<plugin>:benchmark-skill "
                        "when the skill is installed as a plugin")
    p.add_argument("--no-sandbox", action="store_true",
                   help="plan even where no OS sandbox runs (plan says when): arms' commands then run unconfined "
                        "by the OS, checked only by parsing them (interpreters and build tools refused), and the "
                        "report says the run was not sandboxed")
    p.add_argument("--hide-git-status", action="store_true",
                   help='write "includeGitInstructions": false to .claude/settings.local.json and stop: after a '
                        "restart, Claude Code gives no subagent the git status, which names an edited skill to the "
                        "baseline")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


def run(args) -> int:
    if args.all and args.skills:
        raise BenchError(None, "give skill names or --all, not both", fix="benchcore plan <skill>... or benchcore plan --all")
    root = find_repo_root(args.repo or Path.cwd())
    if args.hide_git_status:
        print(hide_git_status(root))
        print(f"next: restart Claude Code (exit, then start claude again here: a setting is read when a session "
              f"starts) and type {slash_command(args.invoked_as, [] if args.all else list(args.skills))} again")
        return 0
    chosen, untested = choose_skills(root, args.skills, args.all)
    branch = git.resolve_default_branch(root)
    decisions = [decide(root, s, branch) for s in chosen]
    # Before anything is built: the OS sandbox the arms' commands run in (or the user's opt-out).
    decisions, sandbox_line = choose_sandbox(root, args.temp_dir or default_temp_base(), decisions,
                                             args.no_sandbox)
    if args.budget_tokens is not None or args.budget_usd is not None:
        if (args.budget_tokens is not None and args.budget_tokens <= 0) or \
                (args.budget_usd is not None and not args.budget_usd > 0):
            raise BenchError(None, "a budget must be a positive number",
                             fix="pass e.g. --budget-tokens 2000000 or --budget-usd 5")
        budget_flag = Budget(raw_tokens=args.budget_tokens, usd=args.budget_usd, source="plan flag")
        decisions = [evolve(d, budget=budget_flag) for d in decisions]
    command = slash_command(args.invoked_as, [] if args.all else list(args.skills))
    found = Resumable(()) if args.fresh else find_resumable(root, decisions, branch, args.seed,
                                                                       args.baseline_agent)
    if found.runs:
        return _resume(args, root, found, command)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    planned = plan_runs(root, decisions, branch, seed, args.temp_dir, args.baseline_agent, command)
    runs, ests, nxt = planned.runs, planned.estimates, planned.next
    register_runs(r for _, r, _ in runs)  # the guard confines these runs' arms until clean
    seen_lines = _baseline_sees(root, runs, command)
    excluded = git.keep_out_of_git(root, "tests/.reports/")
    exclude_note = (f"note: tests/.reports/ (transcripts, reports, history) is kept out of git in this clone: "
                    f"added to {shown_path(Path(excluded))} (no tracked file changed)") if excluded else ""
    base = args.temp_dir or default_temp_base()
    # Under a folder of the user's, only each run's own temp root is granted (clean takes it out again).
    grants = [base] if args.temp_dir is None else [Path(read_plan(r).temp_root) for _, r, _ in runs]
    settings_note = "" if args.keep_settings else allow_benchmark(
        root, grants, os.environ.get("BENCHCORE_COMMAND"),
        guard=guard_command(benchmark_skill_dir(root), base))
    if args.json:
        print(json.dumps({
            "runs": [{"run_dir": str(r), "skill": d.skill.name, "shape": d.shape, "why": d.why,
                      "cases": [c.id for c in d.cases], "cells": len(p.cells), "seed": seed,
                      "temperature_requested": d.temperature, "model": p.model, "judge_model": p.judge_model,
                      "estimate": serde.dump(e) if e is not None else None,
                      "budget": serde.dump(d.budget) if d.budget else None,
                      "not_launched": [c.id for c in p.cells if c.skip]}
                     for (d, r, p), e in zip(runs, ests)],
            "estimate": estimate_line(runs, ests, planned.total),
            "untested": untested, "baseline_agent_type": planned.baseline_agent,
            "judge_agent_type": planned.judge_agent,
            "baseline_sees": seen_lines, "settings_note": settings_note or None, "exclude_note": exclude_note or None,
            "sandbox": sandbox_line, "agent_path_note": planned.agent_note or None,
            "arms_workflow": str(planned.scripts[0]), "arms_workflows": [str(s) for s in planned.scripts],
            "not_resumed": not_resumed_line(found), "resume_hint": resume_hint(command), "next": nxt,
        }, indent=1))
        return 0
    for (d, r, p), est in zip(runs, ests):
        arms = ", ".join(("new", "baseline", "previous") if d.shape == "three-arm" else ("new", "baseline"))
        on = f" on {p.model}" if p.model else ""
        print(f"{d.skill.name}{on}: {d.shape} ({arms}) - {d.why}")
        ids = [c.id for c in d.cases]  # the session reads this line: past 5 cases, the first 3 and a count
        named = ", ".join(ids) if len(ids) <= 5 else f"{', '.join(ids[:3])}, ... {ids[-1]}"
        print(f"  cases: {len(d.cases)} ({named}); cells: {len(p.cells)}; "
              f"seed: {seed}; run: {shown_path(r)}")
        if d.temperature != 1.0:
            print(f"  temperature: {d.temperature:g} requested; subagents run at the session default "
                  f"(Claude Code cannot set it; the report says so)")
        if est is not None:
            print(f"  estimate: {arms_phrase(est, d, p)}")
        if p.judge_model:
            print(f"  judges run on {p.judge_model}")
        for m in (p.model, p.judge_model):
            if m and agent_tool_model(m) is None:
                print(f"  note: the Agent tool takes only sonnet, opus, haiku or fable as a model, so without the "
                      f"Workflow tool {m} cannot be asked for (the session's model runs instead; the report shows it)")
        cut = [c for c in p.cells if c.skip]
        if cut:
            trials = len({(c.case, c.trial) for c in cut})
            print(f"  budget: {budget_phrase(d.budget)} reached: {trials} of {len(d.cases) * TRIALS} trials "
                  f"({len(cut)} cells) will not be launched; the report shows them as not run")
        elif d.budget is not None and d.budget.usd is not None and est is not None and est.basis != "none" \
                and est.cost_usd is None:
            print(f"  budget: {budget_phrase(d.budget)}; the estimate has no dollar figure (a model with no price), "
                  "so the dollar ceiling cannot stop a launch; set budget_tokens (or --budget-tokens) instead")
        elif d.budget is not None and est is not None and est.basis == "none":
            print(f"  budget: {budget_phrase(d.budget)}; with no estimate the arms cannot be held to it before "
                  "launch; the judges are held to it from the arms' real usage")
    print(sandbox_line)
    print(f"estimate: {estimate_line(runs, ests, planned.total)}")
    if branch.remote_commit and any(d.shape == "three-arm" for d, _, _ in runs):
        print(f"note: the previous version is your local {branch.name} at {branch.commit[:7]}; {branch.remote_name} "
              f"is at {branch.remote_commit[:7]} (not pushed, or not pulled); the report says so")
    if untested:
        print(f"skills with no tests (not benchmarked): {', '.join(untested)}")
    if planned.baseline_agent is None:
        print(f"warning: the '{BASELINE_AGENT}' agent type is not installed, so arm cells run as the default type "
              f"(the baseline with the Skill tool, every arm with your CLAUDE.md; the verdict says so)")
        print(f"  to install the benchmark's agent types: mkdir -p .claude/agents && cp "
              f"{planned.skill_dir}/agents/*.md .claude/agents/ ; then restart Claude Code (an agent type is "
              f"read when a session starts) and type {command} again")
    if planned.judge_agent is None:
        print(f"note: the '{JUDGE_AGENT}' agent type is not installed, so judges run as the default type (which has "
              f"tools; collect re-asks a judge that used one); install it from "
              f"{planned.skill_dir}/agents/{JUDGE_AGENT}.md into .claude/agents/")
    for line in seen_lines:
        print(line)
    if (note := installed_note([d.skill for d, _, _ in runs], planned.baseline_agent)) is not None:
        print(note)
    if settings_note:
        print(settings_note)
    if exclude_note:
        print(exclude_note)
    if planned.agent_note:
        print(planned.agent_note)
    if not_resumed_line(found):
        print(not_resumed_line(found))
    print(resume_hint(command))
    print(f"next: {nxt}")
    return 0


def _baseline_sees(root: Path, runs, command: str) -> list[str]:
    """Before launch: what shows a skill under test to the baseline (harness/plan/blind.py), recorded in each
    run's run.json for the verdict's caveat; the warning lines, with the one command that prevents it."""
    found, status = blind.git_status_names(root, [d.skill for d, _, _ in runs])
    if status is None:  # no session transcript: only an edited skill is known to be listed
        found = {k: v for k, v in found.items() if any(d.skill.name == k and d.shape == "three-arm" for d, _, _ in runs)}
    for d, r, _ in runs:
        if d.skill.name in found:
            blind.record(r, found[d.skill.name])
    if not found:
        return []
    return [f"warning: the baseline can see {name}: {why}" for name, why in sorted(found.items())] + [
        f"  to keep it out: run benchcore plan --hide-git-status (it writes \"includeGitInstructions\": false to "
        f"{LOCAL}), restart Claude Code and type {command} again; if you go on, the verdict says so"]


def _resume(args, root: Path, found: Resumable, command: str) -> int:
    """Continue the unfinished run(s) found: what collect finds, and its next step (``harness/plan_resume``)."""
    done = resume(found.runs)
    settings_note = "" if args.keep_settings else allow_benchmark(root, args.temp_dir or default_temp_base(),
                                                                  os.environ.get("BENCHCORE_COMMAND"))
    nxt = resumed_next(done)
    hint = resume_hint(command) if not nxt.startswith("run: benchcore render") else None
    if args.json:
        print(json.dumps({"resumed": [str(r.run_dir) for r in found.runs], "lines": resumed_lines(done, found.runs),
                          "settings_note": settings_note or None, "resume_hint": hint, "next": nxt}, indent=1))
        return 0
    for line in resumed_lines(done, found.runs):
        print(line)
    for line in filter(None, (settings_note, hint)):
        print(line)
    print(f"next: {nxt}")
    return 0
