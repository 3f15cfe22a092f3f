"""A run resumed from a new session: benchcore knows whether the session that launched its arms has ended
(Claude Code removes its ``sessions/<pid>.json`` when it ends) and gives one next step (issue 39, item 2).

Bug: the next: line asked the model to guess ("if the arms are still running, wait ...; if they have finished, run
collect --rerun ..."); guessing "still running" waited forever."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from benchcore.harness.claude.live import live_sessions
from standin.agent import Script, session_id
from test_e2e_benchmark import CASE1, bench, greet_files, next_script  # noqa: F401 - bench is a fixture

SECOND = "22222222-bbbb-4bbb-8bbb-000000000002"


def _session_file(config: Path, sid: str, pid: int, proc_start: str | None = None) -> None:
    folder = config / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    record = {"pid": pid, "sessionId": sid, "cwd": "/x", "startedAt": 1796517162767, "kind": "interactive"}
    if proc_start is not None:
        record["procStart"] = proc_start
    (folder / f"{pid}.json").write_text(json.dumps(record))


def _my_start() -> str:
    return Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]


def test_live_sessions_are_those_whose_process_runs(tmp_path):
    assert live_sessions(tmp_path) is None  # no session files: nothing known
    _session_file(tmp_path, "alive", os.getpid(), _my_start())
    _session_file(tmp_path, SECOND, 2**22 + 12345)  # no such process
    _session_file(tmp_path, "reused", os.getppid(), "1")  # the pid runs, but another program started it
    assert set(live_sessions(tmp_path)) == {"alive"}


def _first(bench) -> str:
    """The session the stand-in launches the arms from (as Claude Code exports its id to plan's Bash)."""
    return session_id(bench.config, str(bench.repo))


def _cut_off_run(bench, monkeypatch):
    """A run planned and launched in the stand-in's session, one of whose arms stopped before its final message."""
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", _first(bench))
    _, out, _ = bench.plan("greet", "--seed", "9", resume=True)
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    world = next(c["world"] for c in bench.plan_json(run_dir)["cells"] if c["id"] == f"{CASE1}/t2/new")
    cut = next(p for p in (bench.config / "projects").rglob("*.jsonl") if world in p.read_text().splitlines()[0])
    cut.write_text(cut.read_text().splitlines()[0] + "\n")
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", SECOND)  # the user types the command in a new session
    return run_dir


def test_a_launching_session_that_ended_gets_one_next_step_rerun_what_was_cut_off(bench, monkeypatch):
    run_dir = _cut_off_run(bench, monkeypatch)
    old = time.time() - 600
    for p in (bench.config / "projects").rglob("*"):
        os.utime(p, (old, old))
    _session_file(bench.config, _first(bench), 2**22 + 12345)  # killed: its file names a process that is gone
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and bench.runs() == [run_dir]
    assert f"note: the session that launched the arms ({_first(bench)[:8]}, " in out
    assert "has ended, and its arms with it: 1 cell stopped before its final message" in out
    last = out.strip().splitlines()[-1]
    rel = run_dir.relative_to(bench.repo)
    assert last == (f"next: run: benchcore collect {rel} --rerun (the session that launched the arms has ended, so "
                    f"the 1 cell it cut off gets a fresh world), then launch the arms it names")
    assert "if the arms are still running" not in out


def test_a_launching_session_still_running_is_named_with_how_long_its_arms_have_run(bench, monkeypatch):
    run_dir = _cut_off_run(bench, monkeypatch)
    _session_file(bench.config, _first(bench), os.getpid(), _my_start())
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and bench.runs() == [run_dir]
    assert "is still running, and so are its arms: they have run for 0 min" in out
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"next: wait: the arms are still running in the session that launched them "
                           f"({_first(bench)[:8]}, for 0 min); let them finish there, then type /benchmark-skill "
                           "greet again here")


def test_without_session_files_the_two_cases_are_still_named(bench, monkeypatch):
    _cut_off_run(bench, monkeypatch)  # an older CLI, or a headless session: nothing is known, collect's step
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and out.strip().splitlines()[-1].startswith("next: if the arms are still running")
