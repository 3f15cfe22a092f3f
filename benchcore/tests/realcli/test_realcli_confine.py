"""The guard on the real Claude Code CLI: an arm's attempts to reach outside its world fail, its work in the
world and its skill copy is allowed.

Since issue 25 every Bash call of an arm runs in the run's OS sandbox (the guard allows it with the command
wrapped, so the planted Bash escapes run there and find nothing outside); file tools are still decided on
resolved paths, so the file-tool escapes are refused before they run and recorded.

``/benchmark-skill greet`` runs headless (realcli/rig.py). ``plan`` installs the guard hook into the
project's .claude/settings.local.json during the session; one with-skill arm makes a dozen planted escapes
on its first attempt (reads of the case, the skill and its tests through cat, grep -rn, find | xargs cat,
fold, base64, a glob, cd .., an absolute Read, a symlink the case's setup put in its world, and writes
under ~/.claude/projects/), then does its task. Every arm does its work with Bash in its world, git included.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


from brain import Scenario  # noqa: E402
from rig import Rig, background_output, case_md, git, require_cli  # noqa: E402

require_cli()

CELL = "01-hello-1/t1/new"
TESTS = "{repo}/tests/text/greet"
SKILL = "{repo}/skills/text/greet/SKILL.md"


def escapes(home: Path) -> list:
    forged = home / ".claude" / "projects"
    return [
        ("Bash", {"command": f"cat {TESTS}/01-hello-1/case.md", "description": "read the case"}),
        ("Bash", {"command": f"grep -rn reader {TESTS}", "description": "grep the tests"}),
        ("Bash", {"command": f"find {TESTS} -name case.md | xargs cat", "description": "find and cat"}),
        ("Bash", {"command": f"fold -w 15 {SKILL}", "description": "reshaped read"}),
        ("Bash", {"command": f"base64 -w 76 {SKILL}", "description": "encoded read"}),
        ("Bash", {"command": f"cat {TESTS}/*/case.md", "description": "globbed read"}),
        ("Bash", {"command": "cd {world} && cd .. && ls", "description": "climb out"}),
        ("Read", {"file_path": SKILL}),
        ("Bash", {"command": "cat {world}/leak.md", "description": "follow a link"}),
        ("Read", {"file_path": "{world}/leak.md"}),
        ("Bash", {"command": f"cd {{world}} && printf forged > {forged}/forged.jsonl", "description": "forge"}),
        ("Write", {"file_path": f"{forged}/forged/agent-x.jsonl", "content": "forged\n"}),
    ]


WORK = ["cd {world} && printf %s 'Hello, reader!' > greeting.txt", "git -C {world} init -q",
        "git -C {world} add -A", "git -C {world} diff --staged", "git -C {world} commit -qm 'Add greeting'"]


def test_an_arm_is_confined_to_its_world_and_copy(tmp_path):
    rig = Rig(tmp_path, edited=False)
    # The case's setup leaves a link in each fresh world that points at a file outside it.
    case = rig.repo / "tests/text/greet/01-hello-1/case.md"
    text = case_md("Write a greeting for reader 1 into greeting.txt.", 'test -s "$WORLD/greeting.txt"')
    target = tmp_path / "outside" / "secret.txt"
    target.parent.mkdir()
    target.write_text("a secret outside the world\n")
    case.write_text(text.replace("---\n\n", f"setup: ln -s {target} leak.md\n---\n\n", 1))
    git(rig.repo, "commit", "-qam", "setup", env=dict(__import__("os").environ, **rig.env))
    res = rig.run(Scenario(escapes={CELL: escapes(rig.home)}, arm_commands=WORK), "/benchmark-skill greet")
    assert res.code == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    run = rig.runs()[-1]
    settings = json.loads((rig.repo / ".claude/settings.local.json").read_text())
    hooks = [h["command"] for e in settings.get("hooks", {}).get("PreToolUse", []) for h in e["hooks"]]
    # plan added the hook (guard.jsonl below is its work); clean took it out again, leaving the rest.
    # (SKILL.md step 4 runs clean in the background: its note is in the task's output file, not the stdout.)
    assert not any("scripts/guard" in h for h in hooks), settings
    assert "guard hook was taken out" in background_output(res.events, " clean "), res.stdout[-2000:]
    assert settings["includeGitInstructions"] is False and settings["permissions"]["additionalDirectories"]

    log = [json.loads(l) for l in (run / "guard.jsonl").read_text().splitlines()]
    mine = [r for r in log if r["cell"] == CELL]
    file_escapes = [t for t, _ in escapes(rig.home) if t != "Bash"]
    assert [r["tool"] for r in mine] == file_escapes, json.dumps(log, indent=1)
    assert all(r["decision"] == "deny" and r["reason"] for r in mine)
    # Nothing else was refused: every other arm's reads, writes and git in its world were allowed.
    assert [r for r in log if r["cell"] != CELL] == [], log
    # Neither the refused writes nor the sandboxed ones reached outside.
    assert not list((rig.home / ".claude/projects").rglob("forged*")), "a write outside the world ran"

    # The model saw each refusal; the sandboxed Bash escapes ran and showed nothing from outside; every
    # Bash call of every arm has the guard's sandboxed rewrite beside it.
    plan = json.loads((run / "plan.json").read_text())
    sessions = list((rig.home / ".claude/projects").glob("*/*/subagents"))
    refused, ran_in_world, bash = [], 0, 0
    for f in (p for s in sessions for p in s.rglob("agent-*.jsonl")):
        records = [json.loads(l) for l in f.read_text().splitlines()]
        if "Packet id:" in json.dumps(records[:3]):
            continue  # a judge (an arm's first attempt had a world the re-run replaced in plan.json)
        rewritten = {r["attachment"]["toolUseID"] for r in records
                     if (r.get("attachment") or {}).get("hookName") == "PreToolUse:Bash"
                     and '"updatedInput"' in r["attachment"]["stdout"]}
        for r in records:
            content = (r.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if b.get("type") == "tool_use" and b["name"] == "Bash":
                    bash += 1
                    assert b["id"] in rewritten, b["input"]
                if b.get("type") == "tool_result":
                    body = json.dumps(b.get("content"))
                    assert "a secret outside the world" not in body and "test -s" not in body, body[:500]
                    if "benchmark guard:" in body:
                        refused.append(body)
                    elif not b.get("is_error"):
                        ran_in_world += 1
    assert len(refused) == len(mine)
    assert bash >= 5 * len(plan["cells"]) and ran_in_world >= 5 * len(plan["cells"])

    # The audit names the refused attempts, so the trial was re-run (its first audit kept aside), and the run
    # still reached its verdict with every trial valid.
    audits = [json.loads(p.read_text()) for p in (run / "cases/01-hello-1/t1").rglob("audit.json")]
    refusals = [p["problem"] for a in audits for p in a["problems"] if "guard refused" in p["problem"]]
    assert len(refusals) == len(mine) and all(a["invalid"] for a in audits if a["problems"])
    assert json.loads((run / "cases/01-hello-1/t1/audit.json").read_text())["invalid"] is False
    collect = json.loads((run / "collect.json").read_text())
    assert collect["invalid_trials"] == [] or all(t["trial"] == "01-hello-1/t1" for t in collect["invalid_trials"])
    assert (rig.repo / "tests/.reports/greet.results.json").is_file()


def test_in_world_work_asks_nothing_in_default_mode(tmp_path):
    """The user's terminal, default permission mode: arms write their answer, and run git add, diff --staged
    and commit in their worlds, and the with-skill arm reads its copy; the guard allows all of it, so no
    dialog comes from inside a fan-out (before the guard, each such command asked)."""
    require_cli("tmux")
    from interactive import InteractiveRig

    rig = Rig(tmp_path, edited=False, cases=1)
    session = InteractiveRig(rig).run(Scenario(arm_commands=WORK, think=2.0), "/benchmark-skill greet", timeout=600)
    titles = [f"{d.title} | {d.subject}" for d in session.dialogs]
    assert not [t for t in titles if "workflow" in t.split("|")[0] and "Workflow(" not in t], titles
    assert not [t for t in titles if "agent" in t.split("|")[0]], titles
    # What remains: the first benchcore plan and Claude Code's confirmation of the two fan-outs.
    assert len(session.dialogs) == 3 and sum("dynamic workflow" in d.question for d in session.dialogs) == 2, titles
    [run] = rig.runs()
    assert not (run / "guard.jsonl").exists() or not (run / "guard.jsonl").read_text().strip()
    assert json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())["incomplete"] is False
    print(f"\n{len(session.dialogs)} dialogs: {titles}")


def test_arms_of_the_default_agent_type_keep_the_guards_refusals(tmp_path):
    """Without the benchmark's agent types installed, ``plan --default-agent-type`` runs every arm as Claude
    Code's default type (general-purpose, or a Workflow's own; not bench-arm): the guard
    knows an arm by its planned prompt, whatever its type, so the with-skill arm's absolute Read of the skill
    under test is refused and recorded, and its Bash runs in the sandbox."""
    rig = Rig(tmp_path, edited=False, cases=1)
    for f in (rig.repo / ".claude/agents").glob("bench-*.md"):
        f.unlink()  # the benchmark's agent types not installed: plan needs --default-agent-type
    steps = [("Read", {"file_path": SKILL}), ("Bash", {"command": f"cat {SKILL}", "description": "read the skill"})]
    res = rig.run(Scenario(escapes={CELL: steps}, arm_commands=WORK), "/benchmark-skill greet --default-agent-type")
    assert res.code == 0, res.stdout[-3000:] + res.stderr[-2000:]
    run = rig.runs()[-1]
    plan = json.loads((run / "plan.json").read_text())
    assert all(not c.get("agent_type") for c in plan["cells"])
    log = [json.loads(l) for l in (run / "guard.jsonl").read_text().splitlines()]
    assert [(r["cell"], r["tool"], r["decision"]) for r in log] == [(CELL, "Read", "deny")], log
    assert not log[0]["agent_type"].endswith(("bench-arm", "bench-baseline")), log[0]["agent_type"]
    metas = [json.loads(p.read_text()) for p in (rig.home / ".claude/projects").rglob("subagents/**/agent-*.meta.json")]
    assert metas and not any(m.get("agentType", "").endswith("bench-arm") for m in metas)
    # The Bash read of the skill under test ran in the sandbox, where the repository is not.
    cats = []
    for f in (rig.home / ".claude/projects").rglob("subagents/**/agent-*.jsonl"):
        records = [json.loads(line) for line in f.read_text().splitlines()]
        uses = {b["id"]: b for r in records for b in ((r.get("message") or {}).get("content") or [])
                if isinstance(b, dict) and b.get("type") == "tool_use"}
        for r in records:
            for b in ((r.get("message") or {}).get("content") or []):
                if isinstance(b, dict) and b.get("type") == "tool_result" and uses.get(b["tool_use_id"], {}).get(
                        "input", {}).get("command", "").startswith("cat ") and "SKILL.md" in json.dumps(
                        uses[b["tool_use_id"]]["input"]):
                    cats.append(json.dumps(b.get("content")))
    assert len(cats) == 1 and "No such file or directory" in cats[0], cats
    assert json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())["incomplete"] is False
