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
from ..harness.repo import git
from ..harness.claude.settings import allow_benchmark, hide_git_status
from ..harness.plan.decide import BASELINE_AGENT, choose_skills, decide, require_agent_types, with_budget_flag
from ..harness.plan.estimate import estimate_line
from ..harness.plan.lines import note_lines, run_lines
from ..harness.plan.ready import hide_git_status_next, keep_out_note, make_ready
from ..harness.claude.session import current_facts, version_note
from ..harness.claude.live import live_sessions
from ..harness.claude.provenance import current_session, now_utc
from ..harness.plan.resume import (Resumable, find_resumable, launcher, launcher_line, not_resumed_line, resume,
                                   resume_hint, resumed_lines, resumed_next, slash_command)
from ..harness.plan.run import plan_runs
from ..harness.plan.sandboxing import choose_sandbox
from ..harness.plan.leftovers import clean_rendered
from ..harness.plan.where import require_session_at_root
from ..harness.repo.tree import find_repo_root
from ..harness.worlds.temp import default_temp_base


def add_arguments(p) -> None:
    p.add_argument("skills", nargs="*", metavar="skill", help="skill name(s), as in skills/**/<name>/SKILL.md")
    p.add_argument("--all", action="store_true", help="every skill that has tests")
    p.add_argument("--seed", type=int, default=None, help="seed for the judge orders (default: random, recorded)")
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from here)")
    p.add_argument("--temp-dir", type=Path, default=None,
                   help="the folder that holds the run's temp root for worlds and skill copies (default: <system temp dir>/benchcore-<uid>, one per user)")
    p.add_argument("--keep-settings", action="store_true",
                   help="leave .claude/settings.local.json alone (by default plan adds, once, the worlds folder to its "
                        "additionalDirectories and allow rules for benchcore's own commands, so a run asks no "
                        "permission per cell)")
    p.add_argument("--baseline-agent", default=None,
                   help=f"agent type for every arm cell (default: {BASELINE_AGENT} when its definition is installed)")
    p.add_argument("--default-agent-type", action="store_true",
                   help="plan even when the benchmark's agent types (bench-arm, bench-judge) are not installed: arms "
                        "and judges then run as Claude Code's default type (the baseline with the Skill tool and "
                        "your CLAUDE.md), and the verdict carries a caveat. Without it, plan stops and names the "
                        "command that installs them")
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
                   help="plan even where no OS sandbox runs (plan says when): the arms are then not confined, "
                        "their commands run as you and can reach anything you can, checked only by parsing them "
                        "(interpreters and build tools refused), and the report says the run was not sandboxed")
    p.add_argument("--hide-git-status", action="store_true",
                   help='write "includeGitInstructions": false to .claude/settings.local.json and stop: after a '
                        "restart, Claude Code gives no subagent the git status, which names an edited skill to the "
                        "baseline")
    p.add_argument("--calibrate", action="store_true",
                   help="plan a calibration instead: two independent new-skill arms per trial, judged against each "
                        "other, measure the judges' noise floor on the skill's own cases (docs/calibration.md)")
    p.add_argument("--pilot", action="store_true",
                   help="plan a pilot instead: one trial per arm per case, fresh arms judged blind as usual; render "
                        "then says per case whether the outputs differed and the judge decided, and what the full run "
                        "would cost, never a verdict (docs/writing-cases.md)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


def run(args) -> int:
    if args.all and args.skills:
        raise BenchError(None, "give skill names or --all, not both", fix="benchcore plan <skill>... or benchcore plan --all")
    root = find_repo_root(args.repo or Path.cwd())
    if args.hide_git_status:
        print(hide_git_status(root))
        for line in filter(None, [keep_out_note(root, reports=False)]):
            print(line)
        print(f"next: {hide_git_status_next(root, args.invoked_as, args.skills, args.all)}")
        return 0
    # Before anything is built: a session started below the repository's root could not launch the run's scripts.
    require_session_at_root(root, slash_command(args.invoked_as, [] if args.all else list(args.skills)))
    chosen, untested = choose_skills(root, args.skills, args.all)
    branch = git.resolve_default_branch(root)
    if args.pilot and args.calibrate:
        raise BenchError(None, "give --pilot or --calibrate, not both",
                         fix="benchcore plan --pilot <skill> (a first look) or --calibrate <skill> (the judges' noise)")
    decisions = [decide(root, s, branch, calibrate=args.calibrate) for s in chosen]
    if args.pilot:
        decisions = [evolve(d, pilot=True, why=f"pilot, one trial per arm per case, no verdict: {d.why}")
                     for d in decisions]
    # Before anything is built: the OS sandbox the arms' commands run in (or the user's opt-out).
    decisions, sandbox_line = choose_sandbox(root, args.temp_dir or default_temp_base(), decisions,
                                             args.no_sandbox)
    decisions = with_budget_flag(decisions, args.budget_tokens, args.budget_usd)
    command = slash_command(args.invoked_as, [] if args.all else list(args.skills))
    found = Resumable(()) if args.fresh else find_resumable(root, decisions, branch, args.seed,
                                                                       args.baseline_agent)
    # What a closed session left: a rendered run's worlds whose background clean never ran (said once, removed).
    leftovers = clean_rendered(root)
    for line in leftovers if not args.json else ():
        print(line)
    if found.runs:
        return _resume(args, root, found, command)
    if not args.default_agent_type:  # before anything is built: Claude Code reads agent types at session start
        require_agent_types(root, args.baseline_agent, command)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    planned = plan_runs(root, decisions, branch, seed, args.temp_dir, args.baseline_agent, command)
    runs, ests, nxt = planned.runs, planned.estimates, planned.next
    ready = make_ready(root, runs, command, args.temp_dir, args.keep_settings)
    seen_lines, settings_note, exclude_note = ready.seen_lines, ready.settings_note, ready.exclude_note
    if args.json:
        print(json.dumps({
            "runs": [{"run_dir": str(r), "skill": d.skill.name, "shape": d.shape, "why": d.why,
                      "cases": [c.id for c in d.cases], "cells": len(p.cells), "seed": seed,
                      "temperature_requested": d.temperature, "model": p.model, "judge_model": p.judge_model,
                      "estimate": serde.dump(e) if e is not None else None,
                      "budget": serde.dump(d.budget) if d.budget else None,
                      "not_launched": [c.id for c in p.cells if c.skip], "toolchain": d.toolchain_words}
                     for (d, r, p), e in zip(runs, ests)],
            "estimate": estimate_line(runs, ests, planned.total),
            "untested": untested, "baseline_agent_type": planned.baseline_agent,
            "judge_agent_type": planned.judge_agent,
            "baseline_sees": seen_lines, "settings_note": settings_note or None, "exclude_note": exclude_note or None,
            "sandbox": sandbox_line, "agent_path_note": planned.agent_note or None,
            "claude_code_version": planned.session.version, "version_note": planned.version_note or None,
            "arms_workflow": str(planned.scripts[0]), "arms_workflows": [str(s) for s in planned.scripts],
            "not_resumed": not_resumed_line(found), "resume_hint": resume_hint(command), "next": nxt,
        }, indent=1))
        return 0
    for line in run_lines(planned, seed):
        print(line)
    print(sandbox_line)
    print(f"estimate: {estimate_line(runs, ests, planned.total)}")
    for line in note_lines(planned, branch, untested, command, ready, found):
        print(line)
    print(f"next: {nxt}")
    return 0


def _resume(args, root: Path, found: Resumable, command: str) -> int:
    """Continue the unfinished run(s) found: what collect finds, and its next step (``harness/plan_resume``)."""
    # Before the resume's collect adds this session to the runs: the sessions that launched them, alive or ended.
    who = launcher(found.runs, current_session(), live_sessions(), now_utc())
    done = resume(found.runs)
    settings_note = "" if args.keep_settings else allow_benchmark(root, args.temp_dir or default_temp_base(),
                                                                  os.environ.get("BENCHCORE_COMMAND"))
    nxt = resumed_next(done, who, command)
    hint = resume_hint(command) if not nxt.startswith("run: benchcore render") else None
    if args.json:
        print(json.dumps({"resumed": [str(r.run_dir) for r in found.runs],
                          "lines": resumed_lines(done, found.runs) + [x for x in [launcher_line(who, done)] if x],
                          "settings_note": settings_note or None, "resume_hint": hint, "next": nxt}, indent=1))
        return 0
    for line in resumed_lines(done, found.runs) + [x for x in [launcher_line(who, done)] if x]:
        print(line)
    for line in filter(None, (settings_note, keep_out_note(root, reports=True), version_note(current_facts().version),
                              hint)):
        print(line)
    print(f"next: {nxt}")
    return 0
