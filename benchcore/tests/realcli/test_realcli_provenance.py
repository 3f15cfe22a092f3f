"""Issue 18 on the real Claude Code CLI: a forging arm's transcripts change no verdict, in both permission modes.

A with-skill arm that answers worse than the baseline runs one Bash command
(``echo <base64> | base64 -d | python3 -``, realcli/forger.py): it writes
Claude Code-shaped transcripts into a new folder under ``~/.claude/projects/``,
one per baseline cell with the cell's exact planned prompt and a useless
answer, and from a detached process that outlives the arm one per judge packet
with the exact judge prompt, the new arm's letter and a start in 2099.

The benchmark's guard (a PreToolUse hook plan installs) rewrites every arm's
Bash call into the run's OS sandbox (issue 25): there the forger runs with no
home folder and a private /tmp, writes nothing collect reads, and the trial is
judged. With the user's hooks disabled (``disableAllHooks``), headless
``claude -p`` with ``--dangerously-skip-permissions`` runs the forger
unconfined: no arm call carries the guard's rewrite record, so every trial is
invalid, named and given up, and collect refuses every forged transcript; in
the default permission mode Claude Code refuses the command, which never ran,
and collect names the refusal. Each way no forged transcript reaches the
verdict (efficacy fails), and collect names what happened. Also measured: the
session id Claude Code exports to Bash (``CLAUDE_CODE_SESSION_ID``) is the
orchestrating session's, and plan and collect record it in plan.json.
"""

from __future__ import annotations

import html
import json
import re
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


def arm_bash_answers(run: Path, cell: str) -> list[tuple[str, list[dict]]]:
    """Each Bash command of a cell's arm with the guard's answers Claude Code recorded beside it (hook_success)."""
    records = [json.loads(l) for l in (run / "cases" / cell / "transcript.jsonl").read_text().splitlines()]
    said: dict = {}
    for r in records:
        att = r.get("attachment") if r.get("type") == "attachment" else None
        if isinstance(att, dict) and att.get("type") == "hook_success" and att.get("hookEvent") == "PreToolUse":
            said.setdefault(att["toolUseID"], []).append(json.loads(att["stdout"])["hookSpecificOutput"])
    return [(b["input"]["command"], said.get(b["id"], [])) for r in records if r.get("type") == "assistant"
            for b in r["message"]["content"] if b.get("type") == "tool_use" and b.get("name") == "Bash"]


