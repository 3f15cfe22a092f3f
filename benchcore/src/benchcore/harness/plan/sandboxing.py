"""Plan's sandbox stage: before anything is built, find the OS sandbox the arms' commands will run in.

A smoke run (``confine/sandbox.py``) picks the first sandbox that works on this
machine. Where none does, plan stops before any arm can run and says why, with
the exact fix, unless the user opted out (``plan --no-sandbox``): the run is
then planned unsandboxed: the arms are not confined (the guard only parses
commands and refuses what it cannot show stays inside, which is no boundary),
and plan's note, run.json, results.json, the report's environment card and its
headline say so.

Then, in that sandbox (``confine/toolprobe.py``): the interpreter and test runner the arms get (plan prints
them; run.json ``toolchain`` and the environment card keep them), each command benchmark.yaml ``requires:``
lists (plan refuses to launch when one fails, naming it and the fix), and, for a skill with no ``requires:``,
a warning when its cases' hard assertions or prompts name python3, pytest, node or npm and that does not run
there. The arms' toolchain includes the repository's own ``.venv/bin``, ``node_modules/.bin`` or ``bin/``
when it is on PATH (``confine/sandbox.py`` ``toolchain``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from attrs import evolve

from ...environment import NOT_SANDBOXED
from ...errors import BenchError
from ..claude.agents import config_dir
from ..confine import sandbox as box
from ..confine import toolprobe
from ..repo.options import _key_line
from ..repo.roots import skill_roots
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
        opted = [evolve(d, sandbox=None, sandbox_words=NOT_SANDBOXED) for d in decisions]
        opted, lines = arms_toolchain(root, opted, environ)
        return (opted, "\n".join([f"note: {OPT_OUT}: the arms are not confined: their commands run on this machine "
                                  "as you and can reach anything you can (your files, keys and network); the guard "
                                  "only parses each command and refuses what it cannot show stays in the arm's "
                                  "world (interpreters, build tools and test runners among them); the report says "
                                  "the run was not sandboxed", UNCONFINED_CASE_SHELL] + lines))
    config = config_dir()
    forbidden = [str(root), str(temp_base), str(config)]
    keep = keep_out(root)
    found = box.prepare(False, forbidden, hidden=[str(root)] + ([str(config)] if config.exists() else []),
                        environ=environ, repo=str(root), keep_out=keep)
    if found.sandbox is None:
        raise BenchError(None, f"no OS sandbox can run on this machine, so the arms' commands cannot be confined "
                               f"(nothing was planned): {found.problem}",
                         fix=f"{found.fix}; then run plan again (benchcore sandbox tests it). Or plan with "
                             f"{OPT_OUT} to benchmark without a sandbox: the arms are then not confined (their "
                             "commands run as you and can reach anything you can), checked only by parsing them, "
                             "which refuses interpreters, build tools and test runners, and the report says the run "
                             "was not sandboxed")
    out = []
    for d in decisions:
        chosen = found.sandbox if not d.network else box.build(found.sandbox.kind, found.sandbox.program, True,
                                                               forbidden, environ,
                                                               box.DISABLE_USERNS in found.sandbox.args,
                                                               repo=str(root), keep_out=keep)
        out.append(evolve(d, sandbox=chosen, sandbox_words=words(chosen)))
    out, lines = arms_toolchain(root, out, environ)
    env = os.environ if environ is None else environ
    chain = box.toolchain(env.get("PATH", ""), env.get("HOME", ""), forbidden, str(root), keep, dict(env))
    lines += [f"note: the repository's PATH entry {why} (the arms do not get it)" for why in chain.dropped
              if why.startswith(str(root))]
    return out, "\n".join([f"sandbox: each arm's commands run in {words(found.sandbox).split(':')[0]} "
                           "(smoke run passed); case setups and hard assertions too"]
                          + ([f"warning: {found.warning}"] if found.warning else []) + lines)


def keep_out(root: Path) -> list[str]:
    """The folders of the repository the arms never see, even through its own toolchain on PATH: its tests tree
    (cases, criteria, runs) and its skill folders."""
    return [str(root / "tests")] + [str(root / r.path) for r in skill_roots(root)]


def arms_toolchain(root: Path, decisions: list[Decision], environ: Optional[dict] = None
                   ) -> tuple[list[Decision], list[str]]:
    """The decisions with what their arms' toolchain is (run.json ``toolchain``), and plan's lines about it; a
    BenchError (exit 2) naming the command and the fix when a benchmark.yaml ``requires:`` command fails in the
    arms' sandbox."""
    out: list[Decision] = []
    lines: list[str] = []
    seen: dict[bool, toolprobe.Toolset] = {}
    for d in decisions:
        if d.network not in seen:
            seen[d.network] = toolprobe.probe(d.sandbox, environ)
        tools = seen[d.network]
        where = "in the arms' sandbox" if d.sandbox is not None else "on this machine (no sandbox)"
        line = f"toolchain: arms get {tools.words()}" + ("" if d.sandbox is not None else f" (found {where})")
        if line not in lines:
            lines.append(line)
        yaml = f"{d.skill.tests_path}/benchmark.yaml"
        ran = []
        for command in d.requires:
            r = toolprobe.run(d.sandbox, command, environ)
            if not r.ok:
                raise BenchError(yaml, f"requires `{command}`, which fails {where} (exit {r.exit}"
                                       + (f": {r.said})" if r.said else ")") + f"; arms get {tools.words()}; "
                                       "nothing was planned", line=_key_line(root / yaml, "requires"),
                                 fix=toolprobe.fix_for(command))
            ran.append(f"`{command}` ran" + (f" ({r.said})" if r.said else ""))
        if ran:
            lines.append(f"requires ({d.skill.name}): " + "; ".join(ran))
        else:
            lines += _unrequired(d, tools, where)
        text = tools.words() + (f"; requires: {'; '.join(ran)}" if ran else "")
        out.append(evolve(d, toolchain_words=text))
    return out, lines


def _unrequired(d: Decision, tools: toolprobe.Toolset, where: str) -> list[str]:
    """Warnings for a skill with no ``requires:``: a program its cases' hard assertions or prompts name that the
    arms do not get (one line per program, naming the cases)."""
    cases_of: dict[str, list[str]] = {}
    for case in d.cases:
        texts = [a.command for a in case.hard_assertions] + [case.prompt]
        for m in toolprobe.mentioned(texts):
            if not tools.has(m):
                cases_of.setdefault(m, []).append(case.id)
    return [f"warning: {d.skill.name}: {program} does not run {where} (the arms get {tools.words()}), "
            f"but the hard assertions or prompt of {', '.join(ids)} name it; fix: {toolprobe.fix_for(program)}. "
            f"To make plan refuse instead, add to {d.skill.tests_path}/benchmark.yaml: "
            f"requires: [\"{toolprobe.EXAMPLES[program]}\"]" for program, ids in cases_of.items()]
