"""On the real Claude Code CLI: every arm and judge is sealed from the user's and the project's CLAUDE.md, and the
three arms are offered the very same tools, none of them Skill (issue 17).

Markers sit in the rig HOME's ``~/.claude/CLAUDE.md``, the project's
``CLAUDE.md`` and its ``CLAUDE.local.md``. The scripted server logs every
request body; an arm's or a judge's request (told apart by its first user
message) must hold none of them, while the orchestrator's requests hold all
three (so the markers did load). Both launch paths: the Workflow tool and the
Agent tool.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


from brain import ARM_MARK, JUDGE_MARK, Scenario, user_texts  # noqa: E402
from rig import Rig, git, require_cli  # noqa: E402

require_cli()

MARKERS = {"user": "USER-CLAUDE-MD-MARKER-5e1b", "project": "PROJECT-CLAUDE-MD-MARKER-93ac",
           "local": "LOCAL-CLAUDE-MD-MARKER-27fd"}


def sealed_rig(tmp: Path) -> Rig:
    rig = Rig(tmp, edited=True)  # three arms: new, previous, baseline
    (rig.home / ".claude").mkdir(exist_ok=True)
    (rig.home / ".claude/CLAUDE.md").write_text(f"Always mention {MARKERS['user']} when you answer.\n")
    (rig.repo / "CLAUDE.md").write_text(f"# Project notes\n\nThe project code word is {MARKERS['project']}.\n")
    (rig.repo / "CLAUDE.local.md").write_text(f"My local code word is {MARKERS['local']}.\n")
    env = dict(rig.env)
    git(rig.repo, "add", "CLAUDE.md", env=env)
    git(rig.repo, "commit", "-q", "-m", "project notes", env=env)
    with open(rig.repo / ".git/info/exclude", "a") as f:
        f.write("CLAUDE.local.md\n")
    return rig


def requests(log: Path) -> list[tuple[str, str]]:
    """(role, the whole request body as text) for each /v1/messages request: arm, judge or orchestrator."""
    out = []
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        if not entry["path"].split("?")[0].endswith("/v1/messages"):
            continue
        first = user_texts(entry["body"])
        role = "judge" if JUDGE_MARK in first else "arm" if ARM_MARK in first else \
            "orchestrator" if "<command-name>/benchmark-skill" in first else "other"
        out.append((role, json.dumps(entry["body"], ensure_ascii=False)))
    return out


def check_sealed(rig: Rig, res, log: Path) -> dict:
    assert res.code == 0 and "Benchmark finished" in res.result.get("result", ""), res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    reqs = requests(log)
    roles = {r for r, _ in reqs}
    assert {"arm", "judge", "orchestrator"} <= roles, roles
    # The control: the orchestrating session (the user's own) got all three files.
    orch = "\n".join(body for r, body in reqs if r == "orchestrator")
    assert all(m in orch for m in MARKERS.values()), "the markers never loaded: the check below would prove nothing"
    leaks = [(r, m) for r, body in reqs if r in ("arm", "judge") for m in MARKERS.values() if m in body]
    assert not leaks, leaks[:5]
    # The three arms: one tool list, the same for each, without Skill (and without Agent or Workflow).
    per_arm: dict[str, set] = {}
    for b in res.server.oracle.billed:
        if "@" in b.who and b.who.count("/") >= 2:
            arm = b.who.split("@", 1)[0].split("/")[2]
            per_arm.setdefault(arm, set()).add(tuple(b.tools_offered))
    assert set(per_arm) == {"new", "previous", "baseline"}, per_arm
    lists = {arm: sorted(tools) for arm, tools in per_arm.items()}
    assert all(len(v) == 1 for v in lists.values()), lists
    tools = lists["new"][0]
    assert lists["previous"][0] == tools == lists["baseline"][0], lists
    assert "Skill" not in tools and "Agent" not in tools and "Workflow" not in tools and "Bash" in tools, tools
    judges = {tuple(b.tools_offered) for b in res.server.oracle.billed if b.who.startswith("judge:")}
    assert judges and judges <= {(), ("StructuredOutput",)}, judges
    run = rig.runs()[-1]
    info = json.loads((run / "run.json").read_text())
    assert info["agent_types"] == {arm: ["bench-arm"] for arm in ("new", "previous", "baseline")}, info["agent_types"]
    counts = {r: sum(1 for x, _ in reqs if x == r) for r in sorted(roles)}
    print(f"\nrequests by role: {counts}; arms' tools: {list(tools)}; judges' tools: {sorted(judges)}")
    return counts


def test_workflow_path_arms_and_judges_see_no_claude_md_and_the_same_tools(tmp_path):
    rig = sealed_rig(tmp_path)
    log = tmp_path / "requests.jsonl"
    res = rig.run(Scenario(), "/benchmark-skill greet", log_requests=str(log))
    check_sealed(rig, res, log)


def test_agent_tool_path_arms_and_judges_see_no_claude_md_and_the_same_tools(tmp_path):
    rig = sealed_rig(tmp_path)
    log = tmp_path / "requests.jsonl"
    res = rig.run(Scenario(use_workflow=False), "/benchmark-skill greet",
                  extra_args=("--disallowedTools", "Workflow"), log_requests=str(log))
    check_sealed(rig, res, log)
    assert not any(b.get("name") == "Workflow" for e in res.events if e.get("type") == "assistant"
                   for b in e["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use")


def test_without_the_sealed_type_the_markers_reach_the_arms(tmp_path):
    # The contrast that shows the check above can fail: with bench-arm not installed, plan stops before it builds
    # anything and names the command that installs it (issue 26.3); told --default-agent-type, arms run as the
    # default types, which get all three files (the judges, still bench-judge, do not); plan says so.
    rig = sealed_rig(tmp_path)
    (rig.repo / ".claude/agents/bench-arm.md").unlink()
    stopped = rig.run(Scenario(), "/benchmark-skill greet")
    said = stopped.result.get("result", "")
    assert "The benchmark stopped:" in said and "the benchmark's agent type bench-arm is not installed" in said, said
    assert "mkdir -p .claude/agents && cp " in said and "then restart Claude Code" in said, said
    assert rig.runs() == []
    log = tmp_path / "requests.jsonl"
    res = rig.run(Scenario(), "/benchmark-skill --default-agent-type greet", log_requests=str(log))
    assert res.code == 0 and "Benchmark finished" in res.result.get("result", ""), res.stderr[-2000:]
    reqs = requests(log)
    arms = [body for r, body in reqs if r == "arm"]
    assert arms and all(m in b for b in arms for m in MARKERS.values())
    assert not any(m in body for r, body in reqs if r == "judge" for m in MARKERS.values())
    assert "warning: the 'bench-arm' agent type is not installed" in res.stdout
