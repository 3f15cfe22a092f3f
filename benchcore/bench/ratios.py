"""The ratios bench/throughput.py prints for issue 21: usage against a floor and ccusage, collect per cell.

Functions only; throughput.py calls them in its one run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

_FLOOR = """import json, sys
totals = [0, 0, 0, 0]
for path in sys.argv[1:]:
    with open(path, "rb") as fh:
        for line in fh:
            if b'"usage"' in line and b'"assistant"' in line:
                u = json.loads(line)["message"]["usage"]
                totals[0] += u.get("input_tokens", 0)
                totals[1] += u.get("output_tokens", 0)
                totals[2] += u.get("cache_creation_input_tokens", 0)
                totals[3] += u.get("cache_read_input_tokens", 0)
print(totals)
"""


def _best(cmd: list[str], runs: int, env: dict | None = None) -> tuple[float, str]:
    """Best wall time of ``cmd`` over ``runs`` runs, and its last output."""
    times, out = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        times.append(time.perf_counter() - start)
        out = proc.stdout
    return min(times), out


def measure_usage_ratios(paths: list[Path], root: Path, ccusage: str | None, benchcore: list[str],
                         runs: int = 5) -> None:
    """``benchcore usage`` against a plain-Python floor (a fresh process that parses each usage line and adds
    four token kinds, nothing else) and, when given, ccusage's single-thread mode on the same files, best of
    ``runs`` each, interleaved; checks that the tokens and dollars agree with ccusage's."""
    size = sum(p.stat().st_size for p in paths) / 1e6
    bench_s, bench_out = _best(benchcore + ["usage", "--json", *map(str, paths)], runs)
    floor_s, _ = _best([sys.executable, "-c", _FLOOR, *map(str, paths)], runs)
    line = (f"usage over {len(paths)} files ({size:.0f} MB), best of {runs}, process start included: benchcore "
            f"{bench_s:.2f} s; plain-Python floor {floor_s:.2f} s (benchcore / floor = {bench_s / floor_s:.2f})")
    if ccusage:
        projects = root / "ccusage-config" / "projects" / "bench"
        projects.mkdir(parents=True)
        for i, p in enumerate(paths):  # ccusage reads $CLAUDE_CONFIG_DIR/projects/**/*.jsonl
            os.link(p, projects / f"session-{i:05d}.jsonl")
        env = dict(os.environ, CLAUDE_CONFIG_DIR=str(root / "ccusage-config"))
        cmd = [ccusage, "claude", "daily", "--json", "--offline", "--single-thread", "--mode", "calculate"]
        cc_s, cc_out = _best(cmd, runs, env)
        line += f"; ccusage --single-thread {cc_s:.2f} s (benchcore / ccusage = {bench_s / cc_s:.2f})"
        mine = json.loads(bench_out)["total"]
        theirs = json.loads(cc_out)["totals"]
        same = ((mine["input"], mine["output"], mine["cache_write_5m"] + mine["cache_write_1h"], mine["cache_read"])
                == (theirs["inputTokens"], theirs["outputTokens"], theirs["cacheCreationTokens"],
                    theirs["cacheReadTokens"]) and abs(mine["cost_usd"] - theirs["totalCost"]) < 1e-6)
        line += f"; totals {'agree' if same else 'DIFFER'} (${mine['cost_usd']:,.4f} against ${theirs['totalCost']:,.4f})"
    else:
        line += "; ccusage not measured (pass --ccusage PATH, e.g. after 'npm install ccusage' in a temp folder)"
    print(line)


def measure_collect(collect_cases: list[int]) -> None:
    """Collect time per cell at each case count (bench/collect_scale.py, the stand-in playing Claude Code),
    and peak memory per MB of transcripts at the first count with 1 MB transcripts."""
    import collect_scale

    per_cell = {}
    for n in collect_cases:
        f = collect_scale.one_size(n, 0.0)
        per_cell[n] = {k: f[k][0] / f["cells"] * 1000 for k in collect_scale.COLLECTS}
        print(f"collect at {n} cases ({f['cells']} cells), ms per cell: "
              + ", ".join(f"{k} {v:.1f}" for k, v in per_cell[n].items()), flush=True)
    if len(collect_cases) > 1:
        a, b = collect_cases[0], collect_cases[-1]
        print(f"collect time per cell, {b} cases / {a} cases: "
              + ", ".join(f"{k} {per_cell[b][k] / per_cell[a][k]:.2f}" for k in collect_scale.COLLECTS)
              + " (1.0 = linear in cells)")
    f = collect_scale.one_size(collect_cases[0], 1.0)
    print(f"collect peak memory at {collect_cases[0]} cases with ~1 MB transcripts ({f['transcripts_mb']:.0f} MB): "
          + ", ".join(f"{k} {f[k][1]:.0f} MB ({f[k][1] / f['transcripts_mb']:.2f} MB per MB read)"
                      for k in collect_scale.COLLECTS))