def test_bypass_the_forging_bash_runs_in_the_sandbox_and_forges_nothing(tmp_path):
    # Before the OS sandbox (issue 25) the guard's parser denied this command (python3 is code it cannot read)
    # and the trial was invalid and re-run. Now the guard lets an arm run anything, rewritten into bubblewrap:
    # the forger runs with no home folder, no ~/.claude and a private /tmp, so it writes nothing Claude Code or
    # collect would read, its detached process dies with the sandbox, and the trial is valid and judged.
    rig = Rig(tmp_path, edited=False)
    res = rig.run(LOSES, "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not (rig.home / ".claude/projects/-forged").exists(), "the forger wrote past the sandbox"
    run, status = check_honest_verdict(rig, res)
    assert not status["refused_transcripts"] and not status["ignored_judges"]
    assert status["invalid_trials"] == [] and status["given_up"] == []
    sandbox = json.loads((run / "plan.json").read_text())["sandbox"]
    assert sandbox["kind"] == "bwrap"
    # What ran is the guard's rewrite, as Claude Code recorded it beside the call: the forger inside bwrap.
    [(command, said)] = [(c, s) for c, s in arm_bash_answers(run, f"{C1}/t1/new") if "base64 -d | python3 -" in c]
    [answer] = said
    assert answer["permissionDecision"] == "allow", answer
    ran = answer["updatedInput"]["command"]
    assert ran.startswith(sandbox["program"] + " ") and "--unshare-all" in ran and "--clearenv" in ran, ran
    assert command.split(" | ")[0] in ran  # the model's own command, wrapped
    # Nothing was refused, so the guard logged nothing for the cell.
    log = run / "guard.jsonl"
    assert not log.exists() or f"{C1}/t1/new" not in log.read_text()
    assert "INVALID trial" not in collect_outputs(res)


def test_bypass_without_hooks_no_arm_runs_sandboxed_so_no_trial_counts_and_the_forgeries_are_refused(tmp_path):
    # Before collect checked the sandbox rewrite (issue 25.4) the unguarded arms' trials were valid and the
    # judges decided, with every forged transcript refused. Now, with the user's hooks disabled, no arm's Bash
    # call has the hook_success record of the guard's rewrite: every trial is invalid, named for that, re-run
    # and given up, so no trial is scored (efficacy fails, incomplete) and no judge is launched. The forger
    # still ran unconfined in the first attempt: collect refused each forged baseline transcript and said so.
    rig = Rig(tmp_path, edited=False)
    no_hooks(rig)
    res = rig.run(LOSES, "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    forged = sorted((rig.home / ".claude/projects/-forged").rglob("agent-*.jsonl"))
    assert forged, "the forger did not run"
    run, status = check_honest_verdict(rig, res)
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["verdicts"]["efficacy"]["incomplete"] is True
    assert all(o is None for c in results["cases"] for o in c["efficacy"]["outcomes"])
    plan = json.loads((run / "plan.json").read_text())
    assert sorted(status["given_up"]) == sorted(c["id"] for c in plan["cells"])
    assert status["packets"] == 0 and not status["ignored_judges"]
    unsandboxed = "did not run in the benchmark's sandbox (no hook_success record of the guard's rewrite is beside it)"
    assert {t["trial"] for t in status["invalid_trials"]} == {c["id"].rsplit("/", 1)[0] for c in plan["cells"]}
    assert all(unsandboxed in t["problems"] for t in status["invalid_trials"])
    outs = collect_outputs(res)
    assert f"INVALID trial {C1}/t1 (re-run, not scored): new: its Bash call `echo " in outs, outs
    forged_baselines = [f for f in forged if "Your working directory" in f.read_text().split("\n", 1)[0]]
    assert forged_baselines
    # The first collect names each refused forgery (eight, then how many more); the re-planned cells' prompts
    # are new, so later collects find no forgery to refuse.
    named = set(re.findall(r"refused a transcript for \S+/baseline: (\S+): no session that ran plan or collect", outs))
    more = re.search(r"\.\.\. and (\d+) more refused transcripts", outs)
    assert named <= {str(f) for f in forged_baselines}
    assert len(named) + (int(more[1]) if more else 0) == len(forged_baselines), outs
    assert f"refused a transcript for {C1}/t1/baseline: {rig.home}/.claude/projects/-forged/" in outs
    # The report names why no trial counts.
    page = html.unescape(next((rig.repo / "tests/.reports").glob("greet*.html")).read_text())
    assert unsandboxed in page


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
    assert not (rig.home / ".claude/projects/-forged").exists()
    run, status = check_honest_verdict(rig, res)
    # Claude Code refused the compound command before it ran, as the arm's transcript shows (the headless
    # result's permission_denials does not list this subagent's refusal on 2.1.328). A call that never ran needs no
    # sandbox rewrite, so the trial stands: it is judged, and the refusal is named instead.
    [(command, said)] = [(c, s) for c, s in arm_bash_answers(run, f"{C1}/t1/new") if "base64 -d | python3 -" in c]
    assert said == []  # no hook answered: the user's hooks are off
    refusals = [b for r in map(json.loads, (run / "cases" / C1 / "t1" / "new" / "transcript.jsonl").read_text()
                               .splitlines()) if r.get("type") == "user" and isinstance(r["message"]["content"], list)
                for b in r["message"]["content"] if b.get("type") == "tool_result" and b.get("is_error")]
    assert [b["content"] for b in refusals] == [
        "This Bash command contains multiple operations. The following part requires approval: python3 -"]
    assert status["invalid_trials"] == [] and status["given_up"] == []
    # The refused command is a tool call in the arm's transcript: collect names it, and the report's trial.
    outs = collect_outputs(res)
    assert f"{C1}/t1/new: Claude Code refused its Bash call: echo " in outs, outs
    assert status["refused_calls"][0]["cell"] == f"{C1}/t1/new"
    page = next((rig.repo / "tests/.reports").glob("greet*.html")).read_text()
    assert "refused by collect: 01-hello-1/t1/new: Claude Code refused its Bash call: echo" in page
