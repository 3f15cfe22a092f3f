"""The environment card on the real Claude Code CLI (realcli/CLI_VERSION), offline.

A three-arm run (the skill edited, not committed) in a project that shares its environment with the
arms: a user and a project CLAUDE.md, a user hook that prints, and no ``includeGitInstructions: false``,
so Claude Code's git status, which lists the edited SKILL.md, reaches every subagent. The card in
results.json must read, from the transcripts: the pinned CLI version, the model, the permission mode
(bypass, as the rig runs it), CLAUDE.md loaded for every arm (the project's copy of the arms' agent
type has lost its ``omitClaudeMd: true``, as a user's edit could do), the user's hook, and the git status
naming the edited skill. Without
bypass, the permission mode comes from the orchestrating session's transcript.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


from brain import Brain, Scenario  # noqa: E402
from rig import VERSION, Rig, cli_binary, require_cli  # noqa: E402
from server import MessagesServer  # noqa: E402

require_cli()

def test_card_reads_what_the_session_shared_with_each_arm(tmp_path):
    rig = Rig(tmp_path, edited=True, cases=1)
    (rig.repo / ".claude/settings.local.json").write_text("{}\n")  # git status reaches the arms
    (rig.repo / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "*", "hooks": [{"type": "command", "command": "echo USER-HOOK"}]}]}}) + "\n")
    (rig.home / ".claude").mkdir(exist_ok=True)
    (rig.home / ".claude/CLAUDE.md").write_text("USER-MARKER: keep answers short.\n")
    (rig.repo / "CLAUDE.md").write_text("PROJECT-MARKER: this repository holds skills.\n")
    # Every arm runs as bench-arm, which seals CLAUDE.md; the project's copy loses that line, so the card must
    # read from the transcripts that the session's CLAUDE.md files reached every arm.
    arm_type = rig.repo / ".claude/agents/bench-arm.md"
    assert "\nomitClaudeMd: true\n" in arm_type.read_text()
    arm_type.write_text(arm_type.read_text().replace("\nomitClaudeMd: true\n", "\n", 1))
    res = rig.run(Scenario(use_workflow=False), "/benchmark-skill greet", extra_args=("--disallowedTools", "Workflow"))
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    [run] = rig.runs()
    info = json.loads((run / "run.json").read_text())
    assert info["shape"] == "three-arm"
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    lines = {l["key"]: l for l in results["environment"]["lines"]}

    assert lines["cli_version"]["value"] == VERSION  # the CLI under test (rig.VERSION), whichever it is
    assert lines["cli_version"]["source"] == "transcripts: 15 of 15 cells"
    assert lines["model"]["value"] == "claude-opus-5-5"
    assert lines["permission_mode"]["value"] == "bypass permissions mode"  # Claude Code's own name for bypassPermissions
    assert lines["permission_mode"]["source"] == "transcripts: 15 of 15 cells"

    evidence = json.loads((run / "environment.json").read_text())
    assert {c["arm"] for c in evidence["cells"]} == {"new", "baseline", "previous"}
    for c in evidence["cells"]:
        assert c["agent_type"] == "bench-arm", c
        assert [f.split(":")[0] for f in c["claude_md"]] == ["Project", "User"], c
    assert lines["claude_md"]["status"] == "shared"
    assert lines["claude_md"]["value"].startswith("loaded: "), lines["claude_md"]
    assert lines["claude_md"]["source"] == "transcripts: 15 of 15 cells"

    assert "others: PreToolUse: echo USER-HOOK" in lines["hooks"]["value"]
    assert lines["hooks_configured"]["value"] == "PreToolUse: echo USER-HOOK (.claude/settings.json)"
    assert lines["git_status"]["status"] == "shared"
    assert lines["git_status"]["value"].endswith("naming the edited skill (skills/text/greet/SKILL.md)")
    assert lines["git_status"]["source"] == "transcripts: 15 of 15 cells"
    # Issue 26.3: plan read the git status from the session's own transcript before launch, and the verdict
    # carries the caveat (from the baseline's transcripts).
    assert info["baseline_sees"] == ["this session's git status, which Claude Code gives every subagent, names "
                                     "skills/text/greet/SKILL.md"], info.get("baseline_sees")
    assert results["caveats"][0] == "the baseline's git status named skills/text/greet/SKILL.md", results["caveats"]
    assert results["headline"].endswith(" Caveat: the baseline may have known of the skill: the baseline's git "
                                        "status named skills/text/greet/SKILL.md."), results["headline"]


def test_permission_mode_no_arm_records_comes_from_the_session(tmp_path):
    # Without bypass (acceptEdits, the arms' tools allowed), no arm record carries the mode and no auto_mode
    # attachment is written: only the orchestrating session's own prompt record says it.
    rig = Rig(tmp_path, edited=False, cases=1)
    with MessagesServer(Brain(rig.repo, Scenario(use_workflow=False))) as srv:
        p = subprocess.run([str(cli_binary()), "-p", "/benchmark-skill greet", "--output-format", "stream-json",
                            "--verbose", "--permission-mode", "acceptEdits", "--disallowedTools", "Workflow",
                            "--allowedTools", "Bash(*)", "Read", "Write", "Edit"],
                           cwd=rig.repo, env=dict(rig.env, ANTHROPIC_BASE_URL=srv.url), capture_output=True,
                           text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-2000:]
    [run] = rig.runs()
    evidence = json.loads((run / "environment.json").read_text())
    assert len(evidence["cells"]) == 10 and all(c["permission_modes"] == [] for c in evidence["cells"])
    assert [s["permission_modes"] for s in evidence["sessions"]] == [["acceptEdits"]]
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    lines = {l["key"]: l for l in results["environment"]["lines"]}
    assert lines["permission_mode"]["value"].startswith("accept edits mode (the orchestrating session's")
    assert lines["permission_mode"]["source"] == "session transcripts: 1 of 1"
    # The rig's settings.local.json says includeGitInstructions: false: no arm is shown git status.
    assert lines["git_status"]["value"] == "not in context" and lines["git_status"]["status"] == "sealed"


def test_hide_git_status_wins_over_the_projects_and_the_users_settings(tmp_path):
    # Issue 26.3: the one command plan offers writes includeGitInstructions: false to .claude/settings.local.json;
    # Claude Code reads the local project file over the shared project file and the user's, so the git status
    # stays out of every arm even when both of those say true.
    rig = Rig(tmp_path, edited=True, cases=1)
    (rig.repo / ".claude/settings.local.json").unlink()
    (rig.repo / ".claude/settings.json").write_text(json.dumps({"includeGitInstructions": True}) + "\n")
    (rig.home / ".claude").mkdir(exist_ok=True)
    (rig.home / ".claude/settings.json").write_text(json.dumps({"includeGitInstructions": True}) + "\n")
    wrapper = rig.repo / ".claude/skills/benchmark-skill/scripts/benchcore"
    p = subprocess.run([str(wrapper), "plan", "--hide-git-status", "--invoked-as", "/benchmark-skill"], cwd=rig.repo,
                       env=dict(rig.env), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "restart Claude Code" in p.stdout, p.stdout + p.stderr
    assert json.loads((rig.repo / ".claude/settings.local.json").read_text())["includeGitInstructions"] is False
    res = rig.run(Scenario(use_workflow=False), "/benchmark-skill greet", extra_args=("--disallowedTools", "Workflow"))
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    [run] = rig.runs()
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    lines = {l["key"]: l for l in results["environment"]["lines"]}
    assert lines["git_status"]["value"] == "not in context" and lines["git_status"]["status"] == "sealed", lines
    # Read from the arms' own transcripts: none of the 15 carried a git status.
    assert lines["git_status"]["source"].startswith("transcripts: 0 of 15 cells"), lines["git_status"]
    assert json.loads((run / "run.json").read_text()).get("baseline_sees") in (None, [])
    assert "Caveat" not in results["headline"], results["headline"]
    # The orchestrating session itself had no git status either (the setting is the session's).
    sessions = [f for f in (rig.home / ".claude/projects").glob("*/*.jsonl")]
    assert sessions and not any("gitStatus:" in f.read_text() for f in sessions)
