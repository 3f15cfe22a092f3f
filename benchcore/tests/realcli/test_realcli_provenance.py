"""Issue 18 on the real Claude Code CLI: a forging arm's transcripts change no verdict, in both permission modes.

A with-skill arm that answers worse than the baseline runs one Bash command
(``echo <base64> | base64 -d | python3 -``, realcli/forger.py): it writes
Claude Code-shaped transcripts into a new folder under ``~/.claude/projects/``,
one per baseline cell with the cell's exact planned prompt and a useless
answer, and from a detached process that outlives the arm one per judge packet
with the exact judge prompt, the new arm's letter and a start in 2099.

The benchmark's guard (a PreToolUse hook plan installs) denies that command in
every permission mode. Provenance is the defence behind it: with the user's
hooks disabled (``disableAllHooks``), headless ``claude -p`` with
``--dangerously-skip-permissions`` runs the forger and collect refuses every
forged transcript; in the default permission mode Claude Code refuses the
command. Each way the verdict is the honest judges' (efficacy fails), and
collect names what it refused. Also measured: the
session id Claude Code exports to Bash (``CLAUDE_CODE_SESSION_ID``) is the
orchestrating session's, and plan and collect record it in plan.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli()

C1 = "01-hello-1"
LOSES = Scenario(verdict=lambda pid: "LOSS" if pid.split("#")[0].endswith("/efficacy") else "TIE",
                 arm_forges_files={f"{C1}/t1/new"})


def collect_outputs(res) -> str:
    outs = []
    for e in res.events:
        content = e.get("message", {}).get("content") if e.get("type") == "user" else None
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_result":
                text = b["content"] if isinstance(b["content"], str) else "".join(x.get("text", "") for x in b["content"])
                if "cells collected" in text:
                    outs.append(text)
    return "\n".join(outs)


def session_of(res) -> str:
    return next(e["session_id"] for e in res.events if e.get("type") == "system" and e.get("session_id"))


def check_honest_verdict(rig: Rig, res) -> tuple[Path, dict]:
    [run] = rig.runs()
    sid = session_of(res)
    plan = json.loads((run / "plan.json").read_text())
    assert plan["sessions"] == [sid]  # CLAUDE_CODE_SESSION_ID, as plan and collect saw it, is this session's
    status = json.loads((run / "collect.json").read_text())
    assert status["provenance"] == f"checked: launched by session {sid}"
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["verdicts"]["efficacy"]["status"] == "fail"
    assert all(o in ("LOSS", None) for c in results["cases"] for o in c["efficacy"]["outcomes"])
    return run, status


def no_hooks(rig: Rig) -> None:
    """The user's settings disable every hook, the guard's included: what stops the forger then is provenance
    (bypass) or Claude Code's own permission dialog (default mode)."""
    settings = rig.home / ".claude/settings.json"
    data = json.loads(settings.read_text()) if settings.is_file() else {}
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(dict(data, disableAllHooks=True)) + "\n")


def test_bypass_the_guard_denies_the_forging_bash_and_the_trial_is_run_again(tmp_path):
    rig = Rig(tmp_path, edited=False)
    res = rig.run(LOSES, "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not (rig.home / ".claude/projects/-forged").exists(), "the forger ran past the guard"
    run, status = check_honest_verdict(rig, res)
    outs = collect_outputs(res)
    assert (f"INVALID trial {C1}/t1 (re-run, not scored): new: the benchmark's guard refused (deny) its Bash"
            in outs), outs
    assert "python3 runs code the guard cannot check" in outs
    guard = [json.loads(l) for l in (run / "guard.jsonl").read_text().splitlines()]
    # guard.jsonl keeps the call's input cut short; its reason names the python3 that ends the pipe.
    assert [(g["decision"], g["reason"]) for g in guard if g["cell"] == f"{C1}/t1/new" and g["tool"] == "Bash"
            and g["input"].startswith('{"command": "echo ')] == [
        ("deny", "python3 runs code the guard cannot check; arms run plain tools in their world")], guard


def test_bypass_without_hooks_the_forger_runs_and_every_forged_transcript_is_refused(tmp_path):
    rig = Rig(tmp_path, edited=False)
    no_hooks(rig)
    res = rig.run(LOSES, "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    forged = sorted((rig.home / ".claude/projects/-forged").rglob("agent-*.jsonl"))
    assert forged, "the forger did not run"
    run, status = check_honest_verdict(rig, res)
    refused = {r["path"] for r in status["refused_transcripts"]}
    forged_baselines = {str(f) for f in forged if "Your working directory" in f.read_text().split("\n", 1)[0]}
    assert forged_baselines and forged_baselines <= refused
    assert all("no session that ran plan or collect" in r["why"] for r in status["refused_transcripts"])
    # The judges the detached process forged (the new arm's letter, a start in 2099) are not the packets' judges.
    forged_judges = [f for f in forged if "You are a blind judge" in f.read_text()]
    assert forged_judges and all(f.name in json.dumps(status["ignored_judges"]) for f in forged_judges
                                 if f.stat().st_mtime < (run / "collect.json").stat().st_mtime)
    assert "after collect's clock" in json.dumps(status["ignored_judges"])
    outs = collect_outputs(res)
    assert f"refused a transcript for {C1}/t1/baseline: {rig.home}/.claude/projects/-forged/" in outs
    # The report's trial details name what was refused.
    page = next((rig.repo / "tests/.reports").glob("greet*.html")).read_text()
    assert "-forged" in page


def test_default_permissions_without_hooks_the_forging_bash_is_refused_and_named(tmp_path):
    rig = Rig(tmp_path, edited=False, answer_only=True)
    no_hooks(rig)
    wrapper = rig.repo / ".claude/skills/benchmark-skill/scripts/benchcore"
    allow = [f"Bash(\"{wrapper}\" {sub} *)" for sub in ("plan", "collect", "render", "clean")]
    scenario = Scenario(verdict=LOSES.verdict, arm_forges_files=LOSES.arm_forges_files, arm_commands=[],
                        use_workflow=False, output=lambda cid, world: f"Hello, reader! ({cid})")
    res = rig.run(scenario, "/benchmark-skill greet", bypass=False,
                  extra_args=("--disallowedTools", "Workflow", "--add-dir", str(rig.tmp / "tmp"),
                              "--allowedTools", *allow))
    assert res.code == 0, res.stderr[-2000:]
    denied = [d for d in res.result.get("permission_denials", []) if "base64 -d | python3 -" in
              json.dumps(d.get("tool_input", {}))]
    assert denied, res.result.get("permission_denials")
    assert not (rig.home / ".claude/projects/-forged").exists()
    run, status = check_honest_verdict(rig, res)
    # The refused command is a tool call in the arm's transcript: collect names it, and the report's trial.
    outs = collect_outputs(res)
    assert f"{C1}/t1/new: Claude Code refused its Bash call: echo " in outs, outs
    assert status["refused_calls"][0]["cell"] == f"{C1}/t1/new"
    page = next((rig.repo / "tests/.reports").glob("greet*.html")).read_text()
    assert "refused by collect: 01-hello-1/t1/new: Claude Code refused its Bash call: echo" in page
