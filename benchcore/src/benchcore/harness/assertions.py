"""Hard assertions of a case, run against the new arm's output (CONTRACT section 1 and 3).

Each predicate runs in bash with ``$OUTPUT`` (the arm's output.md) and
``$WORLD`` (its world) set, cwd the world, and a time limit; a non-zero exit
or a timeout fails it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterable

from ..model import AssertionResult, HardAssertion

DEFAULT_TIMEOUT = 60.0
_STDERR_LIMIT = 2000


def run_assertions(assertions: Iterable[HardAssertion], output: Path, world: Path,
                   timeout: float = DEFAULT_TIMEOUT) -> tuple[AssertionResult, ...]:
    env = dict(os.environ, OUTPUT=str(output), WORLD=str(world))
    results = []
    for a in assertions:
        try:
            proc = subprocess.run(["bash", "-c", a.command], cwd=world, env=env, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
            results.append(AssertionResult(command=a.command, exit=proc.returncode, timed_out=False,
                                           stderr=proc.stderr[-_STDERR_LIMIT:]))
        except subprocess.TimeoutExpired as exc:
            err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
            results.append(AssertionResult(command=a.command, exit=None, timed_out=True,
                                           stderr=(err + f"\n(timed out after {timeout:g}s)")[-_STDERR_LIMIT:]))
        except FileNotFoundError as exc:  # the world is gone (cleaned)
            results.append(AssertionResult(command=a.command, exit=None, timed_out=False, stderr=str(exc)))
    return tuple(results)


def gated(results: Iterable[AssertionResult]) -> bool:
    """The gate: any hard assertion exited non-zero or timed out."""
    return any(r.timed_out or r.exit != 0 for r in results)
