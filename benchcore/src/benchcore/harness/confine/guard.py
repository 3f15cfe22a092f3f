"""The guard: a Claude Code PreToolUse hook that confines each arm to its world and skill copy (I/O).

Claude Code runs the hook for every tool call, the main session's and every
subagent's (measured on 2.1.328, in every permission mode), and passes JSON on
stdin: ``agent_id`` and ``agent_type`` for a subagent, ``tool_name``,
``tool_input`` and the session's ``transcript_path``. The guard:

1. gives no decision (prints nothing) for the main session, and for any
   subagent when no run is active: the user's own rules decide, unchanged;
2. finds the active runs from the registry ``plan`` writes into each run's temp
   root (``<temp base>/benchcore-*/guard.json``, gone with ``clean``);
3. maps the subagent to a planned cell by its conversation's opening (its
   transcript, ``<session>/subagents/**/agent-<agent_id>.jsonl``), which holds
   the cell's planned prompt; a subagent whose opening is a planned arm prompt
   is an arm whatever its type (``plan --default-agent-type`` runs arms as the
   default type); a subagent of an arm type (``bench-arm``,
   ``bench-baseline``, with or without a ``<plugin>:`` prefix), or whose
   opening has an arm prompt's shape, that maps to no cell is refused
   everything, as it cannot be confined;
4. for an arm of a sandboxed run (plan.json ``sandbox``), answers a Bash call
   with "allow" and ``updatedInput``: the command wrapped by
   :func:`sandbox.wrap`, so it runs in the OS sandbox, with no dialog (Claude
   Code runs the replacement and records the hook's answer as a
   ``hook_success`` attachment beside the call, which collect checks), and
   ``run_in_background`` false, so nothing of the arm runs after its call;
   file tools are decided on resolved paths (:mod:`rules`) and, allowed, get
   that resolved path in ``updatedInput``, once no command of the arm is
   running (:func:`wait_idle`: Claude Code moves a Bash call that outlives its
   timeout to the background), so nothing can swap a link between the check
   and the use; Agent, Skill, Workflow and the tools that run work beside the
   arm or outside its sandbox are refused, and so is every tool the guard
   does not know (WebFetch, WebSearch, ``mcp__*``, any later tool) unless
   benchmark.yaml ``tools`` names it. "allow" decides before the permission
   mode's own check, auto mode's included: for arms the sandbox replaces it
   (a rewritten input without a decision gets no verdict in auto mode, and is
   refused: measured);
5. in an unsandboxed run (``plan --no-sandbox``) and in runs planned before the
   sandbox, decides Bash with :mod:`rules`' parse-and-refuse allow-list
   instead: a filter, not a confinement (the arms can reach what the user can);
6. fails closed: any error gives "deny" for every subagent's call (the guard
   cannot tell it from an arm), and so does an unreadable or malformed
   registry entry or its own deadline for a call that may be an arm's (an arm
   type, or any subagent while a run's arms run as the default type); nothing
   for the main session. Every refusal is appended to the run's
   ``guard.jsonl``.
"""

from __future__ import annotations

import json
import os
import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from .registry import plans as _plans
from .rules import ALLOW, DENY, FILE_TOOLS, NO_TOOLS, Confinement, Decision, Rules, inside
from .sandbox import wrap
from ..store.sandboxentry import Sandbox, load_sandbox

