"""The plan pipeline: the decided runs built (worlds), estimated, cut to the budget and given their arms scripts.

The stages, each in the module named for it, in order:

1. ``plan_decide``: the skills chosen and their tests checked; per skill the
   shape (two-arm or three-arm), its models, judge model and budget.
2. ``plan_worlds``: per skill and model a run directory (run.json, plan.json,
   cases as used), one fresh world per case x trial x arm and the skill copies
   in a temp root outside the repository.
3. ``plan_estimate``: the estimate from the history, into run.json, and each
   cell's cost into plan.json.
4. ``plan_launch``: the bound arm tasks in launch order, the cells the budget
   leaves out (plan.json ``skip``, run.json ``not_run``), the arms workflow scripts.

Nothing is left behind when a stage fails or planning is stopped.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from attrs import evolve, frozen

from ...estimate import total_of
from ...model import Estimate
from .. import fanout
from ..repo import git
from ..runs.costs import read_histories
from ..store.files import shown_path
from .decide import JUDGE_AGENT, Decision, baseline_agent, installed_agent
from .estimate import with_estimate
from .launch import write_arm_scripts
from .worlds import build_run, removed_on_failure
from ..store.planfile import Plan, write_plan
from ..fanout.prompts import Templates, find_skill_dir
from ..runs.folder import read_run_info
from ..claude.tokens import price_table
from ..claude.session import SessionFacts, current_facts, version_note

REPORTS_DIR = "tests/.reports"


@frozen
class Planned:
    """What one plan made: per run its decision, folder and plan; the arms scripts; the agent types found;
    each run's estimate and their total; and the next step."""

    runs: tuple[tuple[Decision, Path, Plan], ...]  # (decision, run dir, plan)
    scripts: tuple[Path, ...]
    skill_dir: Path
    baseline_agent: Optional[str]
    judge_agent: Optional[str]
    estimates: tuple[Optional[Estimate], ...]
    total: Optional[Estimate]
    next: str
    agent_note: str = ""  # whether the Agent-tool path fits one conversation, or in how many parts it runs
    # What the orchestrating session records of itself (Claude Code's version, model, context window), and
    # plan's note when that version is outside the tested range.
    session: SessionFacts = SessionFacts()
    version_note: str = ""


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _grouped(run_dir: Path, plan: Plan, group: tuple[str, ...], resume_command: str) -> Plan:
    plan = evolve(plan, group=group, resume_command=resume_command)
    write_plan(run_dir, plan)
    return plan


def plan_runs(root: Path, decisions: list[Decision], branch: git.DefaultBranch, seed: int,
              temp_base: Optional[Path], baseline_override: Optional[str], resume_command: str = "") -> Planned:
    """Build every decided run (one per skill and model) through stages 2 to 4; each plan.json names the runs
    planned with it and the command that resumes them (``plan_resume``)."""
    skill_dir = find_skill_dir(root)
    templates = Templates(skill_dir)
    baseline = baseline_agent(root, baseline_override)
    judge_agent = installed_agent(root, JUDGE_AGENT)
    now = _now()
    histories = read_histories(root / REPORTS_DIR)
    prices = price_table()
    facts = current_facts()
    runs: list = []
    with removed_on_failure() as created:
        for d in decisions:
            for model in d.models:
                run_dir, plan = build_run(root, d, branch, seed, now, templates, skill_dir, temp_base,
                                          baseline, judge_agent, created, model)
                runs.append((d, run_dir, plan))
        group = tuple(p.run_id for _, _, p in runs)
        runs = [(d, r, _grouped(r, p, group, resume_command)) for d, r, p in runs]
        served = facts.model  # the session's model: what arms of the default model are served
        runs = [(d, r, with_estimate(r, p, d, histories, prices, root, served)) for d, r, p in runs]
        runs, scripts, agent_note = write_arm_scripts(runs, skill_dir, created, facts.context_window)
    run_dirs = " ".join(shown_path(r) for _, r, _ in runs)
    nxt = (f"launch the arm cells with {fanout.workflow_calls(scripts)} "
           f"({fanout.agent_tasks_phrase(scripts)}); then run: benchcore collect {run_dirs}")
    ests = [read_run_info(r).estimate for _, r, _ in runs]
    total = total_of(e for e in ests if e is not None) if all(e is not None for e in ests) else None
    return Planned(tuple(runs), tuple(scripts), skill_dir, baseline, judge_agent, tuple(ests), total, nxt, agent_note,
                   facts, version_note(facts.version))
