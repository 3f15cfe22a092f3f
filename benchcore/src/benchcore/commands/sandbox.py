"""benchcore sandbox [--repo DIR] [--network]: check that the arms' OS sandbox runs on this machine.

Runs the smoke run plan runs when it starts (``harness/confine/sandbox.py``):
a command in a scratch world, which must write and read there and must not see
the repository or the Claude config folder. Prints which sandbox works and
what it holds (exit 0), or why none does and the exact fix (exit 2).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import BenchError
from ..harness.claude.agents import config_dir
from ..harness.confine import sandbox, toolprobe
from ..harness.plan.sandboxing import keep_out
from ..harness.repo.tree import find_repo_root
from ..harness.worlds.temp import default_temp_base


def add_arguments(p) -> None:
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from here, if any)")
    p.add_argument("--network", action="store_true", help="check the sandbox with the network shared "
                                                           "(benchmark.yaml network: true)")


def run(args) -> int:
    try:
        root = find_repo_root(args.repo or Path.cwd())
    except BenchError:
        if args.repo is not None:
            raise
        root = None
    config = config_dir()
    hidden = [str(p) for p in (root, config) if p is not None and Path(p).exists()]
    keep = keep_out(root) if root is not None else []
    found = sandbox.prepare(args.network, [str(p) for p in (root, default_temp_base(), config) if p], hidden,
                            repo=str(root) if root is not None else "", keep_out=keep)
    if found.sandbox is None:
        raise BenchError(None, f"no OS sandbox runs on this machine: {found.problem}",
                         fix=f"{found.fix}; or plan with --no-sandbox (the arms are then not confined: their commands "
                             "run as you and can reach anything you can, checked only by parsing)")
    box = found.sandbox
    name = "bubblewrap" if box.kind == "bwrap" else "Seatbelt (sandbox-exec)"
    print(f"sandbox: {name} ({box.program}) works here: a command ran in a scratch world and saw "
          f"{'neither ' + ' nor '.join(hidden) if hidden else 'nothing of the session'}")
    print("  an arm's command sees: its world (read-write), its skill copy (read-only), the system's programs and "
          "libraries (read-only), its own /tmp and home folder kept across its calls, "
          + ("the network" if args.network else "no network"))
    if box.kind == "bwrap":
        print("  it holds as root too: no capabilities, " + ("no user namespaces of its own, "
              if sandbox.DISABLE_USERNS in box.args else "") + "the rest of the file system read-only "
              "(a write there fails with 'Read-only file system')")
    if found.warning:
        print(f"warning: {found.warning}")
    if box.readonly:
        print(f"  toolchain folders from PATH, read-only: {', '.join(box.readonly)}")
    if box.masked:
        print(f"  credential files in them, hidden: {', '.join(box.masked)}")
    print(f"  arms get {toolprobe.probe(box).words()}")
    chain = sandbox.toolchain(os.environ.get("PATH", ""), os.environ.get("HOME", ""),
                              [str(p) for p in (root, default_temp_base(), config) if p],
                              str(root) if root is not None else "", keep, dict(os.environ))
    for why in chain.dropped:
        print(f"  left out of the arms' PATH: {why}")
    print(f"  environment: {', '.join(sorted(box.env))} (nothing else of the session's)")
    print("  not limited: CPU and memory; file tools (Read, Write, Edit...) are held to the world by path rules")
    print("  a case's setup, its hard assertions and validate's samples run in it too (no skill copy; $OUTPUT a "
          "read-only copy of the arm's answer; the root read-only, no capabilities)")
    return 0
