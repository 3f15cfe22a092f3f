"""Bound copies of the skill's workflow script, so launching a fan-out costs the agent one short tool call.

The benchmark-skill folder ships ``workflow/bench-fanout.js``; it reads
``{phase, tasks, schema}`` from ``args``. A workflow script cannot read
files, so passing the tasks as ``args`` would make the agent copy every
prompt into its tool call. Instead ``plan`` and ``collect`` write a copy whose
``const BOUND = null`` line holds that object, and the agent runs it with
``Workflow({scriptPath})``: what it writes stays the same size however many
cells or packets there are. The bound data is written in short lines (harness/fanout/bound.py), so Claude
Code's approval dialog can show it in full and offer "Yes".

The copy's ``meta`` is rewritten too: Claude Code's "Run a dynamic workflow?" dialog shows its
description and phases, so each bound script names the skills, the phase (arms, re-runs, judges,
panel), the number of agents and, for a fan-out in several scripts, which one it is (:func:`meta_block`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Callable, Iterable, Optional

from ...errors import BenchError
from . import parts, bound
from ..store.files import read_json_object, write_atomic
from ...estimate import reached
from ...model import Budget
from ..store.planfile import Cell, Packet, agent_tool_model

SCRIPT = "workflow/bench-fanout.js"
BOUND_LINE = "const BOUND = null"
# A workflow runs at most 1,000 agents over its lifetime: larger fan-outs are split into several bound
# scripts, launched one after another; so is one whose script the approval dialog could not show in full.
MAX_AGENTS = 1000
# The tasks fitted_chunks encodes first: the figures of a few predict how many fit, where encoding MAX_AGENTS
# first (most of them never fitting) held their whole encoding at once: 8 MB of collect's peak for 2,000 judges.
FIRST_GUESS = 64
# Beside a fan-out's first script: the same launches as Agent-tool calls, one JSON object a line, for a
# session without the Workflow tool. Only what an Agent call takes, so the orchestrator reads no more than
# it writes (plan.json holds worlds, costs and ids besides: about twice the bytes).
AGENT_TASKS = "agent-tasks.jsonl"
# Its name in a run too large for one conversation on the Agent-tool path: each file is one part (SKILL.md).
AGENT_PART = "agent-tasks-part.jsonl"
# Beside a run's fan-out folders: plan's decision whether the Agent-tool path fits one conversation.
AGENT_PATH = "agent-path.json"


def arm_tasks(cells: Iterable[Cell], costs: Optional[Callable[[Cell], Optional[dict]]] = None) -> list[dict]:
    """One task per cell. ``costs`` (cell -> {"pool", "group", "raw", "usd", "output"} or None) adds what
    the script reserves against a ceiling before launching the cell's group."""
    out = []
    for c in cells:
        t = {"id": c.id, "prompt": c.prompt, "hole": c.world}
        if c.agent_type:
            t["agentType"] = c.agent_type
        if c.model:
            t["model"] = c.model
        if costs is not None and (cost := costs(c)) is not None:
            t["cost"] = cost
        out.append(t)
    return out


def judge_tasks(packets: Iterable[Packet]) -> list[dict]:
    """One task per packet, with its planned prompt (the packet is inside it: the judge opens no file)."""
    out = []
    for p in packets:
        t = {"id": p.id, "prompt": p.prompt, "judge": True, "hole": p.ref}
        if p.agent_type:
            t["agentType"] = p.agent_type
        if p.model:
            t["model"] = p.model
        out.append(t)
    return out


def _template(skill_dir: Path) -> str:
    src = skill_dir / SCRIPT
    try:
        text = src.read_text(encoding="utf-8")
    except OSError:
        raise BenchError(str(src), "is missing", fix="reinstall the benchmark-skill skill") from None
    if text.count(BOUND_LINE) != 1:
        raise BenchError(str(src), f"must contain the line '{BOUND_LINE}' exactly once",
                         fix="restore the script from the benchmark-skill skill")
    return text


# What each kind of fan-out is, as its approval dialog says it.
WHAT = {
    "arms": "one fresh subagent per case x trial x arm, each in its own world",
    "re-runs": "a fresh subagent and world for each trial being re-run",
    "arms and re-runs": "one fresh subagent per cell not run yet, a fresh world for each re-run",
    "judges": "one blind judge per packet, answering through the schema",
    "panel": "two more blind judges for each trial whose judges split",
    "judges and panel": "one blind judge per packet; two more where the judges split",
}
META_START = "export const meta = {"


