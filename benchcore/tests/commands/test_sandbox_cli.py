"""benchcore sandbox: the one command that checks the arms' OS sandbox runs here (exit 0), or says why not and
the fix (exit 2)."""

import subprocess
import sys

import pytest

from places import BENCHCORE, REPO

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux's")


def sandbox(*args, env=None):
    import os

    return subprocess.run([sys.executable, "-m", "benchcore", "sandbox", *args], capture_output=True, text=True,
                          cwd=REPO, env=dict(os.environ, **(env or {})), timeout=120)


def test_a_working_sandbox_says_what_it_holds():
    p = sandbox()
    if "no OS sandbox runs" in p.stderr:
        pytest.skip(p.stderr)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("sandbox: bubblewrap (") and f"saw neither {REPO}" in p.stdout
    assert "no network" in p.stdout and "CPU and memory" in p.stdout


def test_a_sandbox_that_cannot_run_exits_2_with_the_fix(tmp_path):
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    broken.chmod(0o755)
    p = sandbox(env={"BENCHCORE_BWRAP": str(broken)})
    assert p.returncode == 2 and p.stdout == ""
    assert "uid map: Permission denied" in p.stderr and "sudo apt-get install bubblewrap" in p.stderr
    assert "--no-sandbox" in p.stderr
