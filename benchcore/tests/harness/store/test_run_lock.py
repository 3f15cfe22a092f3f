"""The run folder's collect lock: how long a second collect waits, and what it says when it gives up.

The whole-process case (a second ``benchcore collect`` beside a running one, and a killed one's lock taken
over) is in tests/commands/test_harden_rest.py; this is the wait's knob and its bad values."""

from __future__ import annotations

import os
import time

import pytest

from benchcore.errors import BenchError
from benchcore.harness.store import files


def test_a_second_collect_waits_ten_seconds_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv(files.RUN_LOCK_WAIT_ENV, raising=False)
    assert files.run_lock_wait() == files.RUN_LOCK_WAIT == 10.0
    monkeypatch.setenv(files.RUN_LOCK_WAIT_ENV, " 2.5 ")
    assert files.run_lock_wait() == 2.5
    monkeypatch.setenv(files.RUN_LOCK_WAIT_ENV, "")
    assert files.run_lock_wait() == 10.0


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_wait_that_is_not_a_number_of_seconds_is_bad_input_naming_the_variable_and_the_fix(monkeypatch, value):
    monkeypatch.setenv(files.RUN_LOCK_WAIT_ENV, value)
    with pytest.raises(BenchError) as err:
        files.run_lock_wait()
    assert err.value.path == "BENCHCORE_COLLECT_LOCK_WAIT" and f"is {value!r}, not a number of seconds" in str(err.value)
    assert err.value.fix.startswith("unset BENCHCORE_COLLECT_LOCK_WAIT (a collect then waits 10 s)")


def test_a_held_run_lock_is_waited_for_that_long_then_names_the_holder(tmp_path, monkeypatch):
    monkeypatch.setenv(files.RUN_LOCK_WAIT_ENV, "0.3")
    with files.locked_run(tmp_path):
        assert (tmp_path / files.RUN_LOCK).read_text() == f"{os.getpid()}\n"
        start = time.monotonic()
        with pytest.raises(BenchError) as err:
            with files.locked_run(tmp_path):
                pass
        assert time.monotonic() - start >= 0.3
    assert f"another benchcore collect is running on {tmp_path} (pid {os.getpid()})" in str(err.value)
    assert not (tmp_path / files.RUN_LOCK).exists()  # the holder removed its pid file
    with files.locked_run(tmp_path):  # and the lock is free again
        pass
