"""Exit codes mean one thing (issue 18, item 6): 1 only from render for a red or incomplete verdict; bad input
is 2, never 3; an import failure, an internal error, with or without BENCHCORE_TRACEBACK, is 3.

Regression: a dependency too old for the code (cattrs 23.2 lacks ``cattrs.cols``) made every command die with
Python's traceback and exit 1, which the protocol reads as a red verdict; with BENCHCORE_TRACEBACK set an
internal error re-raised and exited 1 too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchcore.cli import COMMANDS, main
from places import BENCHCORE

BAD_INPUT = {
    "validate": [],
    "plan": ["no-such-skill"],
    "collect": ["no-such-run"],
    "render": ["no-such-run"],
    "clean": ["no-such-run"],
    "usage": ["no-such-transcript.jsonl"],
    "sandbox": ["--repo", "no-such-repo"],
    "draft": ["no-such-skill", "--from", "no-such-draft.json"],
}


def _run(args: list[str], cwd: Path, extra_path: Path | None = None, **env) -> subprocess.CompletedProcess:
    e = dict(os.environ, **env)
    src = str(BENCHCORE / "src")
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra_path) if extra_path else "", src) if p)
    return subprocess.run([sys.executable, "-m", "benchcore", *args], cwd=cwd, env=e, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_every_command_is_covered():
    assert set(BAD_INPUT) >= set(COMMANDS) - {"guard"}


@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_bad_input_is_2_with_a_message_naming_the_fix(command, tmp_path):
    (tmp_path / "home").mkdir()
    r = _run([command, *BAD_INPUT[command]], tmp_path, HOME=str(tmp_path / "home"))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "error" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("broken", ["cattrs", "attr", "yaml", "jinja2"])
@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_a_broken_install_is_3_for_every_command(command, broken, tmp_path):
    fake = tmp_path / "fake"
    (fake / broken).mkdir(parents=True)
    (fake / broken / "__init__.py").write_text(f"raise ImportError('simulated broken install of {broken}')\n")
    (tmp_path / "home").mkdir()
    r = _run([command, *BAD_INPUT[command]], tmp_path, extra_path=fake, HOME=str(tmp_path / "home"))
    if r.returncode == 2:  # the command failed on its bad input before it needed the broken package
        assert "Traceback" not in r.stderr
        return
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "not a result" in r.stderr


def test_a_broken_install_is_3_even_with_good_input(tmp_path):
    # attrs, which usage needs for a stream-json transcript (its result line takes the attrs path; a plain
    # transcript is read without attrs).
    fake = tmp_path / "fake"
    (fake / "attr").mkdir(parents=True)
    (fake / "attr" / "__init__.py").write_text("raise ImportError(\"cannot import name 'frozen'\")\n")
    t = BENCHCORE / "tests" / "fixtures" / "transcripts" / "stream-json.jsonl"
    r = _run(["usage", str(t)], tmp_path, extra_path=fake)
    assert r.returncode == 3 and "broken install" in r.stderr, (r.stdout, r.stderr)


def test_an_internal_error_with_the_traceback_asked_for_is_still_3(monkeypatch, capsys):
    import benchcore.commands.usage as usage_cmd

    def broken(args):
        raise ValueError("boom")

    monkeypatch.setattr(usage_cmd, "run", broken)
    monkeypatch.setenv("BENCHCORE_TRACEBACK", "1")
    assert main(["usage", "x"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: boom" in err