LOG = "guard.jsonl"
ARM_TYPES = ("bench-arm", "bench-baseline")
# Every arm prompt opens its task with this (templates.arm_prompt): an opening that holds it is an arm's.
ARM_MARK = "Your working directory for this task is "
# Claude Code writes a Workflow agent's transcript a moment after its first tool call may reach the hook
# (measured: up to 0.04 s idle, up to 9 s with both cores busy). The guard waits for it as long as it must,
# up to this deadline, which stays well inside the hook's own timeout (settings.HOOK_TIMEOUT, and the 30 s
# of hook entries written before it): past it, an
# arm's call is refused rather than left to Claude Code's timeout, which would let it run unguarded.
WAIT_SECONDS = 20.0
# How long a file tool of an arm waits for the arm's own commands to end before it is refused (a Bash call
# Claude Code moved to the background at its timeout goes on running; a read-only one may run beside it).
BUSY_SECONDS = 8.0
# Tools that touch nothing outside the conversation: no decision, for arms too. GetTask (2.1.332; BashOutput and
# TaskOutput before) reads a background command's output: an arm's Bash call that outlived its timeout is one,
# and the arm waits for it with this. The task checklist's tools change nothing. (TaskStop, 2.1.332's way to end
# a background task, is refused as unknown: it takes any task id of the session, another arm's or a workflow's.)
HARMLESS = {"TodoWrite", "TodoRead", "BashOutput", "KillShell", "KillBash", "ExitPlanMode", "ToolSearch",
            "GetTask", "TaskOutput", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet"}
GIT_RISKY = re.compile(r"^\s*(fsmonitor|hookspath|pager|sshcommand|editor|askpass|gitproxy|external|textconv|"
                       r"helper|command|clean|smudge|process)\s*=|^\s*\[\s*(alias|include|includeif|filter)\b",
                       re.I | re.M)


# ---------------------------------------------------------------------- which arm
def _normal(text: str) -> str:
    """Lines stripped of their indentation (a Workflow agent's task is indented by two spaces)."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]


def opening(transcript_path: str, agent_id: str, wait: float = WAIT_SECONDS) -> Optional[str]:
    """The user records before a subagent's first answer, from its transcript (None when not found within
    ``wait`` seconds: the guard polls as long as the subagent has produced nothing yet)."""
    if not transcript_path or not re.fullmatch(r"[A-Za-z0-9_-]{1,80}", agent_id or ""):
        return None
    session = Path(transcript_path[:-len(".jsonl")] if transcript_path.endswith(".jsonl") else transcript_path)
    end = time.monotonic() + wait
    while True:
        hits = list((session / "subagents").glob(f"**/agent-{agent_id}.jsonl"))
        text = _read_opening(hits[0]) if hits else None
        if text or time.monotonic() >= end:
            return text
        time.sleep(0.02)


def _read_opening(path: Path) -> Optional[str]:
    parts = []
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                if n > 40:
                    break
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("type") == "assistant":
                    break
                if rec.get("type") == "user":
                    parts += _texts((rec.get("message") or {}).get("content"))
    except OSError:
        return None
    return "\n".join(parts) or None


def find_cell(text: str, plans: list[dict]) -> Optional[tuple[dict, dict]]:
    """(plan, cell) whose planned prompt the opening holds; failing that, whose world it names (not a
    judge: a judge's prompt carries its packet id, and may quote an arm's output that names a world)."""
    norm = _normal(text)
    for plan in plans:
        for cell in plan.get("cells") or []:
            prompt = _normal(cell.get("prompt") or "")
            if prompt and prompt in norm:
                return plan, cell
    refs = [p.get("ref") or p.get("id") for plan in plans for p in plan.get("packets") or []]
    if any(r and r in text for r in refs) or "Packet id:" in text:
        return None
    best = None
    for plan in plans:
        for cell in plan.get("cells") or []:
            w = cell.get("world") or ""
            if w and re.search(re.escape(w) + r"(?![\w.-])", text) and (best is None or len(w) > len(best[1]["world"])):
                best = (plan, cell)
    return best


def is_arm_type(agent_type: str) -> bool:
    return (agent_type or "").rsplit(":", 1)[-1] in ARM_TYPES


# ---------------------------------------------------------------------- the world's state
def outside_links(world: str, allowed: tuple, limit: int = 20000) -> tuple[str, ...]:
    out, seen = [], 0
    for root, dirs, files in os.walk(world):
        for name in dirs + files:
            seen += 1
            p = os.path.join(root, name)
            if os.path.islink(p):
                real = os.path.realpath(p)
                if not any(inside(real, a) for a in allowed if a):
                    out.append(p)
        if seen > limit:
            out.append(f"{world} (too many files to check)")
            break
    return tuple(out)


def git_unsafe(world: str) -> str:
    git = Path(world) / ".git"
    try:
        config = (git / "config").read_text(encoding="utf-8", errors="replace") if (git / "config").is_file() else ""
    except OSError:
        return "its .git/config cannot be read"
    m = GIT_RISKY.search(config)
    if m:
        return f".git/config sets {m.group(0).strip()}"
    hooks = git / "hooks"
    if hooks.is_dir():
        live = [h.name for h in hooks.iterdir() if not h.name.endswith(".sample")]
        if live:
            return f".git/hooks holds {live[0]}"
    return ""


def decide(tool: str, data: dict, world: str, copy: Optional[str], arm_tools=()) -> Optional[Decision]:
    """The parse-and-refuse decision for one arm's tool call (None: no decision, the user's rules apply):
    an unsandboxed run's, and a sandboxed run's for every tool but Bash."""
    if tool in NO_TOOLS:
        return Decision(DENY, NO_TOOLS[tool])
    if tool in HARMLESS:
        return None
    if tool not in FILE_TOOLS and tool != "Bash":
        if tool in arm_tools:
            return None
        return Decision(DENY, f"{tool} is not a tool the benchmark lets arms use (benchmark.yaml 'tools' can "
                              "allow it)")
    command = data.get("command") if tool == "Bash" else ""
    links: tuple = ()
    if tool in ("Glob", "Grep") or (tool == "Bash" and isinstance(command, str) and re.search(
            r"(^|\s)(-\w*[RL]|--follow|--dereference|-follow)", command)):
        links = outside_links(world, (os.path.realpath(world), os.path.realpath(copy) if copy else None))
    if links and tool in ("Glob", "Grep"):
        # A search that follows links would read or list outside; the arm's own Bash may have made them.
        return Decision(DENY, f"{tool} would search the world's links that point outside ({links[0]}); "
                              "remove them or name a folder without them")
    unsafe = git_unsafe(world) if tool == "Bash" and isinstance(command, str) and "git" in command else ""
    rules = Rules(Confinement(world=world, copy=copy, outside_links=links, git_unsafe=unsafe))
    if tool == "Bash":
        if not isinstance(command, str) or not command.strip():
            return Decision(DENY, "an empty command")
        return rules.bash(command)
    return rules.file_tool(tool, data)


def sandbox_of(plan: dict) -> Optional[Sandbox]:
    """The plan's sandbox (None for an unsandboxed run, or one planned before the sandbox); a malformed entry
    raises, so the guard refuses rather than guess."""
    raw = plan.get("sandbox")
    return None if raw is None else load_sandbox(raw, source=f"{plan.get('_run_dir')}/plan.json sandbox")


def decide_arm(tool: str, data: dict, plan: dict, cell: dict) -> tuple[Optional[Decision], Optional[dict]]:
    """(decision, updated input) for one arm's call: in a sandboxed run a Bash call is allowed with its command
    replaced by the sandboxed one; everything else as :func:`decide`."""
    box = sandbox_of(plan)
    tools = tuple(t for t in plan.get("arm_tools") or () if isinstance(t, str))
    if tool == "Bash" and box is not None:
        command = data.get("command")
        if not isinstance(command, str) or not command.strip():
            return Decision(DENY, "an empty command"), None
        return (Decision(ALLOW, "runs in the arm's sandbox"),
                foreground(dict(data, command=wrap(box, command, cell["world"], cell.get("skill_dir")))))
    if tool in FILE_TOOLS and box is not None and box.kind == "bwrap":
        # First wait for the arm's own commands to end: nothing of the arm may change its world between the
        # path check below and Claude Code's use of the path.
        busy = wait_idle(cell["world"])
        if busy:
            return Decision(DENY, f"a command of this arm is still running (pid {busy[0]}: Claude Code moved it to "
                                  f"the background at its timeout), and {tool} must not run beside it; wait for it "
                                  "to end, or stop it, then call the tool again"), None
    decision = decide(tool, data, cell["world"], cell.get("skill_dir"), tools)
    if decision is None or decision.kind == DENY:
        return decision, None
    if tool == "Bash":
        return decision, (foreground(dict(data)) if data.get("run_in_background") else None)
    if tool in FILE_TOOLS:
        return decision, Rules(Confinement(world=cell["world"], copy=cell.get("skill_dir"))).resolved(tool, data)
    return decision, None


def running(world: str, proc: str = "/proc") -> list[int]:
    """The arm's sandboxed commands still running (Linux): the bwrap processes whose command line binds this
    world, which :func:`sandbox.wrap` gives every Bash call of the arm. While one runs, all it started runs too
    (its PID namespace ends with it); when it has ended, nothing of the arm runs."""
    out = []
    try:
        pids = [p for p in os.listdir(proc) if p.isdigit()]
    except OSError:
        return out
    for pid in pids:
        try:
            with open(os.path.join(proc, pid, "cmdline"), "rb") as fh:
                if binds(fh.read(), world):
                    out.append(int(pid))
        except OSError:
            continue
    return out


def binds(cmdline: bytes, world: str) -> bool:
    """Whether a process's command line (``/proc/<pid>/cmdline``: NUL-separated) binds ``world`` read-write, as
    :func:`sandbox.wrap` does for each of the arm's commands."""
    return b"\0--bind\0" + world.encode() + b"\0" + world.encode() + b"\0" in cmdline