def _js(text: str) -> str:
    """A JavaScript single-quoted string literal of ``text`` (one line)."""
    return "'" + " ".join(text.split()).replace("\\", "\\\\").replace("'", "\\'") + "'"


def meta_block(about: tuple, phase: str, n: int, part: tuple[int, int] = (1, 1)) -> str:
    """The ``meta`` of a bound script: ``about`` is (the skills, the kind of fan-out: a key of WHAT), and may add
    what the fan-out is estimated to cost ("about $1.20 estimated"), which the launch dialog then shows."""
    skills, what, *more = about
    of = f", script {part[0]} of {part[1]}" if part[1] > 1 else ""
    of += f", {more[0]}" if more and more[0] else ""
    count = f"{n} agent{'s' if n != 1 else ''}"
    return (f"{META_START}\n  name: 'bench-fanout',\n"
            f"  description: {_js(f'benchmark-skill {skills}: {what}, {count}{of}')},\n"
            f"  whenToUse: 'Only from the benchmark-skill protocol, with the script path benchcore printed.',\n"
            f"  phases: [{{ title: {_js(phase)}, detail: {_js(f'{count} for {skills}: {WHAT.get(what, what)}')} }}],\n"
            f"}}\n")


def _with_meta(template: str, meta: str) -> str:
    start = template.find(META_START)
    end = template.find("\n}\n", start)
    if start < 0 or end < 0:
        return template
    return template[:start] + meta + template[end + 3:]


def bound_script(template: str, phase: str, tasks: list[dict], schema: Optional[dict] = None,
                 ceilings: Optional[dict] = None, about: Optional[tuple[str, str]] = None,
                 part: tuple[int, int] = (1, 1)) -> str:
    """The script text with the tasks bound in, every prompt as short pieces and shared text written once;
    with ``about`` (the skills, the kind of fan-out), a ``meta`` that says what the dialog approves."""
    texts, encoded = bound.encode_tasks(tasks)
    data: dict = {"phase": phase, "texts": texts, "tasks": encoded}
    if schema is not None:
        data["schema"] = schema
    if ceilings:
        data["ceilings"] = ceilings
    if about is not None:
        template = _with_meta(template, meta_block(about, phase, len(tasks), part))
    return template.replace(BOUND_LINE, f"const BOUND = {bound.render(data)}")


def write_bound_script(skill_dir: Path, dest: Path, phase: str, tasks: list[dict],
                       schema: Optional[dict] = None, ceilings: Optional[dict] = None,
                       about: Optional[tuple[str, str]] = None, part: tuple[int, int] = (1, 1)) -> Path:
    """Write ``dest`` (…/bench-fanout.js) with the tasks bound in; returns its path."""
    new = bound_script(_template(skill_dir), phase, tasks, schema, ceilings, about, part)
    if not (dest.is_file() and dest.read_text(encoding="utf-8") == new):
        write_atomic(dest, new)
    return dest


def fitted_chunks(template: str, phase: str, tasks: list[dict], schema: Optional[dict] = None,
                  ceilings: Optional[dict] = None, about: Optional[tuple[str, str]] = None) -> list[list[dict]]:
    """``tasks`` in order, in as few runs as may be: each the longest that has at most MAX_AGENTS tasks and
    whose script the Workflow tool reads and its approval dialog can show in full (one task alone is never
    split)."""
    def figures(start: int, k: int) -> tuple[int, ...]:
        # Measured with the meta the script gets (its part numbers at their widest).
        return bound.measure(bound_script(template, phase, tasks[start:start + k], schema, ceilings, about,
                                          (MAX_AGENTS, MAX_AGENTS)))

    def longest(start: int, guess: int) -> int:
        # The longest prefix from ``start`` whose script fits (one task alone always goes): lo fits (0: none
        # known), hi does not (top + 1: none known). Each try predicts the boundary from the figures it
        # measured, which grow about linearly with the tasks, so a chunk costs two or three encodings where
        # a bisection of MAX_AGENTS costs ten; past a few tries it bisects.
        top = min(len(tasks) - start, MAX_AGENTS)
        lo, hi = 0, top + 1
        cand = min(guess, top)
        for tries in range(64):
            got = figures(start, cand)
            lo, hi = (cand, hi) if bound.within(got) else (lo, cand)
            if hi - lo <= 1:
                break
            if tries < 4:
                ratio = min(limit / m for m, limit in zip(got, bound.limits()) if m)
                cand = min(hi - 1, max(lo + 1, int(cand * ratio)))
            else:
                cand = (lo + hi) // 2
        return max(lo, 1)

    out: list[list[dict]] = []
    start, guess = 0, FIRST_GUESS
    while start < len(tasks):
        k = longest(start, guess)
        out.append(tasks[start:start + k])
        guess = k
        start += k
    return out or [[]]


