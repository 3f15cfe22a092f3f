"""The interactive session, as users run it: the real CLI in a terminal (tmux), default permission mode.

``realcli/interactive.py`` starts ``claude --permission-mode default`` in a
tmux pane, types ``/benchmark-skill greet`` and answers every permission
dialog as a user would (the first option, "Yes"; for benchcore's own
commands "Yes, and don't ask again"), counting them. The scripted model
follows SKILL.md; arms read their world (and the with-skill arm its copy of
the skill) and answer in their final message, as a review or a
commit-message task does.

What a user meets is checked: a final verdict on the Workflow path and on
the Agent-tool path; no dialog from inside a fan-out (none per cell); the
dialogs that remain are the first ``benchcore plan`` and Claude Code's
confirmation before each workflow; no baseline transcript holds the user's
command or the skill's name. Skipped without the CLI or tmux;
``BENCH_REQUIRE_REALCLI=1`` (CI) turns the skip into a failure.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


from brain import Scenario  # noqa: E402
from measure import orchestration_bytes  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli("tmux")

from interactive import InteractiveRig  # noqa: E402

LOOK = ["ls {world}", "cat {world}/README.md"]


def baseline_openings(rig: Rig, run: Path) -> list[str]:
    """Everything each baseline arm was told before it answered: its transcript's user records."""
    out = []
    for t in sorted((run / "cases").glob("*/t*/baseline/transcript.jsonl")):
        text = []
        for line in t.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("type") == "user":
                text.append(json.dumps(rec["message"]["content"]))
        out.append("\n".join(text))
    return out


def baseline_requests(log: Path) -> list[str]:
    """Every request Claude Code sent the model for a baseline arm (the prompt names no skill copy)."""
    out = []
    for line in log.read_text().splitlines():
        body = json.loads(line)["body"]
        first = " ".join(json.dumps(m) for m in body["messages"][:3])
        if "Your working directory for this task is" in first and "Use the skill at" not in first:
            out.append(json.dumps(body))
    return out


@pytest.mark.parametrize("path", ["workflow", "agent-tool"])
def test_an_interactive_run_in_default_mode_asks_nothing_per_cell(tmp_path, path):
    workflow = path == "workflow"
    rig = Rig(tmp_path, edited=workflow, cases=1, answer_only=True)
    # The orchestrator takes 2 s a response, as a model does: Claude Code applies a change to a settings file
    # that existed at start a moment after plan wrote it (measured: with no pause, the first arms launched
    # at once still asked; with 3 s, none did).
    scenario = Scenario(use_workflow=workflow, arm_commands=LOOK, output=lambda cid, world: "Hello, reader!",
                        think=2.0)
    session = InteractiveRig(rig).run(scenario, "/benchmark-skill greet", timeout=600,
                                      extra_args=() if workflow else ("--disallowedTools", "Workflow"),
                                      log_requests=str(tmp_path / "requests.jsonl"))
    [run] = rig.runs()
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False
    assert results["verdicts"]["efficacy"]["status"] == "pass"
    if workflow:
        assert results["shape"] == "three-arm" and results["verdicts"]["regression"]["status"] == "pass"
    cells = len(json.loads((run / "plan.json").read_text())["cells"])
    # No dialog from inside a fan-out: none per cell.
    titles = [f"{d.title} | {d.subject}" for d in session.dialogs]
    assert not [t for t in titles if "workflow" in t.split("|")[0] and "Workflow(" not in t], titles
    # What remains: the first benchcore command (plan adds the rules for the others) and Claude Code's
    # confirmation before each workflow.
    bench = [d for d in session.dialogs if "scripts/benchcore" in d.screen.split("Do you want")[0][-600:]]
    workflows = [d for d in session.dialogs if "dynamic workflow" in d.question]
    assert len(bench) == 1 and "plan" in bench[0].answer, titles
    assert len(session.dialogs) == len(bench) + len(workflows), titles
    assert len(workflows) == (2 if workflow else 0)
    # No baseline was told the user's command or the skill's name: not in its transcript, and not in anything
    # Claude Code sent the model for it (system prompt and reminders included).
    for opening in baseline_openings(rig, run):
        assert "/benchmark-skill" not in opening and "greet" not in opening.lower()
    requests = baseline_requests(tmp_path / "requests.jsonl")
    assert requests and not [r for r in requests if "greet" in r.lower() or "/benchmark-skill" in r]
    cost = orchestration_bytes(tmp_path / "requests.jsonl")
    print(f"\ninteractive {path}: {cells} cells, {len(session.dialogs)} dialogs ({len(bench)} benchcore, "
          f"{len(workflows)} workflow), {session.seconds:.0f} s; orchestration {cost}")
