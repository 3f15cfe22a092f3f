"""The session that launched the arms is closed mid-run; the command typed in a new session finishes the run with
the scripted model following only what benchcore printed (issue 39, item 2). The real CLI in tmux.

Bug: the new session's plan gave a next: line the model had to guess from ("if the arms are still running, wait
...; if they have finished, run collect --rerun ..."); guessing "still running" waited forever. Claude Code
removes the closed session's ``sessions/<pid>.json``, so plan knows it ended and names one step: re-run what it
cut off. Skipped without the CLI or tmux; ``BENCH_REQUIRE_REALCLI=1`` (CI) turns the skip into a failure.
"""

from __future__ import annotations

import json
import threading
import time

from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli("tmux")

from interactive import QUESTION_RE, InteractiveRig, _tmux  # noqa: E402
from test_realcli_resume import _tool_results  # noqa: E402

COMMAND = "/benchmark-skill greet"


class CloseMidArms(InteractiveRig):
    """Drives the first session until the two arms of trial 5 are held mid-way (their first request unanswered)
    and the other eight have ended, then closes the terminal, as a user quitting Claude Code does."""

    def __init__(self, rig, held: set, release: threading.Event):
        super().__init__(rig, mode="bypassPermissions")
        self.held, self.release = held, release

    def _drive(self, brain, session, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            s = self.visible()
            q = QUESTION_RE.search(s)
            if q:
                self._answer(s, q, session)
                time.sleep(0.8)
                continue
            finished = len(list(self.rig.repo.glob("tests/.reports/runs/*/plan.json")))
            if len(self.held) >= 2 and finished and self._arms_done() >= 8:
                time.sleep(2.0)
                _tmux("kill-session", "-t", self.name, check=False)  # the terminal closed: Claude Code ends
                time.sleep(3.0)
                self.release.set()
                return
            time.sleep(0.4)
        self.release.set()
        raise TimeoutError(f"the arms were not held as planned; screen:\n{self.visible()}")

    def _arms_done(self) -> int:
        """Arm transcripts (under the session's folder) that end with a final message."""
        done = 0
        for f in (self.rig.home / ".claude/projects").rglob("agent-*.jsonl"):
            lines = f.read_text(errors="replace").splitlines()
            if lines and '"stop_reason":"end_turn"' in lines[-1].replace(" ", "") and "Your working directory" in lines[0]:
                done += 1
        return done


def test_a_closed_launching_session_gets_one_next_step_and_the_run_finishes(tmp_path):
    rig = Rig(tmp_path, edited=False, cases=1)  # one case, two arms: 10 cells
    held: set = set()
    release = threading.Event()

    def hold_trial_5(cid: str, step: int, world: str) -> None:
        if "/t5/" in cid:
            held.add(cid)
            release.wait(600)

    first = CloseMidArms(rig, held, release)
    started = time.monotonic()
    first.run(Scenario(on_step=hold_trial_5), COMMAND, timeout=600)
    closed_after = time.monotonic() - started
    [run] = rig.runs()
    assert not list((rig.home / ".claude/sessions").glob("*.json")), "the closed session left its session file"

    log = tmp_path / "requests.jsonl"
    second = InteractiveRig(rig, mode="bypassPermissions")
    session = second.run(Scenario(), COMMAND, timeout=900, log_requests=str(log))
    assert rig.runs() == [run], "a second run was planned instead of resuming"
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False and results["run_id"] == run.name, session.screen[-3000:]
    said = _tool_results(log)
    [resumed] = [t for t in said if "resuming run" in t]
    assert "has ended, and its arms with it: 2 cells stopped before their final message" in resumed, resumed
    assert "next: run: benchcore collect " in resumed and "--rerun (the session that launched the arms has ended" \
        in resumed and "if the arms are still running" not in resumed
    cells = json.loads((run / "plan.json").read_text())["cells"]
    assert sorted(c["id"].split("/")[1] for c in cells if c.get("attempt", 1) == 2) == ["t5"] * 2
    print(f"\nclosed mid-arms after {closed_after:.0f} s, resumed in a new session and finished in "
          f"{session.seconds:.0f} s ({len(said)} tool results)")
