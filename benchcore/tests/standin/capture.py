"""Record templates taken from real Claude Code 2.1.328 transcripts (fixtures/transcripts/real-2.1.328/).

The stand-in writes its transcripts by copying these records and filling in its own ids, times, paths,
prompts and content, so every record kind carries exactly the fields, in the order, that the real CLI
writes (test_standin_format.py compares the two). Nothing here is invented: a field the capture lacks,
the stand-in lacks too.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "real-2.1.328"
CAPTURED_CWD = "/rig/repo"
# The same CLI captured with the session's environment visible to its agents (a CLAUDE.md, hooks, an MCP
# server, an edited skill in git status): fixtures/transcripts/real-2.1.328-env/.
ENV_CAPTURE = CAPTURE.parent / "real-2.1.328-env"
ENV_CAPTURED_SKILL = "skills/text/greet"
# An arm's Bash call in a sandboxed run, with the guard's hook_success record beside it:
# fixtures/transcripts/real-2.1.328-sandbox/.
SANDBOX_CAPTURE = CAPTURE.parent / "real-2.1.328-sandbox"


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _agents(layout: str) -> dict[str, tuple[list[dict], dict]]:
    """agentType -> (its transcript's records, its .meta.json) in one layout's capture."""
    out = {}
    for meta_path in sorted((CAPTURE / layout).glob("projects/*/*/subagents/**/agent-*.meta.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        out[meta["agentType"]] = (_records(meta_path.with_name(meta_path.name.replace(".meta.json", ".jsonl"))), meta)
    return out


@lru_cache(maxsize=None)
def templates() -> dict:
    wf, ag = _agents("workflow"), _agents("agent")
    skill_arm, _ = wf["workflow-subagent"]
    judge_wf, _ = wf["bench-judge"]
    session_file = next((CAPTURE / "agent").glob("projects/*/*.jsonl"))
    parent = _records(session_file)
    journal = _records(next((CAPTURE / "workflow").glob("projects/*/*/subagents/workflows/*/journal.jsonl")))

    def opening(records: list[dict]) -> list[dict]:
        """The attachments Claude Code writes after the first record, before the first request."""
        out = []
        for r in records[1:]:
            if r["type"] == "api-request":
                break
            out.append(r)
        return out

    def first_of(records, pred):
        return next(r for r in records if pred(r))

    env = {role: _records(ENV_CAPTURE / "agents" / f"{name}.jsonl")
           for role, name in (("skill", "new"), ("baseline", "baseline"), ("judge", "judge"))}
    return {
        "first": skill_arm[0],
        # The opening as an environment that reaches the agents makes it: a SubagentStart hook's record, the
        # MCP tool among the deferred tools, the CLAUDE.md files (not for the omitClaudeMd types), git status.
        "env_opening": {role: opening(records) for role, records in env.items()},
        # The opening attachments by what the agent is offered: the Skill tool (a skill_listing), the
        # baseline's tools without Skill, or none (the judge).
        "opening": {"skill": opening(skill_arm), "baseline": opening(wf["bench-baseline"][0]),
                    "judge": opening(judge_wf)},
        "api_request": first_of(skill_arm, lambda r: r["type"] == "api-request" and "base" not in r),
        "api_request_next": first_of(skill_arm, lambda r: r["type"] == "api-request" and "base" in r),
        "assistant": first_of(skill_arm, lambda r: r["type"] == "assistant"),
        "tool_result": first_of(skill_arm, lambda r: r["type"] == "user" and "sourceToolAssistantUUID" in r
                                and "sandboxed" not in r),
        "bash_result": first_of(skill_arm, lambda r: r["type"] == "user" and "sandboxed" in r),
        "auto_mode": first_of(skill_arm, lambda r: (r.get("attachment") or {}).get("type") == "auto_mode"),
        # An Agent-tool agent (which has the Agent tool itself) is told the agent types after its first tool result.
        "agent_listing": first_of(ag["general-purpose"][0],
                                  lambda r: (r.get("attachment") or {}).get("type") == "agent_listing_delta"),
        "structured_output": first_of(judge_wf, lambda r: (r.get("attachment") or {}).get("type") == "structured_output"),
        "structured_result": first_of(judge_wf, lambda r: r.get("toolEndsTurn")),
        "meta": {"workflow": wf["workflow-subagent"][1], "agent": ag["general-purpose"][1]},
        "journal_started": first_of(journal, lambda r: r["type"] == "started"),
        "journal_result": first_of(journal, lambda r: r["type"] == "result"),
        "parent_agent_use": first_of(parent, lambda r: r["type"] == "assistant"),
        "parent_agent_result": first_of(parent, lambda r: r["type"] == "user"),
        "cost_state": first_of(parent, lambda r: r["type"] == "cost-state"),
        "hook_success": first_of(_records(SANDBOX_CAPTURE / "arm.jsonl"),
                                 lambda r: (r.get("attachment") or {}).get("hookName") == "PreToolUse:Bash"),
    }


def template(name: str, *sub: str) -> dict:
    """A deep copy of one template record (``sub`` picks inside a dict of them): parsed again from its JSON, kept
    once per record (records are JSON; the stand-in makes tens of thousands of them, and ``copy.deepcopy`` was a
    tenth of the end-to-end tests' CPU)."""
    return json.loads(_template_json(name, *sub))


@lru_cache(maxsize=None)
def _template_json(name: str, *sub: str) -> str:
    t = templates()[name]
    for k in sub:
        t = t[k]
    return json.dumps(t)


def relocate(record: dict, cwd: str) -> dict:
    """The record with the capture's repository path replaced by ``cwd`` wherever it appears."""
    return json.loads(json.dumps(record).replace(CAPTURED_CWD, cwd))
