"""End to end with the stand-in: the environment card in results.json and in the report, from the transcripts.

The stand-in opens every agent as Claude Code 2.1.328 did in a session that shared its environment
(fixtures/transcripts/real-2.1.328-env/: CLAUDE.md files, a SubagentStart hook, an MCP tool, git status
naming the edited skill); the repository's own settings add a hook and an MCP server. collect writes
environment.json; render puts the card in results.json and in the page's Environment section.
"""

from __future__ import annotations

import html
import json
import shutil

from standin.agent import Script
from test_e2e_benchmark import GREET, bench, greet_files, next_script  # noqa: F401 (bench is a fixture)

SKILL_PATH = f"skills/{GREET}"


def run_to_render(bench, script: Script, *plan_args: str) -> dict:
    rc, out, _ = bench.plan("greet", "--seed", "9", *plan_args)
    assert rc == 0, out
    [run_dir] = bench.runs()
    bench.arms(next_script(out), script)
    rc, out, _ = bench.run("collect", str(run_dir))
    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0, out
    rc, out, _ = bench.run("render", str(run_dir))
    assert rc == 0, out
    return json.loads((run_dir / "environment.json").read_text())


def test_card_from_transcripts_and_settings_reaches_results_and_report(bench):
    # The arms run as the default type: the benchmark's agent types removed, and plan told to go on without them.
    shutil.rmtree(bench.repo / ".claude/agents")
    (bench.repo / ".claude/settings.json").write_text(json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "notify-send <done>"}]}]}}))
    evidence = run_to_render(bench, Script(files=greet_files(), environment=SKILL_PATH), "--default-agent-type")
    # collect's evidence: one entry per collected arm cell, read from its copied transcript.
    assert len(evidence["cells"]) == 30
    assert {c["versions"][0] for c in evidence["cells"]} == {"2.1.328"}
    settings = {s["path"]: s for s in evidence["settings"]}
    assert settings[".claude/settings.json"]["hooks"] == ["Stop: notify-send <done>"]

    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    lines = {l["key"]: l for l in results["environment"]["lines"]}
    assert lines["cli_version"]["value"] == "2.1.328"
    assert lines["cli_version"]["source"] == "transcripts: 30 of 30 cells"
    assert lines["model"]["value"] == "claude-opus-5-5" and lines["effort"]["value"] == "medium"
    # The stand-in's arms are general-purpose and workflow-subagent (no sealed type installed): each
    # was given the user's and the project's CLAUDE.md.
    assert lines["claude_md"]["status"] == "shared"
    assert lines["claude_md"]["value"].startswith("loaded: Project: ")
    assert "the baseline ran as general-purpose, workflow-subagent, not the benchmark's agent type (so with the " \
           "Skill tool and CLAUDE.md)" in results["caveats"]
    # The guard's answer to each arm's Bash call is recorded beside it (the run is sandboxed), as on the real CLI.
    assert lines["hooks"]["value"] == ("each arm: the benchmark's guard in 10 of 10 cells, "
                                       "others: SubagentStart: echo SUBAGENT-START-HOOK")
    assert lines["hooks_configured"]["value"] == "Stop: notify-send <done> (.claude/settings.json)"
    assert lines["mcp_tools"]["value"] == "mcp__probe__lookup" and lines["mcp_tools"]["status"] == "shared"
    assert lines["git_status"]["value"].endswith(f"naming the edited skill ({SKILL_PATH}/SKILL.md)")
    assert lines["git_status"]["status"] == "shared"
    assert lines["skills"]["status"] == "shared" and "dataviz" in lines["skills"]["value"]

    page = (bench.repo / "tests/.reports/greet.html").read_text()
    section = page[page.index('<section class="environment"'):page.index('<section class="cases"')]
    assert "Environment" in section and "6 facts shared with the session" in section
    assert section.count('class="env-shared"') == 6 and "transcripts: 30 of 30 cells" in section
    assert html.escape("notify-send <done>") in section and "notify-send <done>" not in section  # escaped
    assert page.index('<section class="cost"') < page.index('<section class="environment"')


def test_sealed_environment_reads_sealed(bench):
    evidence = run_to_render(bench, Script(files=greet_files()))
    assert len(evidence["cells"]) == 30
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    lines = {l["key"]: l for l in results["environment"]["lines"]}
    # The plain capture's session had no CLAUDE.md, no hooks, no MCP server and a clean tree.
    assert (lines["claude_md"]["value"], lines["claude_md"]["status"]) == ("omitted", "sealed")
    # Only the benchmark's guard, whose answer to each arm's Bash call is recorded (the run is sandboxed).
    assert (lines["hooks"]["value"], lines["mcp_tools"]["value"]) == (
        "each arm: the benchmark's guard in 10 of 10 cells, no others", "none")
    assert lines["hooks"]["status"] == "sealed"
    assert lines["sandbox"]["value"].startswith("bubblewrap (") and lines["sandbox"]["status"] == "sealed"
    assert lines["sandbox"]["value"].endswith("it replaces your permission mode's per-call check for the arms' "
                                              "commands (auto mode's safety check included)")
    assert lines["git_status"]["value"] == "in context: clean"
