"""Issue 12, the last reproductions of item 10 and items 7 and 8 made sure of: a named pipe among the
transcripts, transcript copies that must be byte-exact, concurrent collects on one run, the next: line of a
collect over several runs, a forged results.json beside the leaderboard, a plan stopped by SIGTERM, and a
render killed between its renames. Each is tried where a user meets it: exit codes, what is printed, the
files on disk, results.json and the pages."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from standin import repo as R
from standin.agent import Script
from test_attacks import small_repo
from test_e2e_benchmark import Bench, next_script

SRC = Path(__file__).resolve().parents[1] / "src"


def benchcore(tmp_path: Path, *argv: str, cwd: Path, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    """benchcore in its own process, as a user runs it (a hang fails the test at ``timeout``, not the suite)."""
    env = dict(os.environ, **R.env_for(tmp_path), PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-m", "benchcore", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, **kw)


def ran(tmp_path, monkeypatch) -> tuple[Bench, Path]:
    """The small two-arm run, planned and its arms run (ten cells, one case)."""
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 0, err
    [run_dir] = b.runs()
    b.arms(next_script(out), Script())
    return b, run_dir


def agent_files(b: Bench) -> list[Path]:
    return sorted((b.config / "projects").rglob("agent-*.jsonl"))


# ----------------------------------------------------------------------------- a named pipe is no transcript


def test_usage_on_a_named_pipe_exits_2_naming_it_without_waiting(tmp_path):
    fifo = tmp_path / "agent-x.jsonl"
    os.mkfifo(fifo)
    proc = benchcore(tmp_path, "usage", str(fifo), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{fifo}: is a named pipe, not a regular file" in proc.stderr and "fix:" in proc.stderr
    link = tmp_path / "link.jsonl"
    link.symlink_to(fifo)
    proc = benchcore(tmp_path, "usage", str(link), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and f"{link}: is a named pipe" in proc.stderr


def test_collect_skips_a_named_pipe_among_the_transcripts_and_names_it(tmp_path, monkeypatch):
    b, run_dir = ran(tmp_path, monkeypatch)
    subagents = agent_files(b)[0].parent
    fifo = subagents / "agent-x.jsonl"
    os.mkfifo(fifo)
    proc = benchcore(tmp_path, "collect", str(run_dir), cwd=b.repo, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr  # a result, never a hang or an error
    assert f"note: skipped {fifo}: it is a named pipe, not a regular file" in proc.stdout
    assert "10/10 cells collected" in proc.stdout
    # A pipe inside the run folder is left out of render's usage, named, and never opened.
    judges = run_dir / "cases/01-hello/t1/judges"
    judges.mkdir(parents=True, exist_ok=True)
    os.mkfifo(judges / "efficacy-1.jsonl")
    proc = benchcore(tmp_path, "render", str(run_dir), cwd=b.repo, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    assert f"{judges / 'efficacy-1.jsonl'}: left out of the usage: it is a named pipe" in proc.stderr


# ----------------------------------------------------------------------------- the run's copy is the bytes


def test_the_runs_copy_of_a_transcript_is_byte_exact(tmp_path, monkeypatch):
    b, run_dir = ran(tmp_path, monkeypatch)
    sources = {}
    for f in agent_files(b):
        data = f.read_bytes()
        # Bytes that are not UTF-8, a blank line and a CRLF line, as a tool result may hold them.
        first, rest = data.split(b"\n", 1)
        data = first + b"\n" + b'{"type":"progress","data":"caf\xe9 \xff\xfe"}\r\n\n' + rest
        f.write_bytes(data)
        sources[f.name] = data
    rc, out, err = b.run("collect", str(run_dir))
    assert "10/10 cells collected" in out, out + err
    copies = sorted(run_dir.glob("cases/*/t*/*/transcript.jsonl"))
    assert len(copies) == 10
    for copy in copies:
        agent = json.loads(copy.read_bytes().split(b"\n", 1)[0])["agentId"]
        assert copy.read_bytes() == sources[f"agent-{agent}.jsonl"]
        assert b"caf\xe9 \xff\xfe" in copy.read_bytes()
