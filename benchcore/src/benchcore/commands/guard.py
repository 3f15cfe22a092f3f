"""benchcore guard [<temp-base>]: the PreToolUse hook that confines benchmark arms (stdin: Claude Code's hook JSON).

Prints Claude Code's hook answer for an arm of an active run ("allow" with its
Bash command wrapped in the run's OS sandbox and run in the foreground; for
file tools "allow" with the resolved path inside its world and skill copy,
"deny" otherwise; "deny" for tools it does not know and whenever it fails) and
nothing for any other tool call. ``plan`` registers it in .claude/settings.local.json through the skill's
``scripts/guard``, which skips Python for calls that cannot be an arm's.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..harness.confine.guard import hook


def add_arguments(p) -> None:
    p.add_argument("base", nargs="?", type=Path, metavar="temp-base",
                   help="the folder holding the runs' temp roots (default: <tmp>/benchcore-<uid>, as plan uses)")


def run(args) -> int:
    base = args.base
    if base is None:  # the hook always names it: the worlds' modules are imported only without it
        from ..harness.worlds.temp import default_temp_base

        base = default_temp_base()
    out = hook(sys.stdin.read(), base)
    if out:
        print(out)
    return 0
