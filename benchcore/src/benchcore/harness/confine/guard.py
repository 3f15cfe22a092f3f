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
   the cell's planned prompt; a subagent of an arm type (``bench-arm``,
   ``bench-baseline``, with or without a ``<plugin>:`` prefix) that maps to no
   cell is refused everything, as it cannot be confined;
4. for an arm, decides with :mod:`confine_rules`: "allow" inside its world and
   copy (so default mode asks nothing), "deny" with the reason the model sees,
   or "ask"; every refusal is appended to the run's ``guard.jsonl``.
"""

from __future__ import annotations

import json
import os
import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from .rules import ALLOW, DENY, FILE_TOOLS, NO_TOOLS, Confinement, Decision, Rules, inside

REGISTRY = "guard.json"
LOG = "guard.jsonl"
ARM_TYPES = ("bench-arm", "bench-baseline")
# Claude Code writes a Workflow agent's transcript a moment after its first tool call may reach the hook
# (measured: up to 0.04 s); the guard waits this long for it.
WAIT_SECONDS = 3.0
GIT_RISKY = re.compile(r"^\s*(fsmonitor|hookspath|pager|sshcommand|editor|askpass|gitproxy|external|textconv|"
                       r"helper|command|clean|smudge|process)\s*=|^\s*\[\s*(alias|include|includeif|filter)\b",
                       re.I | re.M)


# ---------------------------------------------------------------------- registry
def register(temp_root: Path, run_dir: Path) -> None:
    """Mark a run active for the guard (``plan``); ``clean`` removes the temp root and with it the mark."""
    (Path(temp_root) / REGISTRY).write_text(json.dumps({"run_dir": str(run_dir)}) + "\n", encoding="utf-8")


def register_runs(run_dirs) -> None:
    """``register`` every planned run directory (from its plan.json's temp_root)."""
    for run_dir in run_dirs:
        plan = json.loads((Path(run_dir) / "plan.json").read_text(encoding="utf-8"))
        if plan.get("temp_root"):
            register(Path(plan["temp_root"]), Path(run_dir))


def benchmark_skill_dir(repo_root: Optional[Path]) -> Optional[str]:
    """The skill folder whose scripts/guard the hook runs: the wrapper's ($BENCHMARK_SKILL_DIR), else the one a
    ``benchcore`` typed by hand finds (fanout.prompts.find_skill_dir), else None."""
    from ...errors import BenchError
    from ..fanout.prompts import find_skill_dir

    if os.environ.get("BENCHMARK_SKILL_DIR"):
        return os.environ["BENCHMARK_SKILL_DIR"]
    try:
        return str(find_skill_dir(repo_root))
    except BenchError:
        return None


def release(repo_root: Path, base: Path) -> str:
    """After ``clean``: when no run under ``base`` is active any more, take the guard hook plan added out of
    ``.claude/settings.local.json``; the line to print ("" when nothing was removed)."""
    from ..claude.settings import LOCAL, guard_command, remove_guard

    if active_runs(base) or not remove_guard(repo_root, guard_command(benchmark_skill_dir(repo_root), base)):
        return ""
    return f"note: no run is active, so the benchmark's guard hook was taken out of {LOCAL}"


def active_runs(base: Path) -> list[Path]:
    out = []
    for f in sorted(Path(base).glob(f"benchcore-*/{REGISTRY}")):
        try:
            out.append(Path(json.loads(f.read_text(encoding="utf-8"))["run_dir"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return out


def _plans(base: Path) -> list[dict]:
    plans = []
    for run_dir in active_runs(base):
        try:
            plan = json.loads((run_dir / "plan.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(plan, dict):
            plan["_run_dir"] = str(run_dir)
            plans.append(plan)
    return plans


# ---------------------------------------------------------------------- which arm
def _normal(text: str) -> str:
    """Lines stripped of their indentation (a Workflow agent's task is indented by two spaces)."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]


def opening(transcript_path: str, agent_id: str, wait: float = WAIT_SECONDS) -> Optional[str]:
    """The user records before a subagent's first answer, from its transcript (None when not found)."""
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


def decide(tool: str, data: dict, world: str, copy: Optional[str]) -> Optional[Decision]:
    """The decision for one arm's tool call (None: no decision, the user's rules apply)."""
    if tool in NO_TOOLS:
        return Decision(DENY, NO_TOOLS[tool])
    if tool not in FILE_TOOLS and tool != "Bash":
        return None
    command = data.get("command") if tool == "Bash" else ""
    links: tuple = ()
    if tool == "Bash" and isinstance(command, str) and re.search(r"(^|\s)(-\w*[RL]|--follow|--dereference|-follow)",
                                                                 command):
        links = outside_links(world, (os.path.realpath(world), os.path.realpath(copy) if copy else None))
    unsafe = git_unsafe(world) if tool == "Bash" and isinstance(command, str) and "git" in command else ""
    rules = Rules(Confinement(world=world, copy=copy, outside_links=links, git_unsafe=unsafe))
    if tool == "Bash":
        if not isinstance(command, str) or not command.strip():
            return Decision(DENY, "an empty command")
        return rules.bash(command)
    return rules.file_tool(tool, data)


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
    """What the hook prints for one tool call ("" for no decision)."""
    try:
        data = json.loads(payload)
    except ValueError:
        return ""
    if not isinstance(data, dict) or not data.get("agent_id"):
        return ""
    plans = _plans(base)
    if not plans:
        return ""
    agent_id, agent_type = str(data.get("agent_id")), str(data.get("agent_type") or "")
    tool, tool_input = str(data.get("tool_name") or ""), data.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    text = opening(str(data.get("transcript_path") or ""), agent_id, wait) or ""
    found = find_cell(text, plans) if text else None
    if found is None:
        if not is_arm_type(agent_type):
            return ""
        decision, run_dir, cell_id, world = Decision(DENY, "this arm's planned task was not found, so the "
                                                           "benchmark cannot confine it"), plans[-1]["_run_dir"], None, None
    else:
        plan, cell = found
        run_dir, cell_id, world = plan["_run_dir"], cell.get("id"), cell.get("world")
        try:
            decision = decide(tool, tool_input, cell["world"], cell.get("skill_dir"))
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
    return json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": decision.kind,
        "permissionDecisionReason": f"benchmark guard: {decision.reason}"}})


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
