"""The OS sandbox's cost per command: wall time of a command wrapped for an arm vs the plain command (a script).

    python benchcore/bench/sandbox_cost.py [--repeat 15] [--command "python3 -m pytest -q -p no:cacheprovider"]

Builds a tiny Python package with one test in a temp world, finds the sandbox the
way plan does (harness/confine/sandbox.py: smoke run, the session's toolchain
read-only), and runs the command alternately plain (``bash -c`` in the world)
and wrapped (the exact command line the guard gives Claude Code), ``--repeat``
times each after one warm-up of each. Prints the median and the quartiles of
both, the median ratio wrapped / plain (the goal: at most 1.1x for a ~300 ms
command) and the added milliseconds; also ``true`` alone, the fixed overhead.

Then the same for a case's hard assertion: the command run as collect's gate
runs a predicate (``harness/worlds/assertions.run_assertions``: the world's git
listing, a copy of the output, the process group killed at the end), in the
sandbox (``confine/sandbox.case_argv``, ``$OUTPUT`` bound read-only) against
unconfined (``bash -c`` with the session's environment, as before issue 37).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from benchcore.harness.confine import sandbox  # noqa: E402
from benchcore.harness.worlds.assertions import run_assertions  # noqa: E402
from benchcore.model import HardAssertion  # noqa: E402


def _time(argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def measure(box, world: str, command: str, repeat: int) -> tuple[list[float], list[float]]:
    plain = ["/bin/bash", "-c", command]
    wrapped = ["/bin/bash", "-c", sandbox.wrap(box, command, world, None)]
    _time(plain, world), _time(wrapped, world)  # warm-up
    a, b = [], []
    for _ in range(repeat):
        a.append(_time(plain, world))
        b.append(_time(wrapped, world))
    return a, b


def measure_checks(box, world: str, command: str, repeat: int) -> tuple[list[float], list[float]]:
    """A hard assertion as the gate runs it: unconfined vs in the sandbox (alternating, after a warm-up)."""
    output = Path(world).parent / "output.md"
    output.write_text("Fixed it; the suite passes.\n")
    check = [HardAssertion(command=command, line=1)]

    def once(chosen) -> float:
        start = time.perf_counter()
        run_assertions(check, output, Path(world), timeout=120, sandbox=chosen)
        return time.perf_counter() - start
    once(None), once(box)
    a, b = [], []
    for _ in range(repeat):
        a.append(once(None))
        b.append(once(box))
    return a, b


def _q(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=4)
    return f"median {statistics.median(xs) * 1000:.0f} ms (quartiles {q[0] * 1000:.0f}-{q[2] * 1000:.0f})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--command", default="python3 -m pytest -q -p no:cacheprovider")
    args = ap.parse_args(argv)
    found = sandbox.prepare(False, [])
    if found.sandbox is None:
        print(f"no sandbox runs here: {found.problem}\n  fix: {found.fix}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="benchcore-sbxcost-") as tmp:
        world = Path(tmp) / "world"
        (world / "pkg").mkdir(parents=True)
        (world / "pkg" / "__init__.py").write_text("def add(a, b):\n    return a + b\n")
        (world / "test_add.py").write_text("from pkg import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
        sandbox.make_scratch(str(world))  # the cell's /tmp and HOME, bound as plan's worlds have them
        print(f"sandbox: {found.sandbox.program}; {args.repeat} runs each, alternating")
        for command in (args.command, "true"):
            plain, wrapped = measure(found.sandbox, str(world), command, args.repeat)
            ratio = statistics.median(wrapped) / statistics.median(plain)
            added = (statistics.median(wrapped) - statistics.median(plain)) * 1000
            print(f"{command}:\n  plain   {_q(plain)}\n  wrapped {_q(wrapped)}\n"
                  f"  ratio {ratio:.3f}x, +{added:.0f} ms per command")
        for command in (args.command, "true"):
            plain, boxed = measure_checks(found.sandbox, str(world), command, args.repeat)
            ratio = statistics.median(boxed) / statistics.median(plain)
            added = (statistics.median(boxed) - statistics.median(plain)) * 1000
            print(f"hard assertion {command!r} as collect's gate runs it:\n  unconfined {_q(plain)}\n"
                  f"  sandboxed  {_q(boxed)}\n  ratio {ratio:.3f}x, +{added:.0f} ms per predicate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
