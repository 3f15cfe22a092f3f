"""What the rig measures: tokens per arm (the server's oracle), what the orchestrator carried."""

from __future__ import annotations

import json
from pathlib import Path

KINDS = ("input_tokens", "output_tokens", "cache_read_input_tokens")


def oracle_per_arm(billed: list, plan: dict) -> dict:
    """Summed usage per arm over the responses billed to the cells the run kept (their final worlds)."""
    kept = {f"{c['id']}@{c['world']}": c["arm"] for c in plan["cells"]}
    out: dict = {}
    for b in billed:
        arm = kept.get(b.who)
        if arm is None:
            continue
        u = b.usage
        a = out.setdefault(arm, {"turns": 0, "input": 0, "output": 0, "cache_write_5m": 0, "cache_write_1h": 0,
                                 "cache_read": 0})
        a["turns"] += 1
        a["input"] += u["input_tokens"]
        a["output"] += u["output_tokens"]
        a["cache_write_5m"] += u["cache_creation"]["ephemeral_5m_input_tokens"]
        a["cache_write_1h"] += u["cache_creation"]["ephemeral_1h_input_tokens"]
        a["cache_read"] += u["cache_read_input_tokens"]
    return out


def _text(block) -> str:
    if isinstance(block, str):
        return block
    t = block.get("type")
    if t == "text":
        return block.get("text", "")
    if t == "tool_use":
        return json.dumps(block.get("input"), ensure_ascii=False)
    if t == "tool_result":
        c = block.get("content")
        return c if isinstance(c, str) else "".join(_text(x) for x in c or [])
    return ""


def orchestration_bytes(request_log: Path) -> dict:
    """What the orchestrating session carried by its last request: the skill body, every tool input it
    wrote, every tool result and notification it read (Claude Code's own system reminders excluded)."""
    last = None
    for line in request_log.read_text().splitlines():
        body = json.loads(line)["body"]
        msgs = body.get("messages") or []
        first = "".join(_text(b) for b in (msgs[0]["content"] if msgs and isinstance(msgs[0]["content"], list) else []))
        if "<command-name>/benchmark-skill" in first or any(
                "<command-name>/benchmark-skill" in "".join(_text(b) for b in (m["content"] if isinstance(m["content"], list) else [m["content"]]))
                for m in msgs[:3] if m["role"] == "user"):
            if "Your working directory for this task is" not in first and "You are a blind judge" not in first:
                last = msgs
    parts = {"skill_body": 0, "tool_inputs": 0, "tool_results": 0, "notifications": 0, "text": 0}
    for m in last or []:
        if m["role"] not in ("user", "assistant"):
            continue  # Claude Code's environment block, not the harness's
        blocks = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        for b in blocks:
            n = len(_text(b).encode())
            if b.get("type") == "tool_use":
                parts["tool_inputs"] += n
            elif b.get("type") == "tool_result":
                parts["tool_results"] += n
            elif b.get("type") == "text":
                txt = b.get("text", "")
                if "<task-notification>" in txt or "[SYSTEM NOTIFICATION" in txt:
                    parts["notifications"] += n
                elif txt.lstrip().startswith("<system-reminder>"):
                    continue
                elif "Base directory for this skill:" in txt or "<command-name>" in txt:
                    parts["skill_body"] += n
                else:
                    parts["text"] += n
    parts["total"] = sum(parts.values())
    return parts


def orchestrator_sizes(request_log: Path) -> list[tuple[int, int, int]]:
    """Per request of the orchestrating session, in order: (its body's bytes, the Workflow and Agent calls
    it carries, its messages): how the session's context grows. /clear starts the messages again."""
    out = []
    for line in request_log.read_text().splitlines():
        entry = json.loads(line)
        if "count_tokens" in entry.get("path", ""):
            continue
        body = entry["body"]
        msgs = body.get("messages") or []
        opening = "".join(_text(b) for m in msgs[:3] if m["role"] == "user"
                          for b in (m["content"] if isinstance(m["content"], list) else [m["content"]]))
        if "<command-name>/benchmark-skill" not in opening or "Your working directory for this task is" in opening \
                or "You are a blind judge" in opening:
            continue
        calls = sum(1 for m in msgs if m["role"] == "assistant" and isinstance(m["content"], list)
                    for b in m["content"] if b.get("type") == "tool_use" and b.get("name") in ("Workflow", "Agent"))
        out.append((len(json.dumps(body).encode()), calls, len(msgs)))
    return out


def conversation_growth(sizes: list[tuple[int, int, int]]) -> list[int]:
    """Per conversation of the orchestrating session (a new one starts where its messages start again, after
    /clear): how many bytes its requests grew from its first to its largest."""
    out: list[list[int]] = []
    prev = None
    for n_bytes, _, n_msgs in sizes:
        if prev is None or n_msgs < prev:
            out.append([])
        out[-1].append(n_bytes)
        prev = n_msgs
    return [max(c) - c[0] for c in out]