def wait_idle(world: str, wait: Optional[float] = None) -> list[int]:
    """[] once no command of the arm runs (waiting up to ``wait`` seconds, :data:`BUSY_SECONDS` by default: a
    Bash call of the same message may still be ending), else the pids still running."""
    end = time.monotonic() + (BUSY_SECONDS if wait is None else wait)
    while True:
        busy = running(world)
        if not busy or time.monotonic() >= end:
            return busy
        time.sleep(0.05)


def foreground(data: dict) -> dict:
    """An arm's Bash input made to run in the foreground: ``run_in_background`` false, so the call (and, in
    the sandbox, every process it started) has ended before the arm's next tool call runs, and nothing of the
    arm runs beside its file tools (whose path check it could otherwise race)."""
    if "run_in_background" in data:
        data["run_in_background"] = False
    return data


# ---------------------------------------------------------------------- the hook
def record(run_dir: str, entry: dict) -> None:
    """Append one refusal to the run's guard.jsonl: one write on an O_APPEND descriptor, so concurrent arms'
    lines never interleave."""
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(os.path.join(run_dir, LOG), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def _short(value, limit: int = 2000):
    text = json.dumps(value, ensure_ascii=False)
    return value if len(text) <= limit else text[:limit] + "..."


def hook(payload: str, base: Path, wait: float = WAIT_SECONDS) -> str:
    """What the hook prints for one tool call ("" for no decision). Fails closed for an arm: whatever goes
    wrong, a call whose agent type is an arm's is refused."""
    try:
        data = json.loads(payload)
    except ValueError:
        return ""
    if not isinstance(data, dict) or not data.get("agent_id"):
        return ""
    try:
        return _hook(data, base, wait)
    except Exception as exc:  # noqa: BLE001: fail closed: the guard cannot tell this subagent from an arm
        return answer(Decision(DENY, f"the benchmark guard failed ({type(exc).__name__}: {exc}), so it cannot "
                                      "tell this agent from a benchmark arm, which it must confine"))


def answer(decision: Decision, updated: Optional[dict] = None) -> str:
    out = {"hookEventName": "PreToolUse", "permissionDecision": decision.kind,
           "permissionDecisionReason": f"benchmark guard: {decision.reason}"}
    if updated is not None:
        out["updatedInput"] = updated
    return json.dumps({"hookSpecificOutput": out})


def _hook(data: dict, base: Path, wait: float) -> str:
    broken: list[str] = []
    plans = _plans(base, broken)
    agent_id, agent_type = str(data.get("agent_id")), str(data.get("agent_type") or "")
    tool, tool_input = str(data.get("tool_name") or ""), data.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    read = opening(str(data.get("transcript_path") or ""), agent_id, wait) if plans or broken else None
    text = read or ""
    # An arm is a subagent of an arm type, or one whose opening is an arm's prompt (whatever its type: plan
    # --default-agent-type runs arms as the default type); one whose opening cannot be read is taken for an
    # arm while a run has arms of the default type, or a registry entry cannot be read (fail closed).
    arm = is_arm_type(agent_type) or (ARM_MARK in text and "Packet id:" not in text) or (read is None and (
        bool(broken) or any(not c.get("agent_type") for p in plans for c in p.get("cells") or [])))
    if not plans and not (broken and arm):
        return ""
    found = find_cell(text, plans) if text else None
    updated = None
    if broken and arm:
        # Refused whatever it is; named in the run it belongs to when the readable registry entries find it.
        decision = Decision(DENY, f"the benchmark's run registry cannot be read ({broken[0]}), so this arm "
                                  "cannot be confined; run benchcore clean, or remove that file")
        if found is None:
            return answer(decision)
        run_dir, cell_id, world = found[0]["_run_dir"], found[1].get("id"), found[1].get("world")
    elif found is None:
        if not arm:
            return ""
        why = ("this arm's planned task was not found, so the benchmark cannot confine it" if read is not None
               or is_arm_type(agent_type) else
               f"this agent's task could not be read within {wait:g} s, and a run's arms run as the default agent "
               "type, so the benchmark cannot tell it from an arm it must confine")
        decision, run_dir, cell_id, world = Decision(DENY, why), plans[-1]["_run_dir"], None, None
    else:
        plan, cell = found
        run_dir, cell_id, world = plan["_run_dir"], cell.get("id"), cell.get("world")
        try:
            decision, updated = decide_arm(tool, tool_input, plan, cell)
        except Exception as exc:  # fail closed for an arm
            decision = Decision(DENY, f"the benchmark guard failed ({type(exc).__name__}: {exc})")
        if decision is None:
            return ""
    if decision.kind != ALLOW:
        try:
            record(run_dir, {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "cell": cell_id,
                             "world": world,
                             "agent_id": agent_id, "agent_type": agent_type, "tool": tool,
                             "input": _short(tool_input), "decision": decision.kind, "reason": decision.reason})
        except OSError:
            pass
    return answer(decision, updated)


def read_log(run_dir: Path) -> list[dict]:
    """The run's guard.jsonl records (a torn or foreign line is skipped)."""
    out = []
    try:
        lines = (Path(run_dir) / LOG).read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def attempted(record: dict, limit: int = 200) -> str:
    """A guard.jsonl record's tool call in words: the tool and its command or path."""
    what = record.get("input")
    if isinstance(what, dict):
        what = next((what[k] for k in ("command", "file_path", "notebook_path", "path", "pattern", "skill", "prompt")
                     if isinstance(what.get(k), str)), json.dumps(what))
    what = str(what)
    return f"{record.get('tool')} {what if len(what) <= limit else what[:limit] + '...'}"


def refusals(run_dir: Path, case_id: str, trial: int) -> tuple[str, ...]:
    """One line per guard refusal of a trial's arms, every attempt (for the report's trial details)."""
    prefix = f"{case_id}/t{trial}/"
    return tuple(f"{r['cell'][len(prefix):]}'s {attempted(r)} ({r.get('decision')}: {r.get('reason')})"
                 for r in read_log(run_dir) if isinstance(r.get("cell"), str) and r["cell"].startswith(prefix))