def write_bound_scripts(skill_dir: Path, kind_dir: Path, phase: str, tasks: list[dict],
                        schema: Optional[dict] = None, ceilings: Optional[dict] = None,
                        about: Optional[tuple[str, str]] = None) -> list[Path]:
    """Bound scripts for ``tasks`` (see fitted_chunks): ``<kind_dir>/bench-fanout.js``, then
    ``<kind_dir>-2/bench-fanout.js`` ... (the file stem stays the workflow's name). Chunk folders left
    from an earlier, larger fan-out are removed, so no stale script lies beside the current ones."""
    chunks = fitted_chunks(_template(skill_dir), phase, tasks, schema, ceilings, about)
    first_ceilings = ceilings
    out = []
    for n, chunk in enumerate(chunks, 1):
        folder = kind_dir if n == 1 else kind_dir.with_name(f"{kind_dir.name}-{n}")
        out.append(write_bound_script(skill_dir, folder / "bench-fanout.js", phase, chunk, schema, ceilings,
                                      about, (n, len(chunks))))
        if ceilings:  # the next script starts from what this one reserved, and stays stopped once stopped
            _, after = launches(chunk, ceilings)
            ceilings = {pool: {**ce, **after[pool]} for pool, ce in ceilings.items()}
    n = len(chunks) + 1
    while (stale := kind_dir.with_name(f"{kind_dir.name}-{n}")).is_dir():
        shutil.rmtree(stale)
        n += 1
    write_agent_tasks(agent_tasks_file(kind_dir), tasks, first_ceilings)
    return out


def agent_tasks_file(kind_dir: Path) -> Path:
    """The fan-out's Agent-tool file: one part (AGENT_PART) when plan decided the run is split."""
    split = parts.split(read_json_object(kind_dir.parent / AGENT_PATH))
    return kind_dir / (AGENT_PART if split else AGENT_TASKS)


def agent_call(task: dict) -> dict:
    """The Agent tool input for one task: the planned prompt, the agent type (general-purpose when none is
    planned) and the model as the Agent tool takes it (an alias; absent when the task has none)."""
    call = {"description": "benchmark cell", "subagent_type": task.get("agentType") or "general-purpose"}
    alias = agent_tool_model(task.get("model"))
    if alias:
        call["model"] = alias
    call["prompt"] = task["prompt"]
    return call


def write_agent_tasks(dest: Path, tasks: list[dict], ceilings: Optional[dict] = None) -> Path:
    """``dest``: one Agent call a line for each task the script would launch under ``ceilings``, as many as
    one conversation takes (parts.first_part); the rest are launched after the next collect."""
    flags, _ = launches(tasks, ceilings)
    kept = [t for t, ok in zip(tasks, flags) if ok]
    lines = parts.lines_of(agent_call(t) for t in kept)
    decided = read_json_object(dest.parent.parent / AGENT_PATH) or {}
    budget = decided.get("budget_bytes")
    budget = budget if isinstance(budget, int) and budget > 0 else parts.BUDGET_BYTES
    lines = lines[:parts.first_part(lines, kept, budget)]
    text = "".join(line + "\n" for line in lines)
    if not (dest.is_file() and dest.read_text(encoding="utf-8") == text):
        write_atomic(dest, text)
    (dest.parent / (AGENT_TASKS if dest.name == AGENT_PART else AGENT_PART)).unlink(missing_ok=True)
    return dest


def agent_tasks_phrase(scripts: list[Path]) -> str:
    """The Agent-tool alternative to ``workflow_calls(scripts)``, in words for a ``next:`` line: the file's name,
    beside the (first) script the same line names in full, so its long folder is not written twice."""
    name = agent_tasks_file(scripts[0].parent).name
    return f"no Workflow tool: {name} beside {'it' if len(scripts) == 1 else 'the first'}"


