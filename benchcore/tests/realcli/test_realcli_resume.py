"""A refused fan-out, then the command typed again: the real CLI in a terminal (tmux), default permission mode.

The user answers "No" to Claude Code's first "Run a dynamic workflow?" dialog (the arms), or cancels it with Esc. That ends the
orchestrator's turn at a bare prompt: the model gets no turn to fall back or to explain. What the user was told
before the dialog says how to go on, so they type ``/benchmark-skill greet`` again: ``benchcore plan`` finds the
unfinished run and continues it (no second run), the arms are launched once, and the run reaches its verdict.
Skipped without the CLI or tmux; ``BENCH_REQUIRE_REALCLI=1`` (CI) turns the skip into a failure.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest


from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli("tmux")

from interactive import OPTION_RE, Dialog, InteractiveRig, _tmux  # noqa: E402

COMMAND = "/benchmark-skill greet"
HINT = f"If a launch is refused or interrupted, type {COMMAND} again to continue this run."


class RefuseFirstWorkflow(InteractiveRig):
    """Answers the first workflow dialog "No" (or cancels it with Esc), waits for the bare prompt, then types the
    command again; every other dialog is answered as InteractiveRig does."""

    refused_at: float = 0.0
    screen_after_refusal: str = ""

    def __init__(self, rig, how: str = "no"):
        super().__init__(rig)
        self.how = how

    def run(self, scenario, command, **kw):
        self.command = command
        return super().run(scenario, command, **kw)

    def _answer(self, screen, q, session) -> None:
        if self.refused_at or "dynamic workflow" not in q.group(1):
            return super()._answer(screen, q, session)
        if self.how == "esc":
            session.dialogs.append(Dialog(q.group(1).strip(), "workflow", "", "Esc", screen))
            _tmux("send-keys", "-t", self.name, "Escape")
        else:
            options = OPTION_RE.findall(screen[q.end():])
            num, label = next(o for o in options if o[1].strip().startswith("No"))
            session.dialogs.append(Dialog(q.group(1).strip(), "workflow", "", label, screen))
            for _ in range(int(num) - 1):
                _tmux("send-keys", "-t", self.name, "Down")
                time.sleep(0.15)
            time.sleep(0.2)
            _tmux("send-keys", "-t", self.name, "Enter")
        self.refused_at = time.monotonic()
        # The turn ends: wait until the screen is still (no "esc to interrupt"), then type the command again.
        last, still = "", None
        end = time.monotonic() + 60
        while time.monotonic() < end:
            s = self.visible()
            if s == last and "esc to interrupt" not in s and not q.re.search(s):
                still = still or time.monotonic()
                if time.monotonic() - still > 3:
                    break
            else:
                still = None
            last = s
            time.sleep(0.4)
        self.screen_after_refusal = self.capture()
        _tmux("send-keys", "-t", self.name, "-l", self.command)
        time.sleep(0.5)
        _tmux("send-keys", "-t", self.name, "Enter")


def _tool_results(log: Path) -> list[str]:
    """The text of every tool result the orchestrator's requests carried, in order, once each."""
    seen, out = set(), []
    for line in log.read_text().splitlines():
        for m in json.loads(line)["body"]["messages"]:
            if m.get("role") != "user" or not isinstance(m.get("content"), list):
                continue
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") not in seen:
                    seen.add(b.get("tool_use_id"))
                    c = b.get("content")
                    out.append(c if isinstance(c, str) else " ".join(x.get("text", "") for x in c or []
                                                                      if isinstance(x, dict)))
    return out


@pytest.mark.parametrize("how", ["no", "esc"])
def test_refused_arms_workflow_then_the_command_again_continues_the_run_to_its_verdict(tmp_path, how):
    rig = Rig(tmp_path, edited=False, cases=1, answer_only=True)
    scenario = Scenario(use_workflow=True, arm_commands=["ls {world}"], output=lambda cid, world: "Hello, reader!",
                        think=2.0)
    driver = RefuseFirstWorkflow(rig, how)
    log = tmp_path / "requests.jsonl"
    session = driver.run(scenario, COMMAND, timeout=600, log_requests=str(log))

    assert driver.refused_at, "no workflow dialog was shown"
    assert (rig.repo / "tests/.reports/greet.results.json").is_file(), session.screen[-3000:]
    [run] = rig.runs()  # the same run, continued: no second run was planned
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False and results["verdicts"]["efficacy"]["status"] == "pass"
    assert results["run_id"] == run.name
    workflows = [d for d in session.dialogs if "dynamic workflow" in d.question]
    answers = [d.answer for d in workflows]
    assert answers[0].strip() == ("No" if how == "no" else "Esc") and "No" not in answers[1:], answers
    assert len(workflows) == 3, answers  # arms refused, arms again, judges

    results_seen = _tool_results(log)
    plans = [t for t in results_seen if "next: " in t and ("estimate:" in t or "resuming run" in t)]
    # What plan printed before the refused dialog already said how to go on; the second plan resumed.
    assert HINT in plans[0] and "resuming run" not in plans[0]
    cells = len(json.loads((run / "plan.json").read_text())["cells"])
    assert f"resuming run {run.name} (planned " in plans[1] and f"0 of {cells} cells collected" in plans[1]
    assert HINT in plans[1]
    # Every cell ran once: one arm transcript per cell.
    assert len(list(run.glob("cases/*/t*/*/transcript.jsonl"))) == cells
    shown = [line for line in driver.screen_after_refusal.splitlines() if line.strip()]
    assert "Dynamic workflow cancelled" in driver.screen_after_refusal, driver.screen_after_refusal[-2000:]
    print(f"\nresume after a workflow dialog answered {how}: {cells} cells, {len(session.dialogs)} dialogs ({answers}), "
          f"{session.seconds:.0f} s; the screen when the refusal ended the turn:\n" + "\n".join(shown[-12:]))
