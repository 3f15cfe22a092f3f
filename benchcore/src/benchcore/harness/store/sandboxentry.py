"""plan.json's ``sandbox`` entry: how every Bash call of an arm is wrapped, and its reader for the guard.

Claude Code runs the benchmark's PreToolUse hook for every tool call of every arm, so ``benchcore guard``
starts a fresh interpreter each time. This module imports nothing of benchcore's models or of cattrs: the
guard that read the entry through :mod:`benchcore.serde` imported them all for each call (138 ms of CPU a call
on a 2-core machine, 79 ms without them). :func:`load_sandbox` reads the entry exactly as
``serde.load(Sandbox, ...)`` does, the same values and the same refusals, word for word (a test holds the two
together).
"""

from __future__ import annotations

from typing import Any

from attrs import NOTHING, field, fields, frozen

from ...errors import BenchError


@frozen
class Sandbox:
    """How every Bash call of an arm is wrapped (``harness/confine/sandbox.py``), fixed when plan runs so the
    guard and collect build the same command line from plan.json alone; a case's setup and its hard assertions
    run in it too (``confine/sandbox.case_argv``, ``harness/worlds/shell.py``).

    ``kind``: "bwrap" (Linux) or "seatbelt" (macOS); ``program``: the bwrap or sandbox-exec that passed plan's
    smoke run; ``args``: the part of the command line that is the same for every arm (system folders and the
    toolchain read-only, no network, ...); ``readonly``: the toolchain folders (for the Seatbelt profile);
    ``env``: the fixed environment inside; ``network``: benchmark.yaml ``network: true``; ``tail``: the
    arguments after the arm's own binds (``--remount-ro /``: the root read-only once everything is mounted);
    ``scratch``: bind the cell's scratch folders (``<world>/../.scratch-<world name>/tmp`` and ``home``) as
    /tmp and HOME, so they last across the arm's calls. Plans written before these two existed have neither,
    and collect recomputes their command lines as they were."""

    kind: str
    program: str
    args: tuple[str, ...] = ()
    readonly: tuple[str, ...] = ()
    env: dict[str, str] = field(factory=dict)
    network: bool = False
    shell: str = "/bin/bash"
    tail: tuple[str, ...] = ()
    scratch: bool = False
    # Extension (issue 37): credential files and folders inside the toolchain folders, hidden inside.
    masked: tuple[str, ...] = ()


# How each field is read, from its declared type: a field added to Sandbox with a type not named here stops
# this module's import (every test imports it), rather than being dropped by the guard's reading.
_KIND_OF = {"str": str, "bool": bool, "tuple[str, ...]": tuple, "dict[str, str]": dict}
_KINDS = {f.name: _KIND_OF[f.type] for f in fields(Sandbox)}


def _problem(name: str, kind: type, value: Any) -> str | None:
    """What is wrong with ``value`` for the field ``name``, in serde's words, or None."""
    def got(v: Any, at: str) -> str:
        return f"got {type(v).__name__} {v!r} @ $.{name}{at}"

    if kind is str:
        return None if isinstance(value, str) else f"expected a string, {got(value, '')}"
    if kind is bool:
        return None if isinstance(value, bool) else f"expected true or false, {got(value, '')}"
    if kind is tuple:
        if not isinstance(value, (list, tuple)):
            return f"expected a list, {got(value, '')}"
        bad = next((i for i, v in enumerate(value) if not isinstance(v, str)), None)
        return None if bad is None else f"expected a string, {got(value[bad], f'[{bad}]')}"
    if not isinstance(value, dict):
        return f"expected a mapping @ $.{name}"
    bad = next((k for k, v in value.items() if not isinstance(v, str)), None)
    return None if bad is None else f"expected a string, {got(value[bad], f'[{bad!r}]')}"


def load_sandbox(data: Any, *, source: str) -> Sandbox:
    """plan.json's sandbox entry -> :class:`Sandbox`, or a BenchError naming ``source`` and each field that
    is wrong (keys it does not know are left alone, as for every plan.json field)."""
    if not isinstance(data, dict):
        raise BenchError(source, f"is not a JSON object (found {type(data).__name__}): it does not match the "
                         "Sandbox format", fix="compare it with docs/run-format.md and correct it")
    problems = [f"required field missing @ $.{f.name}" for f in fields(Sandbox)
                if f.default is NOTHING and f.name not in data]
    problems += [p for name, kind in _KINDS.items() if name in data
                 for p in [_problem(name, kind, data[name])] if p is not None]
    if problems:
        raise BenchError(source, "does not match the Sandbox format: " + "; ".join(problems),
                         fix="compare it with docs/run-format.md and correct the named fields")
    values = {name: tuple(data[name]) if kind is tuple else dict(data[name]) if kind is dict else data[name]
              for name, kind in _KINDS.items() if name in data}
    return Sandbox(**values)
