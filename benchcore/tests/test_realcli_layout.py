"""A project's own skill in .claude/skills/, benchmarked on the real Claude Code CLI (offline, scripted model).

The skill under test is then also installed in the session that runs the benchmark. Measured here: plan says so,
the with-skill arms (workflow agents) get it in their skill listing while bench-baseline cells get none, and the
run reaches its verdict, three-arm (.claude/skills/greet edited since main), with its cases from tests/greet/.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "realcli"))

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
    assert "greet lives in .claude/skills/, so Claude Code has it installed in this session" in res.stdout
    [run] = rig.runs()
    info = json.loads((run / "run.json").read_text())
    assert info["skill"] == {"name": "greet", "path": ".claude/skills/greet", "tests": "tests/greet"}
    assert info["shape"] == "three-arm"
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert [c["id"] for c in results["cases"]] == ["01-hello-1", "02-hello-2"]
    assert results["verdicts"]["efficacy"]["status"] == "pass", results["headline"]
    assert results["incomplete"] is False, results["headline"]

    firsts = _first_requests(log)
    with_skill = [text for tools, text in firsts if "Skill" in tools]
    baseline = [text for tools, text in firsts if "Skill" not in tools]
    assert with_skill and baseline, [t for t, _ in firsts]
    listed = [DESCRIPTION in text for text in with_skill]
    print(f"with-skill arms' first requests listing greet: {sum(listed)} of {len(listed)}; "
          f"baseline first requests listing it: {sum(DESCRIPTION in t for t in baseline)} of {len(baseline)}")
    assert all(listed)
    assert not any(DESCRIPTION in text for text in baseline)
