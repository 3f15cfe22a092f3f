"""What one call of the skill's wrapper costs once benchcore is installed, against a bare interpreter start.

    python benchcore/bench/wrapper_calls.py [--runs 30] [--before <git revision>]

Lays out the plugin's copy (skills/benchmark-skill/ and benchcore/, links resolved, as Claude Code's plugin
cache holds them) in a throwaway folder, once with this tree's wrapper and, with --before, once with the
wrapper of that revision; lets each install benchcore (pip, as on a user's first use; pip's own configuration
decides where from), then times `<wrapper> --version` against `python3 -c pass` and `<venv>/bin/benchcore
--version` (the floor: one Python running benchcore), interleaved, and prints medians and ratios to the bare
interpreter. docs/development.md quotes its output.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WRAPPER = "skills/benchmark-skill/scripts/benchcore"


def layout(root: Path, wrapper_text: str) -> Path:
    plugin = root / "plugins/cache/bench/benchmark-skill/0.1.0"
    shutil.copytree(REPO / "plugins/benchmark-skill", plugin, symlinks=False,
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    wrapper = plugin / WRAPPER
    wrapper.write_text(wrapper_text)
    return wrapper


def median_ms(argv: list[str], env: dict, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def measure(runs: int = 30, before: str | None = None) -> dict[str, float]:
    """Median milliseconds of each row (``python3 -c pass`` first: the anchor), printed with its ratio to it."""
    tmp = Path(tempfile.mkdtemp(prefix="wrapper-calls-"))
    try:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp / "home"), "TMPDIR": str(tmp)}
        for k in ("PIP_CONFIG_FILE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"):
            if k in os.environ:
                env[k] = os.environ[k]
        wrappers = {"now": (REPO / WRAPPER).read_text()}
        if before:
            wrappers[before] = subprocess.run(["git", "-C", str(REPO), "show", f"{before}:{WRAPPER}"],
                                              check=True, capture_output=True, text=True).stdout
        paths = {}
        for name, text in wrappers.items():
            wrapper = layout(tmp / name, text)
            print(f"wrapper ({name}): first use, installing benchcore into the plugin's data folder ...", flush=True)
            subprocess.run(["/bin/sh", str(wrapper), "--version"], env=env, check=True, capture_output=True)
            paths[name] = wrapper
        venv = next((tmp / "now/plugins/data").glob("*/benchcore-venv-*"))
        python = shutil.which("python3", path=env["PATH"])
        rows = {"python3 -c pass": [python, "-c", "pass"],
                "benchcore --version (its venv, no wrapper)": [str(venv / "bin/benchcore"), "--version"]}
        rows.update({f"wrapper --version ({name})": ["/bin/sh", str(w), "--version"] for name, w in paths.items()})
        got = {label: [] for label in rows}
        for _ in range(3):  # interleaved rounds, so a change of load falls on every row alike
            for label, argv in rows.items():
                got[label].append(median_ms(argv, env, max(1, runs // 3)))
        medians = {label: statistics.median(values) for label, values in got.items()}
        anchor = medians["python3 -c pass"]
        print(f"{'':46} {'median ms':>10} {'x python3 -c pass':>18}")
        for label, ms in medians.items():
            print(f"{label:46} {ms:10.1f} {ms / anchor:18.2f}")
        return medians
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--before", help="a git revision whose wrapper to time beside this tree's")
    args = ap.parse_args()
    measure(args.runs, args.before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
