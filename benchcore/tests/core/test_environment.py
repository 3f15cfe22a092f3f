"""The environment card: evidence read from real 2.1.328 arm transcripts, and the card's lines from evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcore import serde
from benchcore.environment import SEALED, SHARED, CellEvidence, EnvironmentEvidence, SessionEvidence, SettingsFile, cell_evidence, environment_card, session_evidence
from benchcore.harness.collect.environment import settings_file
from benchcore.harness.claude.transcript import read_records
from places import TESTS

ENV = TESTS / "fixtures" / "transcripts" / "real-2.1.328-env"
HOOKS = ('PostToolUse: echo {\\"hookSpecificOutput\\": {\\"hookEventName\\": \\"PostToolUse\\", '
         '\\"additionalContext\\": \\"POST-HOOK-CONTEXT\\"}}',
         "PreToolUse: echo USER-PRE-HOOK", "SubagentStart: echo SUBAGENT-START-HOOK")
BUILTIN_SKILLS = ("claude-api", "code-review", "dataviz", "fewer-permission-prompts", "init", "keybindings-help",
                  "loop", "plugin-authoring", "run", "security-review", "simplify", "update-config",
                  "workflow-authoring")
GIT = " M skills/text/greet/SKILL.md\n?? .mcp.json\n?? CLAUDE.md"


def real(name: str, arm: str) -> CellEvidence:
    meta = json.loads((ENV / "agents" / f"{name}.meta.json").read_text())
    return cell_evidence(f"01-hello-1/t1/{arm}", arm, meta["agentType"], read_records(ENV / "agents" / f"{name}.jsonl"))


@pytest.mark.parametrize("name, arm, expected", [
    ("new", "new", dict(agent_type="workflow-subagent", permission_modes=("bypassPermissions",),
                        claude_md=("Project: /rig/repo/CLAUDE.md", "User: /rig/home/.claude/CLAUDE.md"),
                        hooks=HOOKS, mcp_tools=("mcp__probe__lookup",), skills=BUILTIN_SKILLS)),
    ("baseline", "baseline", dict(agent_type="bench-baseline", permission_modes=("bypassPermissions",),
                                  claude_md=(), hooks=HOOKS, mcp_tools=("mcp__probe__lookup",), skills=())),
    # The judge makes one request: no auto_mode attachment, no deferred tools; the hooks still ran for it.
    ("judge", "judge", dict(agent_type="bench-judge", permission_modes=(), claude_md=(),
                            hooks=(HOOKS[0], "PreToolUse: echo USER-PRE-HOOK", "SubagentStart: echo SUBAGENT-START-HOOK"),
                            mcp_tools=(), skills=())),
])
def test_evidence_from_real_transcripts(name, arm, expected):
    ev = real(name, arm)
    assert ev.versions == ("2.1.328",) and ev.models == ("claude-opus-5-5",) and ev.efforts == ("medium",)
    assert ev.git_status == GIT  # every agent type is shown the repository's git status
    for field, value in expected.items():
        assert getattr(ev, field) == value, field


def att(kind: str, **fields) -> dict:
    return {"type": "attachment", "attachment": {"type": kind, **fields}}


@pytest.mark.parametrize("records, field, value", [
    ([{"type": "user", "permissionMode": "default", "version": "2.1.400"}], "permission_modes", ("default",)),
    ([{"type": "user", "version": "2.1.400"}], "versions", ("2.1.400",)),
    ([{"type": "assistant", "message": {"model": "<synthetic>"}}], "models", ()),
    ([{"type": "api-request", "params": {"model": "m"}}], "efforts", ()),
    ([{"type": "api-request", "params": {"output_config": {"effort": "high"}}}], "efforts", ("high",)),
    ([{"type": "api-request-shape", "shape": {"tools": [{"name": "Bash"}, {"name": "mcp__db__query"}]}}],
     "mcp_tools", ("mcp__db__query",)),
    ([att("deferred_tools_delta", addedNames=["WebFetch", "mcp__x__y"])], "mcp_tools", ("mcp__x__y",)),
    ([att("auto_mode", bypass=False)], "permission_modes", ()),
    # An additionalContext record alone names only its event; beside the hook's own record it adds nothing.
    ([att("hook_additional_context", hookEvent="PostToolUse")], "hooks", ("PostToolUse",)),
    ([att("hook_success", hookEvent="PostToolUse", command="x"), att("hook_additional_context", hookEvent="PostToolUse")],
     "hooks", ("PostToolUse: x",)),
    ([att("session_context", context={"gitStatus": "Current branch: main\n\nStatus:\n(clean)\n\nRecent commits:\nabc x"})],
     "git_status", "(clean)"),
    ([att("session_context", context={})], "git_status", None),
    ([att("instructions", files=[{"type": "User", "path": "/h/.claude/CLAUDE.md", "content": "x"}])],
     "claude_md", ("User: /h/.claude/CLAUDE.md",)),
    ([att("skill_listing", names=["a", "b"])], "skills", ("a", "b")),
])
def test_evidence_from_records(records, field, value):
    assert getattr(cell_evidence("c/t1/new", "new", None, iter(records)), field) == value


def ev(arm: str, n: int = 1, **fields) -> CellEvidence:
    base = dict(versions=("2.1.328",), models=("claude-opus-5-5",), efforts=("medium",))
    return CellEvidence(cell=f"c/t{n}/{arm}", arm=arm, agent_type="bench-arm", **{**base, **fields})


SEALED_ARMS = [ev("new"), ev("new", 2), ev("baseline"), ev("baseline", 2)]
ARMS2 = ("new", "baseline")


@pytest.mark.parametrize("cells, settings, key, value, source, status", [
    (SEALED_ARMS, (), "cli_version", "2.1.328", "transcripts: 4 of 4 cells", "info"),
    (SEALED_ARMS, (), "model", "claude-opus-5-5", "transcripts: 4 of 4 cells", "info"),
    ([ev("new", models=("claude-sonnet-4-6",)), ev("baseline")], (), "model",
     "new: claude-sonnet-4-6; baseline: claude-opus-5-5", "transcripts: 2 of 2 cells", "info"),
    ([ev("new", efforts=()), ev("baseline")], (), "effort", "new: not recorded; baseline: medium",
     "transcripts: 1 of 2 cells", "info"),
    (SEALED_ARMS, (), "claude_md", "omitted", "transcripts: 0 of 4 cells", SEALED),
    ([ev("new", claude_md=("User: ~/.claude/CLAUDE.md",)), ev("new", 2), ev("baseline")], (), "claude_md",
     "new: loaded: User: ~/.claude/CLAUDE.md (in 1 of 2); baseline: omitted", "transcripts: 1 of 3 cells", SHARED),
    # The permission mode: the transcripts first; where they hold none, the settings' default, said so; each in
    # Claude Code's own words for it (issue 39, item 9: "default" is what Claude Code shows as "manual mode").
    ([ev("new", permission_modes=("bypassPermissions",)), ev("baseline", permission_modes=("bypassPermissions",))],
     (SettingsFile(".claude/settings.json", default_mode="default"),), "permission_mode", "bypass permissions mode",
     "transcripts: 2 of 2 cells", "info"),
    (SEALED_ARMS, (SettingsFile(".claude/settings.local.json"), SettingsFile("~/.claude/settings.json", default_mode="acceptEdits")),
     "permission_mode", "accept edits mode (the settings' default; the transcripts do not record it)",
     "settings: ~/.claude/settings.json", "info"),
    (SEALED_ARMS, (), "permission_mode", "not recorded", "transcripts: 0 of 4 cells", "info"),
    # Where no arm transcript records it, the orchestrating session's own records do (before the settings).
    ([ev("new", session="s1"), ev("baseline", session="s1")],
     (SessionEvidence("s1", ("default",)), SettingsFile("~/.claude/settings.json", default_mode="acceptEdits")),
     "permission_mode", "manual mode (the orchestrating session's; the arm transcripts do not record it)",
     "session transcripts: 1 of 1", "info"),
    # Hooks: the benchmark's guard is told apart from the user's.
    ([ev("new", hooks=("PreToolUse: benchcore guard",)), ev("baseline", hooks=("PreToolUse: benchcore guard",))], (),
     "hooks", "each arm: the benchmark's guard in 1 of 1 cell, no others", "transcripts: 2 of 2 cells", SEALED),
    ([ev("new", hooks=("PreToolUse: /x/scripts/benchcore guard", "PostToolUse: lint")), ev("baseline")], (), "hooks",
     "new: the benchmark's guard in 1 of 1 cell, others: PostToolUse: lint; baseline: none recorded",
     "transcripts: 1 of 2 cells", SHARED),
    (SEALED_ARMS, (SettingsFile(".claude/settings.json", hooks=("PreToolUse: benchcore guard", "Stop: say done")),),
     "hooks_configured", "Stop: say done (.claude/settings.json)", "settings: .claude/settings.json", SHARED),
    (SEALED_ARMS, (SettingsFile(".claude/settings.json", hooks=("PreToolUse: benchcore guard",)),),
     "hooks_configured", "only the benchmark's guard", "settings: .claude/settings.json", SEALED),
    (SEALED_ARMS, (SettingsFile(".claude/settings.json"),), "hooks_configured", "none",
     "settings: .claude/settings.json", SEALED),
    (SEALED_ARMS, (), "mcp_tools", "none", "transcripts: 0 of 4 cells", SEALED),
    ([ev("new", mcp_tools=("mcp__db__query",)), ev("baseline")],
     (SettingsFile(".claude/settings.local.json", mcp_servers=("db",)),), "mcp_tools",
     "new: mcp__db__query; baseline: none; servers enabled in settings: db (.claude/settings.local.json)",
     "transcripts: 1 of 2 cells; settings: .claude/settings.local.json", SHARED),
    # Git status: absent when includeGitInstructions is false; on a three-arm run it names the edited skill.
    (SEALED_ARMS, (SettingsFile(".claude/settings.local.json", include_git_instructions=False),), "git_status",
     "not in context", "transcripts: 0 of 4 cells; settings: .claude/settings.local.json includeGitInstructions false",
     SEALED),
    ([ev("new", git_status=GIT), ev("baseline", git_status=GIT)], (), "git_status",
     "in context: .mcp.json, CLAUDE.md, skills/text/greet/SKILL.md, naming the edited skill (skills/text/greet/SKILL.md)",
     "transcripts: 2 of 2 cells", SHARED),
    ([ev("new", git_status="(clean)"), ev("baseline")], (), "git_status",
     "new: in context: clean; baseline: not in context", "transcripts: 1 of 2 cells", SHARED),
    (SEALED_ARMS, (), "skills", "none", "transcripts: 0 of 4 cells", SEALED),
    ([ev("new", skills=("dataviz",)), ev("baseline", skills=("dataviz", "greet"))], (), "skills",
     "new: dataviz; baseline: dataviz, greet (including greet itself)", "transcripts: 2 of 2 cells", SHARED),
])
def test_card_line(cells, settings, key, value, source, status):
    sessions = tuple(s for s in settings if isinstance(s, SessionEvidence))
    files = tuple(s for s in settings if isinstance(s, SettingsFile))
    card = environment_card(EnvironmentEvidence(cells=tuple(cells), settings=files, sessions=sessions), ARMS2,
                            "greet", "skills/text/greet")
    line = {l.key: l for l in card.lines}[key]
    assert (line.value, line.source, line.status) == (value, source, status)


def test_card_of_real_three_arm_transcripts_in_order():
    cells = (real("new", "new"), real("baseline", "baseline"))
    card = environment_card(EnvironmentEvidence(cells=cells), ("new", "baseline", "previous"), "greet", "skills/text/greet")
    assert [l.key for l in card.lines] == ["cli_version", "agent_type", "model", "effort", "permission_mode",
                                          "claude_md", "hooks", "mcp_tools", "git_status", "skills"]
    shared = {l.key for l in card.lines if l.status == SHARED}
    assert shared == {"claude_md", "hooks", "mcp_tools", "git_status", "skills"}


def test_session_evidence_and_session_of_a_real_cell():
    records = [{"type": "queue-operation"}, {"type": "user", "permissionMode": "default"},
               {"type": "user", "permissionMode": "acceptEdits"}, {"type": "assistant"}]
    assert session_evidence("s", iter(records)).permission_modes == ("acceptEdits", "default")
    assert real("new", "new").session == json.loads((ENV / "agents/new.jsonl").read_text().splitlines()[0])["sessionId"]


def test_no_evidence_no_card():
    assert environment_card(None, ARMS2, "greet", "skills/greet") is None
    assert environment_card(EnvironmentEvidence(cells=(ev("judge"),)), ARMS2, "greet", "skills/greet") is None


def test_environment_json_round_trips():
    evidence = EnvironmentEvidence(cells=(real("new", "new"),), settings=(SettingsFile(".claude/settings.json"),))
    assert serde.loads(EnvironmentEvidence, serde.dumps(evidence)) == evidence


@pytest.mark.parametrize("data, expected", [
    (json.loads((ENV / "project/.claude/settings.json").read_text()),
     dict(hooks=('PreToolUse: echo USER-PRE-HOOK', HOOKS[0], "SubagentStart: echo SUBAGENT-START-HOOK",
                 "SessionStart: echo SESSION-START-HOOK-CONTEXT", "UserPromptSubmit: echo PROMPT-HOOK-CONTEXT"))),
    (json.loads((ENV / "project/.claude/settings.local.json").read_text()), dict(mcp_servers=("probe",))),
    ({"permissions": {"defaultMode": "plan"}, "includeGitInstructions": False},
     dict(default_mode="plan", include_git_instructions=False)),
    ({"hooks": "not a mapping", "permissions": [], "enabledMcpjsonServers": "x"}, dict(hooks=(), mcp_servers=())),
])
def test_settings_file(data, expected):
    got = settings_file(".claude/settings.json", data)
    for field, value in expected.items():
        assert getattr(got, field) == value, field
