"""What ``benchcore plan`` says of the runs it planned: one block per run, then the notes before launch.

Every sentence is made here; the command prints the lines in order.
"""

from __future__ import annotations

from ...estimate import PRIOR
from ..runs.folder import SHAPES
from ..repo.roots import installed_note
from ..store.files import shown_path
from ..store.planfile import agent_tool_model
from .decide import BASELINE_AGENT, JUDGE_AGENT
from .estimate import arms_phrase, budget_phrase
from .resume import not_resumed_line, resume_hint


def run_lines(planned, seed: int) -> list[str]:
    """Per run: its shape and why, its cases and cells, the estimate, the judges, what the budget holds back."""
    out: list[str] = []
    runs, ests = planned.runs, planned.estimates
    for (d, r, p), est in zip(runs, ests):
        arms = ", ".join(SHAPES[d.shape][0])
        on = f" on {p.model}" if p.model else ""
        out.append(f"{d.skill.name}{on}: {d.shape} ({arms}) - {d.why}")
        ids = [c.id for c in d.cases]  # the session reads this line: past 5 cases, the first 3 and a count
        named = ", ".join(ids) if len(ids) <= 5 else f"{', '.join(ids[:3])}, ... {ids[-1]}"
        out.append(f"  cases: {len(d.cases)} ({named}); cells: {len(p.cells)}; "
                   f"seed: {seed}; run: {shown_path(r)}")
        if d.temperature != 1.0:
            out.append(f"  temperature: {d.temperature:g} requested; subagents run at the session default "
                       f"(Claude Code cannot set it; the report says so)")
        # A plan of one run whose estimate is none or the rough prior: the estimate: line says why, or the one
        # rough total (a prior's split per arm says nothing more; run.json keeps it).
        if est is not None and not (est.basis in ("none", PRIOR) and len(runs) == 1):
            out.append(f"  estimate: {arms_phrase(est, d, p, totals=len(runs) > 1)}")
        if p.judge_model:
            out.append(f"  judges run on {p.judge_model}")
        for m in (p.model, p.judge_model):
            if m and agent_tool_model(m) is None:
                out.append(f"  note: the Agent tool takes only sonnet, opus, haiku or fable as a model, so without the "
                           f"Workflow tool {m} cannot be asked for (the session's model runs instead; the report shows it)")
        cut = [c for c in p.cells if c.skip]
        if cut:
            trials = len({(c.case, c.trial) for c in cut})
            out.append(f"  budget: {budget_phrase(d.budget)} reached: {trials} of {len(d.cases) * d.trials} trials "
                       f"({len(cut)} cells) will not be launched; the report shows them as not run")
        elif d.budget is not None and d.budget.usd is not None and est is not None and est.basis not in ("none", PRIOR) \
                and est.cost_usd is None:
            out.append(f"  budget: {budget_phrase(d.budget)}; the estimate has no dollar figure (a model with no price), "
                       "so the dollar ceiling cannot stop a launch; set budget_tokens (or --budget-tokens) instead")
        elif d.budget is not None and est is not None and est.basis in ("none", PRIOR):
            out.append(f"  budget: {budget_phrase(d.budget)}; with no earlier run to go by (the first-run estimate is "
                       "rough) the arms cannot be held to it before launch; the judges are held to it from the arms' "
                       "real usage")
    return out


def note_lines(planned, branch, untested, command: str, ready, found) -> list[str]:
    """Before launch: the previous version's branch, untested skills, missing agent types, what the baseline can
    see, the settings and git notes, the Agent-tool path, the Claude Code version, and how to resume."""
    out: list[str] = []
    runs = planned.runs
    seen_lines, settings_note, exclude_note = ready.seen_lines, ready.settings_note, ready.exclude_note
    if branch.remote_commit and any(d.shape == "three-arm" for d, _, _ in runs):
        out.append(f"note: the previous version is your local {branch.name} at {branch.commit[:7]}; {branch.remote_name} "
                   f"is at {branch.remote_commit[:7]} (not pushed, or not pulled); the report says so")
    if untested:
        out.append(f"skills with no tests (not benchmarked): {', '.join(untested)}")
    if planned.baseline_agent is None:
        out.append(f"warning: the '{BASELINE_AGENT}' agent type is not installed, so arm cells run as the default type "
                   f"(the baseline with the Skill tool, every arm with your CLAUDE.md; the verdict says so)")
        out.append(f"  to install the benchmark's agent types: mkdir -p .claude/agents && cp "
                   f"{planned.skill_dir}/agents/*.md .claude/agents/ ; then restart Claude Code (an agent type is "
                   f"read when a session starts) and type {command} again")
    if planned.judge_agent is None:
        out.append(f"note: the '{JUDGE_AGENT}' agent type is not installed, so judges run as the default type (which has "
                   f"tools; collect re-asks a judge that used one); install it from "
              f"{planned.skill_dir}/agents/{JUDGE_AGENT}.md into .claude/agents/")
    for line in seen_lines:
        out.append(line)
    if (note := installed_note([d.skill for d, _, _ in runs], planned.baseline_agent)) is not None:
        out.append(note)
    if settings_note:
        out.append(settings_note)
    if exclude_note:
        out.append(exclude_note)
    if planned.agent_note:
        out.append(planned.agent_note)
    if planned.version_note:
        out.append(planned.version_note)
    if not_resumed_line(found):
        out.append(not_resumed_line(found))
    out.append(resume_hint(command))
    return out
