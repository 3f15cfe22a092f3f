"""Issue 25 item 5 on the real Claude Code CLI: a genuine baseline transcript rewritten in place changes no verdict.

A with-skill arm runs one Bash command (``echo <base64> | base64 -d | python3 - <cell>``, realcli/rewriter.py)
that leaves a detached process behind: once the baseline of its own trial has answered, it rewrites that
baseline's own transcript under ``~/.claude/projects/`` in place (the same file, agent id and times) to a
useless answer. The user's hooks are disabled (``disableAllHooks``) and the run is headless in bypass mode, so
neither the guard nor its sandbox stops the write: collect must catch it. The answer the transcript now holds
is not what the session recorded for that agent (the Workflow journal's result), or, if the rewrite came after
collect first read the transcript, its bytes are not the ones collect hashed then: either way the trial is
invalid, named, run again, and the verdict is the honest judges' (efficacy fails).
"""

from __future__ import annotations

import json

from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402
from test_realcli_provenance import C1, LOSES, check_honest_verdict, collect_outputs, no_hooks  # noqa: E402

require_cli()

REWRITTEN = "Nothing useful here."


def test_a_baseline_transcript_rewritten_in_place_by_an_arm_makes_its_trial_invalid_and_changes_no_verdict(tmp_path):
    rig = Rig(tmp_path, edited=False, answer_only=True)
    no_hooks(rig)
    scenario = Scenario(verdict=LOSES.verdict, arm_rewrites_baseline={f"{C1}/t1/new"}, arm_commands=[],
                        output=lambda cid, world: f"Hello, reader! ({cid.split('/')[0]})")
    res = rig.run(scenario, "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    rewritten = [f for f in (rig.home / ".claude/projects").rglob("agent-*.jsonl") if REWRITTEN in f.read_text()]
    assert len(rewritten) == 1, "the rewriter did not run"
    run, status = check_honest_verdict(rig, res)
    outs = collect_outputs(res)
    assert f"INVALID trial {C1}/t1 (re-run, not scored)" in outs, outs
    # The first attempt's audit, kept beside the re-run trial, names the rewritten baseline transcript.
    [audit] = (run / "cases" / C1 / "t1").glob(".invalid-*/audit.json")
    problems = [p["problem"] for p in json.loads(audit.read_text())["problems"] if p["arm"] == "baseline"]
    agent = rewritten[0].stem.removeprefix("agent-")
    assert any(p.startswith((f"its transcript's final answer is not what Claude Code recorded for agent {agent}",
                             "its transcript changed after collect first read it"))
               for p in problems), problems
    plan = json.loads((run / "plan.json").read_text())
    assert {c["id"]: c["attempt"] for c in plan["cells"]}[f"{C1}/t1/baseline"] == 2
    assert REWRITTEN not in (run / "cases" / C1 / "t1" / "baseline" / "output.md").read_text()
