"""Collect's sandbox check: every Bash call of an arm ran as the guard rewrote it (audit problems).

In a sandboxed run the guard answers each arm's Bash call with "allow" and the
command wrapped in the run's sandbox (``confine/sandbox.py``). Claude Code keeps
the model's own command in the ``tool_use`` and records the hook's answer as a
``hook_success`` attachment beside it (``toolUseID`` = the call's id, its
``stdout`` the hook's JSON; measured on 2.1.328). A Bash call with no such
record whose ``updatedInput.command`` is exactly the command :func:`wrap`
gives from plan.json (or whose answer refused it) ran outside the sandbox: the
guard was not in force, or the record was changed. Either makes the trial
invalid, and the problem names the call. A call Claude Code itself refused
(its error result is the refusal, not ``Exit code N``) never ran: it is no
problem here, and collect names it as a refused call.
"""

from __future__ import annotations

import json
from typing import Optional

from ..claude.transcript import REFUSALS, REQUIRES_APPROVAL, Transcript
from ..confine.sandbox import wrapper
from ..store.planfile import Cell, Sandbox

HOOK_RECORD = "hook_success"


def _answers(t: Transcript, ids: Optional[set] = None) -> dict[str, list[dict]]:
    """tool_use id -> the PreToolUse hooks' answers recorded beside it (parsed stdout); ``ids``: only those
    calls' (a guard answers every call, and only the Bash calls' answers are read)."""
    out: dict[str, list[dict]] = {}
    for r in t.records:
        att = r.get("attachment") if r.get("type") == "attachment" else None
        if not isinstance(att, dict) or att.get("type") != HOOK_RECORD or att.get("hookEvent") != "PreToolUse":
            continue
        if ids is not None and str(att.get("toolUseID")) not in ids:
            continue
        try:
            said = json.loads(att.get("stdout") or "")
        except ValueError:
            continue
        spec = said.get("hookSpecificOutput") if isinstance(said, dict) else None
        if isinstance(spec, dict):
            out.setdefault(str(att.get("toolUseID")), []).append(spec)
    return out


def _bash_calls(t: Transcript) -> list[tuple[str, object]]:
    """(id, command) of each Bash call, from the tool calls collect has already worked out."""
    return [(c.id, c.input.get("command")) for c in t.tool_calls() if c.name == "Bash"]


def _refused_by_claude_code(t: Transcript) -> set[str]:
    """Ids of the Bash calls Claude Code itself refused before running them (a permission the arm lacked, as in
    default mode with the user's hooks disabled): an error result whose first line is Claude Code's refusal.
    A command that ran and failed reports ``Exit code N`` first, so its own output cannot pass for a refusal.
    Collect names these calls as refused (provenance.refused_whys); they ran nowhere, in no sandbox or out."""
    out = set()
    for c in t.tool_calls():
        if c.name != "Bash" or not c.error:
            continue  # (the first line of every result, taken by a split, copied each result's rest)
        first = c.result.partition("\n")[0]
        if not first.startswith("Exit code") and any(p in first for p in (*REFUSALS, REQUIRES_APPROVAL)):
            out.add(c.id)
    return out


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


def unsandboxed_calls(t: Transcript, cell: Cell, sandbox: Optional[Sandbox]) -> list[str]:
    """One problem per Bash call of the arm that did not run as the guard's sandboxed rewrite (none in an
    unsandboxed run)."""
    if sandbox is None:
        return []
    calls = _bash_calls(t)
    if not calls:
        return []
    answers = _answers(t, {call_id for call_id, _ in calls})
    refused = _refused_by_claude_code(t)
    problems = []
    wrapped = wrapper(sandbox, cell.world, cell.skill_dir)
    for call_id, command in calls:
        if not isinstance(command, str) or call_id in refused:
            continue
        expected = wrapped(command)
        said = answers.get(call_id, [])
        if any(a.get("permissionDecision") == "deny" for a in said):
            continue  # refused: it never ran
        if any(a.get("permissionDecision") == "allow" and isinstance(a.get("updatedInput"), dict)
               and a["updatedInput"].get("command") == expected for a in said):
            continue
        why = ("the guard's answer rewrote it to another command" if said else
               f"no {HOOK_RECORD} record of the guard's rewrite is beside it")
        problems.append(f"its Bash call `{_short(command)}` did not run in the benchmark's sandbox ({why})")
    return problems
