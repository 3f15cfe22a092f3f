"""A stop (Ctrl-C, SIGTERM) that comes while a case's setup is being started still stops the setup with every
process it started: it was raised inside Popen, before plan knew the setup's process, which then went on to
write into its world after plan had removed it (test_sigint_during_plan_removes_everything_it_made failed so
under load)."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from processes import until_none_runs

from benchcore.harness.worlds import shell, temp


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_setup_starts_stops_the_setup(tmp_path, monkeypatch, signum):
    world = tmp_path / "world"
    world.mkdir()
    real = subprocess.Popen

    def popen_then_stopped(*args, **kwargs):
        proc = real(*args, **kwargs)
        os.kill(os.getpid(), signum)  # the stop arrives while Popen is still returning
        time.sleep(0.05)
        return proc

    def terminated(signum, frame):  # plan's own SIGTERM handler (removed_on_failure)
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, terminated)
    monkeypatch.setattr(shell.subprocess, "Popen", popen_then_stopped)  # every case shell starts in worlds/shell.py
    try:
        with pytest.raises(KeyboardInterrupt):
            temp.run_setup(world, "sleep 1; touch late", "case.md")
    finally:
        signal.signal(signal.SIGTERM, before)
    until_none_runs(1.5, tag="sleep 1; touch late")  # at once when the setup was killed
    assert not (world / "late").exists()  # the setup and its sleep were killed, not left to finish
