"""A project's own skill in .claude/skills/, benchmarked on the real Claude Code CLI (offline, scripted model).

The skill under test is then also installed in the session that runs the benchmark. Measured here: plan says so,
every arm runs as bench-arm (no Skill tool), so no arm's request lists the session's installed copy, while the
with-skill arms' prompts name their own copy; and the run reaches its verdict, three-arm (.claude/skills/greet
edited since main), with its cases from tests/greet/.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli()

DESCRIPTION = "Writes greetings in the house style."


def _first_requests(log: Path) -> list[tuple[list, str]]:
    """(tools offered, request text) of every arm's first request: a workflow agent's (its first record is the
    computed task) whose task names a world, before any answer of the model (the prompt and its attachment)."""
    out = []
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        body = entry.get("body") or {}
        messages = body.get("messages") or []
        if "count_tokens" in entry.get("path", "") or not messages or \
                any(m.get("role") == "assistant" for m in messages):
            continue
        first = messages[0].get("content")
        first = first if isinstance(first, str) else json.dumps(first)
        text = json.dumps(body)
        if first.startswith("[Workflow harness") and "/worlds/" in text:
            out.append(([t.get("name") for t in body.get("tools") or []], text))
    return out


def test_a_skill_in_claude_skills_is_benchmarked_three_arm_and_listed_to_the_with_skill_arms_only(tmp_path):
    rig = Rig(tmp_path, edited=True, layout="claude")
    log = tmp_path / "requests.jsonl"
    res = rig.run(Scenario(), "/benchmark-skill greet", log_requests=str(log))
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert ("greet lives in .claude/skills/, so Claude Code has it installed in this session: the arms run as "
            "bench-arm, which has no Skill tool, so no arm sees or invokes it") in res.stdout
    [run] = rig.runs()
    info = json.loads((run / "run.json").read_text())
    assert info["skill"] == {"name": "greet", "path": ".claude/skills/greet", "tests": "tests/greet"}
    assert info["shape"] == "three-arm"
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert [c["id"] for c in results["cases"]] == ["01-hello-1", "02-hello-2"]
    assert results["verdicts"]["efficacy"]["status"] == "pass", results["headline"]
    assert results["incomplete"] is False, results["headline"]

    firsts = _first_requests(log)
    plan = json.loads((run / "plan.json").read_text())
    copies = list(plan["skill_copies"].values())
    assert len(firsts) == len(plan["cells"]) == 30, len(firsts)
    assert all("Skill" not in tools for tools, _ in firsts), [t for t, _ in firsts]
    with_skill = [text for _, text in firsts if any(c in text for c in copies)]
    baseline = [text for _, text in firsts if not any(c in text for c in copies)]
    print(f"first requests: {len(with_skill)} naming a skill copy, {len(baseline)} naming none; listing the "
          f"session's greet: {sum(DESCRIPTION in t for _, t in firsts)}")
    assert (len(with_skill), len(baseline)) == (20, 10)
    assert not any(DESCRIPTION in text for _, text in firsts)
