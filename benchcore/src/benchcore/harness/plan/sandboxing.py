"""Plan's sandbox stage: before anything is built, find the OS sandbox the arms' commands will run in.

A smoke run (``confine/sandbox.py``) picks the first sandbox that works on this
machine. Where none does, plan stops before any arm can run and says why, with
the exact fix, unless the user opted out (``plan --no-sandbox``): the run is
then planned unsandboxed (the guard parses and refuses commands instead), and
run.json, results.json, the report's environment card and its headline say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from attrs import evolve

from ...environment import NOT_SANDBOXED
from ...errors import BenchError
from ..claude.agents import config_dir
from ..confine import sandbox as box
from .decide import Decision

OPT_OUT = "--no-sandbox"
UNCONFINED_CASE_SHELL = (f"note: {OPT_OUT}: each case's setup (now) and hard assertions (in collect) run unconfined "
                         "too, on this machine with your session's environment: a predicate that runs the arm's code "
                         "(a test runner, a script in its world) runs that code unconfined")


def words(found: box.Sandbox) -> str:
    """The sandbox in words, for run.json and the report's environment card."""
    name = "bubblewrap" if found.kind == "bwrap" else "Seatbelt (sandbox-exec)"
    net = "network allowed (benchmark.yaml network: true)" if found.network else "no network"
    return f"{name} ({found.program}): world read-write, skill copy read-only, {net}"


def choose_sandbox(root: Path, temp_base: Path, decisions: list[Decision], opt_out: bool,
                   environ: Optional[dict] = None) -> tuple[list[Decision], str]:
    """The decisions with their sandbox, and the line plan prints about it; a BenchError (exit 2) when no
    sandbox works here and the user did not opt out."""
    if opt_out:
        return ([evolve(d, sandbox=None, sandbox_words=NOT_SANDBOXED) for d in decisions],
                f"note: {OPT_OUT}: the arms' commands run on this machine with no OS sandbox, checked only by "
                "parsing them (interpreters, build tools and test runners are refused); the report says the run "
                "was not sandboxed\n" + UNCONFINED_CASE_SHELL)
    config = config_dir()
    forbidden = [str(root), str(temp_base), str(config)]
    found = box.prepare(False, forbidden, hidden=[str(root)] + ([str(config)] if config.exists() else []),
                        environ=environ)
    if found.sandbox is None:
        raise BenchError(None, f"no OS sandbox can run on this machine, so the arms' commands cannot be confined "
                               f"(nothing was planned): {found.problem}",
                         fix=f"{found.fix}; then run plan again (benchcore sandbox tests it). Or plan with "
                             f"{OPT_OUT} to benchmark without a sandbox: arms' commands are then checked only by "
                             "parsing them, which refuses interpreters, build tools and test runners, and the "
                             "report says the run was not sandboxed")
    out = []
    for d in decisions:
        chosen = found.sandbox if not d.network else box.build(found.sandbox.kind, found.sandbox.program, True,
                                                               forbidden, environ)
        out.append(evolve(d, sandbox=chosen, sandbox_words=words(chosen)))
    return out, (f"sandbox: each arm's commands run in {words(found.sandbox).split(':')[0]} (smoke run passed), "
                 "and so do each case's setup and, in collect, its hard assertions")
