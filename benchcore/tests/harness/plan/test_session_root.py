"""plan reads where the session was started (its transcript's cwd) and, when that is below the repository's root
(the Workflow tool could not read the run's scripts), stops before anything is built (issue 39, item 1)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from test_e2e_benchmark import bench  # noqa: F401 - bench is a fixture


def _session(bench, cwd: Path) -> None:
    """The session's transcript as Claude Code writes it: every record carries the folder it was started in."""
    sid = "5e551011-0000-4000-8000-00000000c0de"
    os.environ["CLAUDE_CODE_SESSION_ID"] = sid
    folder = bench.config / "projects" / re.sub(r"[^A-Za-z0-9-]", "-", str(cwd.resolve()))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.jsonl").write_text(json.dumps({"type": "user", "cwd": str(cwd), "sessionId": sid,
                                                     "message": {"role": "user", "content": "/benchmark-skill greet"}})
                                         + "\n")


@pytest.fixture(autouse=True)
def _no_session_left():
    yield
    os.environ.pop("CLAUDE_CODE_SESSION_ID", None)


def test_a_session_started_in_a_subfolder_stops_plan_before_anything_is_built(bench):
    # Bug: plan succeeded, the Workflow tool then refused its script, and the unfinished run needed
    # 'clean --stale --older-than 0'.
    sub = bench.repo / "tests/git/greet"
    _session(bench, sub)
    rc, out, err = bench.plan("greet", "--seed", "1", "--invoked-as", "/benchmark-skill")
    assert rc == 2, out
    assert f"Claude Code was started in {sub.resolve()}, inside the repository {bench.repo.resolve()} but not at its " \
           "root" in err
    assert "nothing was planned, so there is nothing to clean" in err
    assert f"fix: exit Claude Code, start it at the repository root (cd {bench.repo.resolve()} && claude) and type " \
           "/benchmark-skill greet again" in err
    assert not (bench.repo / "tests/.reports").exists()
    assert not (bench.repo / ".claude/settings.local.json").exists() or "benchcore" not in \
        (bench.repo / ".claude/settings.local.json").read_text()


def test_a_session_at_the_root_or_above_it_plans_as_usual(bench):
    for where in (bench.repo, bench.repo.parent):
        _session(bench, where)
        rc, out, err = bench.plan("greet", "--seed", "1", "--fresh")
        assert rc == 0, err
