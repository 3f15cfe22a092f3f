"""Waiting for what a test's commands started to be gone, rather than for a fixed time."""

from __future__ import annotations

import os
import time
from pathlib import Path


def until_none_runs(within: float, tag: str = "", under: Path | None = None) -> None:
    """Return once no live process holds ``tag`` in its command line (the check's shell and every fork of it
    carry it) or runs in a folder under ``under``, or after ``within`` seconds: a child left running has by then
    done what it was started to do."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(_runs(proc, tag, under) for proc in Path("/proc").iterdir()
                   if proc.name.isdigit() and int(proc.name) != os.getpid()):
            return
        time.sleep(0.05)


def _runs(proc: Path, tag: str, under: Path | None) -> bool:
    try:
        if (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False  # ended, not yet reaped
        if tag and tag.encode() in (proc / "cmdline").read_bytes():
            return True
        return under is not None and os.readlink(proc / "cwd").startswith(f"{under}/")
    except (OSError, IndexError):
        return False
