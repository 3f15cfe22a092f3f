"""Issue 37.7 on the real Claude Code CLI, in a terminal (tmux), in auto mode: what decides an arm's Bash call.

Auto mode asks a safety check on Anthropic's server about each tool call; the scripted server answers it
(``server.MessagesServer(classifier=...)``) as the API does, in the response's ``safeguard_results``.

1. What a ``PreToolUse`` hook's answer does in auto mode when it carries ``updatedInput`` and no
   ``permissionDecision`` (a plain session, a hook of the test's own): Claude Code refuses the call, whether
   the check passed or flagged it ("The server-side auto mode classifier gave no verdict for Bash: a hook
   changed this call's input after auto mode reviewed it"), with no dialog. So the guard cannot send an arm's
   sandboxed command through the check: it must decide it.
2. The benchmark's choice: the guard allows every arm's Bash call inside the arm's OS sandbox, so the sandbox
   replaces the per-call check for arms, in auto mode as in every mode. With the check flagging every
   ``sed -i``, each arm's ``sed -i`` runs in its sandbox, every trial is valid, and the report's environment
   card says the sandbox replaced the check.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from brain import Scenario  # noqa: E402
from rig import Rig, case_md, git, require_cli  # noqa: E402
from server import Reply, Text, ToolUse  # noqa: E402

require_cli("tmux")

from interactive import QUESTION_RE, InteractiveRig, Session  # noqa: E402

HOOK = r'''import json, sys
d = json.load(sys.stdin)
cmd = (d.get("tool_input") or {}).get("command", "")
if d.get("tool_name") == "Bash" and "ORIGINAL" in cmd:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                      "updatedInput": dict(d["tool_input"], command=cmd.replace("ORIGINAL", "REWRITTEN"))}}))
'''


def test_a_hooks_updated_input_without_a_decision_in_auto_mode(tmp_path):
    rig = Rig(tmp_path, edited=False, cases=1)
    hook = tmp_path / "hook.py"
    hook.write_text(HOOK)
    settings = rig.repo / ".claude/settings.local.json"
    data = json.loads(settings.read_text()) if settings.is_file() else {}
    data.setdefault("hooks", {})["PreToolUse"] = [{"matcher": "*", "hooks": [
        {"type": "command", "command": f"{sys.executable} {hook}"}]}]
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps(data))
    calls = [f"printf ORIGINAL > {rig.repo}/passed.txt", f"printf ORIGINAL > {rig.repo}/flagged.txt"]
    seen: list[str] = []
    done = {"finished": False}

    def brain(body: dict) -> Reply:
        if not body.get("tools"):
            return Reply([Text("OK.")], who="aux")
        results = [b for m in body.get("messages", []) if m.get("role") == "user" and isinstance(m.get("content"), list)
                   for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
        seen[:] = [json.dumps(b.get("content"))[:400] for b in results]
        if len(results) < len(calls):
            return Reply([ToolUse("Bash", {"command": calls[len(results)], "description": "probe"})],
                         who="orchestrator")
        done["finished"] = True
        return Reply([Text("Done.")], who="orchestrator")

    term = InteractiveRig(rig, mode="auto",
                          classifier=lambda name, data: "flagged" if "flagged.txt" in str(data) else "not_flagged")
    session = Session()
    with term._session(brain) as srv:
        term._type("Run the two probe commands.")
        end = time.monotonic() + 180
        while time.monotonic() < end and not done["finished"]:
            screen = term.visible()
            q = QUESTION_RE.search(screen)
            if q:
                term._answer(screen, q, session)
            time.sleep(0.5)
        time.sleep(2)
        checked = list(srv.classified)
    assert done["finished"], term.capture()[-3000:]
    passed = (rig.repo / "passed.txt").read_text() if (rig.repo / "passed.txt").exists() else None
    flagged = (rig.repo / "flagged.txt").read_text() if (rig.repo / "flagged.txt").exists() else None
    print(f"\nauto mode, a hook answering updatedInput with no permissionDecision: the call the check passed wrote "
          f"{passed!r}; the call it flagged wrote {flagged!r}; dialogs {[d.title for d in session.dialogs]}; "
          f"results {seen}; checked {[(n, o) for _, n, o in checked]}")
    # The measurement the guard's choice rests on: auto mode's check reviews the call as the model wrote it, so
    # a hook that changes the input without deciding gets no verdict: the call is refused, whatever the check
    # said, with no dialog. Only "allow" runs a rewritten (sandboxed) command in auto mode.
    assert [o for _, n, o in checked if n == "Bash"] == ["not_flagged", "flagged"]
    assert passed is None and flagged is None and not session.dialogs
    assert len(seen) == 2 and all("a hook changed this call's input after auto mode reviewed it" in r
                                  for r in seen), seen


SETUP = r"printf 'def add(a, b):\n    return a - b\n' > calc.py"
WORK = ["cd {world} && sed -i 's/a - b/a + b/' calc.py && printf %s 'Hello, reader!' > greeting.txt"]


def test_in_auto_mode_the_sandbox_replaces_the_per_call_check_for_arms(tmp_path):
    rig = Rig(tmp_path, edited=False, cases=1)
    case = rig.repo / "tests/text/greet/01-hello-1/case.md"
    text = case_md("Fix calc.add, and write a greeting into greeting.txt.", 'grep -q "a + b" "$WORLD/calc.py"')
    case.write_text(text.replace("---\n\n", f"setup: {SETUP}\n---\n\n", 1))
    (case.parent / "samples/good/world/calc.py").write_text("def add(a, b):\n    return a + b\n")
    env = dict(__import__("os").environ, **rig.env)
    git(rig.repo, "add", "-A", env=env)
    git(rig.repo, "commit", "-qam", "a case that edits code", env=env)
    flags = lambda name, data: "flagged" if name == "Bash" and "sed -i" in str(data.get("command")) else "not_flagged"
    session = InteractiveRig(rig, mode="auto", classifier=flags).run(Scenario(arm_commands=WORK),
                                                                       "/benchmark-skill greet", timeout=600)
    [run] = rig.runs()
    plan = json.loads((run / "plan.json").read_text())
    flagged = [c for c in session.server.classified if c[2] == "flagged"]
    # Every arm's sed -i was flagged by the check, and ran all the same, in the arm's sandbox, with no dialog.
    assert len(flagged) == len(plan["cells"]), (flagged, session.server.classified)
    ran = 0
    for f in (rig.home / ".claude/projects").rglob("subagents/**/agent-*.jsonl"):
        records = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        hooks = {r["attachment"]["toolUseID"]: json.loads(r["attachment"]["stdout"])["hookSpecificOutput"]
                 for r in records if (r.get("attachment") or {}).get("hookName") == "PreToolUse:Bash"}
        uses = {b["id"]: b for r in records for b in ((r.get("message") or {}).get("content") or [])
                if isinstance(b, dict) and b.get("type") == "tool_use"}
        for r in records:
            for b in ((r.get("message") or {}).get("content") or []):
                if isinstance(b, dict) and b.get("type") == "tool_result" and "sed -i" in json.dumps(
                        uses.get(b["tool_use_id"], {}).get("input")):
                    assert not b.get("is_error"), b
                    assert hooks[b["tool_use_id"]]["permissionDecision"] == "allow"
                    ran += 1
    assert ran == len(flagged)
    assert [d for d in session.dialogs if "dynamic workflow" not in d.question] == [], session.titles()
    collect = json.loads((run / "collect.json").read_text())
    assert collect["invalid_trials"] == []
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False and results["sandboxed"] is True
    page = next((rig.repo / "tests/.reports").glob("greet*.html")).read_text()
    assert "replaces your permission mode&#39;s per-call check" in page or \
        "replaces your permission mode's per-call check" in page
    print(f"\nauto mode: {len(flagged)} arm calls flagged by the check, {ran} ran in their sandboxes; "
          f"{len(session.dialogs)} dialog(s): {session.titles()}")
