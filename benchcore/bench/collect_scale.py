"""Collect at scale with the stand-in: time and peak memory of each collect, from a few cases to many (a script).

    python benchcore/bench/collect_scale.py [--cases 20,50,200] [--mb 0] [--repeat 1]

For each case count it builds a temp repository with one edited, released
skill (a three-arm run of 5 trials), plans it, plays the arms with the stand-in
(tests/standin), then times three collects, each in a fresh process:
``first`` (every transcript new), ``again`` (nothing new) and ``judged``
(after the stand-in judges answered). ``--mb`` pads every arm transcript to
about that many MB with a tool result, to measure memory against transcript
size. Model time is excluded: the stand-in writes transcripts directly.

Prints per collect: seconds, seconds per cell, peak RSS (MB), and between the
smallest and the largest case count the growth exponent
log(t2 / t1) / log(n2 / n1) (1.0 = linear in cells).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
SKILL = "demo/greet"
COLLECTS = ("first", "again", "judged")
# Peak memory of the collect itself: VmHWM (ru_maxrss would keep the parent's size across fork and exec).
_CHILD = ("import resource, sys\nfrom benchcore.cli import main\n"
          "rc = main(sys.argv[1:])\n"
          "try:\n"
          "    kb = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
          "except (OSError, StopIteration):\n"
          "    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
          "print('maxrss', kb, rc, file=sys.stderr)\n")


def _standin():
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from standin import agent, repo
    return agent, repo


def build_repo(root: Path, cases: int) -> dict:
    """A git repository whose skill is released on main and edited since, with ``cases`` cases; the env to run in."""
    _, R = _standin()
    env = dict(os.environ, **R.env_for(root))
    os.environ.update(R.env_for(root))
    repo = root / "repo"
    R.init(repo, "main")
    R.skill(repo, SKILL, "Greet the reader by name.")
    for n in range(1, cases + 1):
        R.case(repo, SKILL, f"{n:03d}-case")
    R.commit_all(repo, "release")
    R.skill(repo, SKILL, "Greet the reader by name, warmly.")
    return env


PROFILE: list[Path] = []  # with --py-spy: the folder for each collect's collapsed stacks


def _run(env: dict, cwd: Path, *argv: str, name: str = "") -> tuple[float, float, str]:
    """(seconds, peak RSS in MB, stdout) of one benchcore command in a fresh process."""
    cmd = [sys.executable, "-c", _CHILD, *argv]
    if PROFILE and name:
        cmd = ["py-spy", "record", "-f", "raw", "-r", "200", "-o", str(PROFILE[0] / f"{name}.txt"), "--"] + cmd
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("maxrss ")]
    if not line:
        raise SystemExit(f"benchcore {' '.join(argv)} failed:\n{proc.stderr}")
    return elapsed, int(line[-1].split()[1]) / 1024, proc.stdout


def pad(config: Path, mb: float) -> float:
    """Pad every arm transcript to about ``mb`` MB with one tool result before its final line; the MB read."""
    total = 0
    for path in config.rglob("agent-*.jsonl"):
        lines = path.read_bytes().splitlines(keepends=True)
        size = sum(map(len, lines))
        want = int(mb * 1_000_000) - size
        if want > 0 and len(lines) > 2:
            body = ("x" * 99 + "\n") * (want // 100)
            rec = {"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_pad", "content": body}]}}
            lines.insert(len(lines) - 1, (json.dumps(rec) + "\n").encode())
            path.write_bytes(b"".join(lines))
        total += path.stat().st_size
    return total / 1e6


def one_size(cases: int, mb: float) -> dict:
    """Plan, play the arms, collect three times; the figures of each collect."""
    agent, _ = _standin()
    with tempfile.TemporaryDirectory(prefix="benchcore-scale-") as tmp:
        root = Path(tmp)
        env = build_repo(root, cases)
        repo = root / "repo"
        _, _, out = _run(env, repo, "plan", "greet", "--seed", "1", "--temp-dir", str(root / "t"))
        [run_dir] = sorted((repo / "tests/.reports/runs").iterdir())
        script = agent.Script(files={f"{n:03d}-case": {"greeting.txt": "Hello!\n"} for n in range(1, cases + 1)},
                              tiny=False)
        from test_e2e_benchmark import next_scripts  # the scripts plan printed (tests/ is on the path)

        for path in next_scripts(out):
            agent.run_script(path, root / "claude", script, repo)
        read_mb = pad(root / "claude", mb) if mb else 0.0
        cells = len(json.loads((run_dir / "plan.json").read_text())["cells"])
        figures = {"cells": cells, "transcripts_mb": read_mb}
        for key in COLLECTS:
            if key == "judged":
                agent.run_script(run_dir / "workflows/judges/bench-fanout.js", root / "claude", script, repo)
            figures[key] = _run(env, repo, "collect", str(run_dir), name=f"{cases}-{key}")[:2]
        return figures


def growth(small: dict, large: dict, key: str) -> float:
    return math.log(large[key][0] / small[key][0]) / math.log(large["cells"] / small["cells"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="20,50,200", help="case counts, comma-separated")
    parser.add_argument("--mb", type=float, default=0.0, help="pad each transcript to about this many MB")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size; medians are reported")
    parser.add_argument("--src", type=Path, default=None,
                        help="run the collects with the benchcore package under this src folder (another version)")
    parser.add_argument("--py-spy", type=Path, default=None, dest="py_spy",
                        help="profile each collect with py-spy into this folder (<cases>-<collect>.txt)")
    args = parser.parse_args(argv)
    if args.py_spy is not None:
        args.py_spy.mkdir(parents=True, exist_ok=True)
        PROFILE.append(args.py_spy.resolve())
    if args.src is not None:
        os.environ["PYTHONPATH"] = str(args.src.resolve())
    sizes = [int(c) for c in args.cases.split(",")]
    results = {}
    for n in sizes:
        runs = [one_size(n, args.mb) for _ in range(args.repeat)]
        med = {"cells": runs[0]["cells"], "transcripts_mb": runs[0]["transcripts_mb"]}
        for key in COLLECTS:
            med[key] = (statistics.median(r[key][0] for r in runs), statistics.median(r[key][1] for r in runs))
        results[n] = med
        print(f"{n} cases ({med['cells']} cells"
              + (f", {med['transcripts_mb']:.0f} MB of transcripts" if args.mb else "") + "): "
              + "; ".join(f"{k} {med[k][0]:.2f} s ({med[k][0] / med['cells'] * 1000:.1f} ms/cell, "
                          f"peak {med[k][1]:.0f} MB)" for k in COLLECTS), flush=True)
    if len(sizes) > 1:
        small, large = results[sizes[0]], results[sizes[-1]]
        print(f"growth exponent {sizes[0]} -> {sizes[-1]} cases: "
              + ", ".join(f"{k} {growth(small, large, k):.2f}" for k in COLLECTS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
