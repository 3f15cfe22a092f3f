"""Whether the Agent-tool path fits one conversation, and its parts when it does not (pure: no I/O).

Without the Workflow tool every launch stays in the orchestrating
conversation: the Agent call the agent writes (the planned prompt), Claude
Code's "launched" result, and, when the subagent ends, a task notification
(a frame of about 1.2 KB) holding its final answer; and before that, the
agent read the call's line from ``agent-tasks.jsonl``. Measured on Claude Code
2.1.328: the orchestrator's requests grew by about that much per arm and
judge, to 274 KB over 50 cells and 10 judges. A run whose launches would
carry more than :data:`BUDGET_TOKENS` into one conversation is run in parts:
each ``agent-tasks.jsonl`` holds at most one part, and a conversation
launches one part, then the user starts a fresh one (``/clear``) and types
the command again, which continues the run.

The context is the orchestrating model's as the session records it (``contextWindow``: 1,000,000 for
claude-opus-5-5 in Claude Code 2.1.328), of which the launches may fill the same share as of the
conservative 200,000 tokens assumed when the window is not known (:func:`budget_for`). A terminal session of
Claude Code 2.1.328 records none; the served model's window in Claude Code's catalog is used then
(``harness/claude/session.py``).
"""

from __future__ import annotations

import json
import math
from typing import Iterable, Optional

# The share of a 200,000-token context the launches may fill: the rest is left for Claude Code's system
# prompt and tools, the skill's body, the benchmark's own command output and the agent's turns.
CONTEXT_TOKENS = 200_000
BUDGET_TOKENS = 100_000
# Bytes of request body per token, on the low side (JSON-escaped prompts and answers), so the token count
# estimated from bytes is high rather than low.
BYTES_PER_TOKEN = 3.0
BUDGET_BYTES = int(BUDGET_TOKENS * BYTES_PER_TOKEN)


def budget_for(context_window: Optional[int]) -> int:
    """The bytes one conversation's launches may carry on a model of ``context_window`` tokens: the share
    BUDGET_TOKENS is of CONTEXT_TOKENS; unknown (or smaller than the assumed context): BUDGET_BYTES."""
    if not context_window or context_window <= CONTEXT_TOKENS:
        return BUDGET_BYTES
    return int(context_window * BUDGET_TOKENS / CONTEXT_TOKENS * BYTES_PER_TOKEN)
# Per launch besides the Agent call's input: Claude Code's "Async agent launched" result and the
# notification frame around the answer (about 1.2 KB each, measured).
FRAME_BYTES = 2_400
# What a conversation carries besides its launches: plan's or collect's output, the file's line numbers,
# the agent's own short turns (measured: 10-20 KB).
CONVERSATION_BYTES = 25_000
# An answer's bytes when no estimate is known: an arm's final message, a judge's JSON verdict.
ARM_ANSWER_BYTES = 2_000
JUDGE_ANSWER_BYTES = 500


def answer_bytes(task: dict) -> int:
    """The bytes a task's final answer brings back: the estimate's output tokens per cell when the task
    carries them (they count every turn, so the answer alone is less), else the default for its kind."""
    output = (task.get("cost") or {}).get("output")
    if output:
        return int(output * BYTES_PER_TOKEN)
    return JUDGE_ANSWER_BYTES if task.get("judge") else ARM_ANSWER_BYTES


def launch_bytes(line: str, task: dict) -> int:
    """What one launch carries into the conversation: its line of agent-tasks.jsonl twice (the agent reads
    the file, where the line is text, escaped once more in the request; then writes it as its Agent call),
    the frames, the answer."""
    return (len(line.encode("utf-8")) + len(json.dumps(line).encode("utf-8")) + FRAME_BYTES
            + answer_bytes(task))


def judge_line_bytes(arm_line: int, answer: int) -> int:
    """A judge's Agent call, estimated before its packet exists: the packet template (about 3.3 KB with
    the criteria) and the request, about an arm's prompt, plus both outputs."""
    return 3_300 + arm_line + 2 * answer


def first_part(lines: list[str], tasks: list[dict], budget: int = BUDGET_BYTES) -> int:
    """How many of ``lines`` (in order) one conversation takes: the longest prefix within ``budget`` less
    what a conversation carries besides its launches (never fewer than one, so a run always moves on)."""
    budget -= CONVERSATION_BYTES
    total = 0
    for n, (line, task) in enumerate(zip(lines, tasks)):
        total += launch_bytes(line, task)
        if total > budget:
            return max(1, n)
    return len(lines)


def run_bytes(arm_lines: list[str], arm_tasks: list[dict], packets: int) -> int:
    """A whole run's launches on the Agent-tool path: every arm, then ``packets`` judges."""
    arms = sum(launch_bytes(line, t) for line, t in zip(arm_lines, arm_tasks))
    if not arm_lines or not packets:
        return arms
    mean_line = sum(len(x.encode("utf-8")) for x in arm_lines) // len(arm_lines)
    mean_answer = sum(answer_bytes(t) for t in arm_tasks) // len(arm_tasks)
    judge = judge_line_bytes(mean_line, mean_answer) + FRAME_BYTES + JUDGE_ANSWER_BYTES
    return arms + packets * judge


def parts(total: int, budget: int = BUDGET_BYTES) -> int:
    return max(1, math.ceil(total / budget))


def tokens(n_bytes: int) -> int:
    return int(n_bytes / BYTES_PER_TOKEN)


def fit_note(total: int, budget: int = BUDGET_BYTES) -> str:
    """plan's line when the Agent-tool path does not fit one conversation, decided before launch (short: the
    agent reads it whole; SKILL.md says what a part means)."""
    k = parts(total, budget)
    return f"note: without Workflow: {k} parts (~{total // 1000:,} KB, over {tokens(budget) // 1000}K tokens)" \
        if k > 1 else ""


def sidecar(total: int, budget: int = BUDGET_BYTES) -> str:
    """The run's Agent-tool decision, kept beside its fan-outs for collect's later parts."""
    return json.dumps({"estimated_bytes": total, "budget_bytes": budget, "parts": parts(total, budget)}) + "\n"


def split(data: Optional[dict]) -> bool:
    return bool(data) and int(data.get("parts", 1)) > 1


def lines_of(calls: Iterable[dict]) -> list[str]:
    return [json.dumps(c, ensure_ascii=False) for c in calls]