def write_agent_path(kind_dir: Path, runs: list, arm_tasks: list[dict], ceilings: Optional[dict] = None,
                     context_window: Optional[int] = None) -> str:
    """Decide, before launch, whether the Agent-tool path fits one conversation: the estimated bytes of
    every arm and judge launch (``runs``: (run dir, plan) pairs) against the budget of the orchestrating
    model's ``context_window`` (parts.budget_for; None: the conservative one). Kept beside the fan-outs
    for collect's later parts; returns plan's note."""
    flags, _ = launches(arm_tasks, ceilings)
    kept = [t for t, ok in zip(arm_tasks, flags) if ok]
    packets = sum(len({(c.case, c.trial) for c in p.cells if not c.skip}) * (len({c.arm for c in p.cells}) - 1)
                  for _, p in runs)
    total = parts.run_bytes(parts.lines_of(agent_call(t) for t in kept), kept, packets)
    budget = parts.budget_for(context_window)
    write_atomic(kind_dir.parent / AGENT_PATH, parts.sidecar(total, budget))
    return parts.fit_note(total, budget) if parts.parts(total, budget) > 1 else ""


BUDGET_REACHED = "budget reached"


def launches(tasks: list[dict], ceilings: Optional[dict]) -> tuple[list[bool], dict]:
    """What the workflow script launches under ``ceilings`` (its own counting; the same rule, in Python):
    (per task, whether it is launched; pool -> {"spent_raw", "spent_usd", "stopped"} after).

    Tasks are taken in order; the first task of a group (``cost.group`` within ``cost.pool``) reserves the
    group's summed estimate against its pool's ceiling; a group that would pass the ceiling stops that pool:
    it and every later group of the pool are not launched. A pool with ``stopped`` set launches nothing."""
    ceilings = ceilings or {}
    group_cost: dict[tuple, list[float]] = {}
    for t in tasks:
        c = t.get("cost")
        if c:
            g = group_cost.setdefault((c["pool"], c["group"]), [0.0, 0.0])
            g[0] += c.get("raw") or 0.0
            g[1] += c.get("usd") or 0.0
    state = {pool: {"spent_raw": float(ce.get("spent_raw", 0)), "spent_usd": float(ce.get("spent_usd", 0)),
                    "stopped": bool(ce.get("stopped"))} for pool, ce in ceilings.items()}
    decided: dict[tuple, bool] = {}
    launched = []
    for t in tasks:
        c = t.get("cost")
        ok = True
        if c and c["pool"] in ceilings:
            key = (c["pool"], c["group"])
            if key not in decided:
                st, ce = state[c["pool"]], ceilings[c["pool"]]
                raw, usd = st["spent_raw"] + group_cost[key][0], st["spent_usd"] + group_cost[key][1]
                if st["stopped"] or reached(Budget(raw_tokens=ce.get("raw_tokens"), usd=ce.get("usd")), raw, usd):
                    st["stopped"] = True
                    decided[key] = False
                else:
                    st["spent_raw"], st["spent_usd"] = raw, usd
                    decided[key] = True
            ok = decided[key]
        launched.append(ok)
    return launched, state


def workflow_calls(scripts: list[Path]) -> str:
    """The Workflow call(s) that launch ``scripts``, in words for a ``next:`` line."""
    calls = [f"Workflow {workflow_call(s)}" for s in scripts]
    if len(calls) == 1:
        return calls[0]
    return (f"{len(calls)} Workflow calls, one after another (a workflow runs at most {MAX_AGENTS} agents, and "
            "Claude Code takes a script only up to a size its dialog can show): "
            + ", then ".join(calls))


def batch_dir(run_dirs: list[Path], kind: str) -> Path:
    """Where the bound script of one fan-out lives: the run's workflows/<kind>/, or a batch folder
    beside the runs when several runs share one fan-out (``plan --all``)."""
    if len(run_dirs) == 1:
        return run_dirs[0] / "workflows" / kind
    key = hashlib.sha1("\n".join(sorted(str(d) for d in run_dirs)).encode()).hexdigest()[:8]
    return run_dirs[0].parent / f"batch-{key}" / kind


def workflow_call(script: Path) -> str:
    """The exact tool input the agent writes to launch a bound script."""
    return json.dumps({"scriptPath": str(script)})
