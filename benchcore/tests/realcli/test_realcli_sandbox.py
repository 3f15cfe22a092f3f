"""The OS sandbox on the real Claude Code CLI: an arm that runs code gets a valid trial, with no dialog.

``/benchmark-skill greet`` runs headless in default permission mode (realcli/rig.py, ``bypass=False``: a call
that would ask is refused there, so a dialog shows as a refusal). The case's setup puts a small Python package
with a bug and its test in each world; every arm fixes the bug with ``sed -i`` and runs ``python3 -m pytest
-q`` in its world, and the hard assertion runs the tests too. The guard answers each arm's Bash call with the
command wrapped in bubblewrap (``updatedInput``), Claude Code runs that, and records the guard's answer in a
``hook_success`` attachment beside the call, which collect checks.
"""

from __future__ import annotations

import json
from pathlib import Path

from brain import Scenario  # noqa: E402
from rig import Rig, case_md, git, require_cli  # noqa: E402

require_cli()

SETUP = (r"printf 'def add(a, b):\n    return a - b\n' > calc.py && "
         r"printf 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n' > test_calc.py")
WORK = ["cd {world} && sed -i 's/a - b/a + b/' calc.py && printf %s 'Hello, reader!' > greeting.txt",
        "cd {world} && python3 -m pytest -q -p no:cacheprovider"]


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_an_arm_that_runs_pytest_in_its_world_gets_a_valid_trial_with_no_dialog(tmp_path):
    rig = Rig(tmp_path, edited=False, cases=1)
    case = rig.repo / "tests/text/greet/01-hello-1/case.md"
    text = case_md("Fix calc.add so the tests pass, and write a greeting into greeting.txt.",
                   'cd "$WORLD" && python3 -m pytest -q -p no:cacheprovider')
    case.write_text(text.replace("---\n\n", f"setup: {SETUP}\n---\n\n", 1))
    good = case.parent / "samples/good/world"  # the committed good answer: the fixed package, its tests pass
    (good / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (good / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    git(rig.repo, "add", "-A", env=dict(__import__("os").environ, **rig.env))
    git(rig.repo, "commit", "-qam", "a case that runs code", env=dict(__import__("os").environ, **rig.env))
    # Default mode, headless: benchcore's own commands allowed as "don't ask again" would, the worlds folder a
    # working directory (what plan adds to settings), the Agent-tool path (a Workflow's launch always asks).
    wrapper = rig.repo / ".claude/skills/benchmark-skill/scripts/benchcore"
    allow = [f"Bash(\"{wrapper}\" {sub} *)" for sub in ("plan", "collect", "render", "clean")]
    res = rig.run(Scenario(arm_commands=WORK, use_workflow=False), "/benchmark-skill greet", bypass=False,
                  extra_args=("--disallowedTools", "Workflow", "--add-dir", str(rig.tmp / "tmp"),
                              "--allowedTools", *allow))
    assert res.code == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    assert res.result.get("permission_denials", []) == []  # no call asked (headless refuses what would ask)
    [run] = rig.runs()
    plan = json.loads((run / "plan.json").read_text())
    assert plan["sandbox"]["kind"] == "bwrap" and plan["unsandboxed"] is False
    assert not (run / "guard.jsonl").exists() or not (run / "guard.jsonl").read_text().strip()

    worlds = {c["world"] for c in plan["cells"]}
    calls = passed = 0
    for f in (rig.home / ".claude/projects").rglob("subagents/**/agent-*.jsonl"):
        records = _records(f)
        if not any(w in json.dumps(records[:3]) for w in worlds):
            continue  # a judge
        hooks = {r["attachment"]["toolUseID"]: json.loads(r["attachment"]["stdout"])["hookSpecificOutput"]
                 for r in records if (r.get("attachment") or {}).get("hookName") == "PreToolUse:Bash"}
        for r in records:
            for b in ((r.get("message") or {}).get("content") or []) if isinstance(
                    (r.get("message") or {}).get("content"), list) else []:
                if b.get("type") == "tool_use" and b["name"] == "Bash":
                    calls += 1
                    said = hooks[b["id"]]  # the guard's rewrite, recorded beside the call
                    assert said["permissionDecision"] == "allow"
                    assert said["updatedInput"]["command"].startswith(plan["sandbox"]["program"] + " ")
                    assert said["updatedInput"]["command"].endswith(b["input"]["command"].replace("'", "'\"'\"'")
                                                                    + "'")
                if b.get("type") == "tool_result":
                    body = json.dumps(b.get("content"))
                    assert not b.get("is_error"), body[:500]  # nothing asked, nothing refused
                    passed += "1 passed" in body
    assert calls == 2 * len(plan["cells"]) and passed == len(plan["cells"])

    collect = json.loads((run / "collect.json").read_text())
    assert collect["invalid_trials"] == []
    audits = [json.loads(p.read_text()) for p in run.rglob("audit.json")]
    assert audits and not any(a["invalid"] for a in audits)
    assertions = [json.loads(p.read_text()) for p in run.rglob("assertions.json")]
    assert assertions and all(r["exit"] == 0 for a in assertions for r in a)
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False and results["sandboxed"] is True


def test_where_no_sandbox_runs_the_session_stops_with_the_fix_and_runs_unsandboxed_only_when_asked(tmp_path):
    """A machine where bubblewrap cannot start (a container without user namespaces, Ubuntu 24.04's AppArmor
    restriction): ``/benchmark-skill greet`` stops before any arm with the error and the fix; ``/benchmark-skill
    greet --no-sandbox`` runs under the parse-and-refuse guard to a verdict that says it was not sandboxed."""
    from benchcore.harness.confine.sandbox import PROGRAM_KNOB

    rig = Rig(tmp_path, edited=False, cases=1)
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    rig.env[PROGRAM_KNOB] = str(broken)

    res = rig.run(Scenario(), "/benchmark-skill greet")
    assert res.code == 0, res.stdout[-3000:] + res.stderr[-2000:]
    said = res.result.get("result", "")
    assert "no OS sandbox can run on this machine" in said and "No permissions to create new namespace" in said
    assert "--no-sandbox" in said, said
    assert rig.runs() == [] and not [b for b in res.server.oracle.billed if b.who != "orchestrator"]

    res = rig.run(Scenario(), "/benchmark-skill greet --no-sandbox")
    assert res.code == 0 and "Benchmark finished" in res.result.get("result", ""), res.stderr[-2000:]
    [run] = rig.runs()
    plan = json.loads((run / "plan.json").read_text())
    assert plan["sandbox"] is None and plan["unsandboxed"] is True
    assert not (run / "guard.jsonl").exists() or not (run / "guard.jsonl").read_text().strip()
    # The arms' Bash calls ran as the model wrote them (no rewrite): the guard allowed them by reading them.
    worlds = {c["world"] for c in plan["cells"]}
    arms = [f for f in (rig.home / ".claude/projects").rglob("subagents/**/agent-*.jsonl")
            if any(w in f.read_text()[:20000] for w in worlds)]
    assert len(arms) == len(plan["cells"])
    for f in arms:
        for r in _records(f):
            hook = (r.get("attachment") or {})
            if hook.get("hookName") == "PreToolUse:Bash" and hook.get("stdout", "").strip():
                assert "updatedInput" not in json.loads(hook["stdout"]).get("hookSpecificOutput", {})
    collect = json.loads((run / "collect.json").read_text())
    assert collect["invalid_trials"] == []
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False and results["sandboxed"] is False
    assert "Not sandboxed" in results["headline"] and results["verdicts"]["efficacy"]["status"] == "pass"
    assert "the arms were not confined" in results["headline"]
    page = next((rig.repo / "tests/.reports").glob("greet*.html")).read_text()
    assert "not sandboxed (plan --no-sandbox)" in page
