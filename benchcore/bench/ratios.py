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


def native_ccusage(given: str | None) -> tuple[str | None, str]:
    """The ccusage program to time, and what it is. ccusage's npm package starts through a JavaScript launcher
    (``node_modules/.bin/ccusage`` -> ``ccusage/src/cli.js``) that runs its platform's native binary, from
    ``@ccusage/ccusage-<os>-<arch>/bin/ccusage``, adding node's start-up (about 80 ms); the binary is the
    anchor. Given the launcher (or its node_modules folder), the native binary beside it is used."""
    if not given:
        return None, "not found"
    path = Path(given).resolve()
    if path.is_file() and path.read_bytes()[:4] == b"\x7fELF" or path.suffix == ".exe":
        return str(path), f"native binary {path}"
    import platform

    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower(), "")
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    for folder in [path, *path.parents]:
        for modules in (folder / "node_modules", folder) if folder.name != "node_modules" else (folder,):
            native = modules / "@ccusage" / f"ccusage-{system}-{arch}" / "bin" / "ccusage"
            if native.is_file():
                return str(native), f"native binary {native} (found beside the launcher {given})"
    return str(path), f"the launcher {given} (no native binary found beside it: node start-up included)"


def _run(cmd: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """One run of ``cmd``: its wall time, its CPU time (user + system, from getrusage: microseconds, where
    os.times counts 10 ms ticks) and its output."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, proc.stdout


def _paired(cmds: list[tuple[list[str], dict | None]], runs: int) -> list[tuple[list[float], list[float], str]]:
    """Each command run ``runs`` times, in turns (one of each, then again), so a change in the machine's
    load falls on all of them alike: per command, its wall times, CPU times and last output."""
    out = [([], [], "") for _ in cmds]
    for _ in range(runs):
        for i, (cmd, env) in enumerate(cmds):
            wall, cpu, text = _run(cmd, env)
            out[i][0].append(wall)
            out[i][1].append(cpu)
            out[i] = (out[i][0], out[i][1], text)
    return out


def _ms(values: list[float]) -> str:
    import statistics

    return f"{min(values) * 1000:.0f}/{statistics.median(values) * 1000:.0f} ms"


def measure_usage_ratios(paths: list[Path], root: Path, ccusage: str | None, benchcore: list[str],
                         runs: int = 9) -> None:
    """``benchcore usage`` against a plain-Python floor (a fresh process that parses each usage line and adds
    four token kinds, nothing else) and, when given, ccusage's single-thread mode on the same files, ``runs``
    paired runs each (best and median, CPU and wall); checks that the tokens and dollars agree with ccusage's."""
    import statistics

    size = sum(p.stat().st_size for p in paths) / 1e6
    # One untimed run that may write bytecode, as installing does: with PYTHONDONTWRITEBYTECODE set (as in
    # some shells and CI) an editable install would otherwise recompile benchcore on every timed run.
    warm = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(benchcore + ["usage", "--json", str(paths[0])], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=warm)
    cmds = [(benchcore + ["usage", "--json", *map(str, paths)], None),
            ([sys.executable, "-c", _FLOOR, *map(str, paths)], None)]
    ccusage, which = native_ccusage(ccusage)
    if ccusage and not os.access(ccusage, os.X_OK):
        # Seen with 20.0.24 on 2026-12-05: `npm install ccusage` left the native binary without its execute bit.
        print(f"ccusage: not measured: {ccusage} is not executable; fix: chmod +x {ccusage}")
        ccusage = None
    if ccusage:
        projects = root / "ccusage-config" / "projects" / "bench"
        projects.mkdir(parents=True)
        for i, p in enumerate(paths):  # ccusage reads $CLAUDE_CONFIG_DIR/projects/**/*.jsonl
            os.link(p, projects / f"session-{i:05d}.jsonl")
        env = dict(os.environ, CLAUDE_CONFIG_DIR=str(root / "ccusage-config"))
        cmds.append(([ccusage, "claude", "daily", "--json", "--offline", "--single-thread", "--mode", "calculate"],
                      env))
        _run(*cmds[2])  # untimed, as benchcore's
    results = _paired(cmds, runs)
    (b_wall, b_cpu, bench_out), (f_wall, f_cpu, _) = results[:2]
    med = statistics.median
    line = (f"usage over {len(paths)} files ({size:.0f} MB), {runs} paired runs, best/median, process start "
            f"included, load average {os.getloadavg()[0]:.1f}: benchcore CPU {_ms(b_cpu)}, wall {_ms(b_wall)}; "
            f"plain-Python floor CPU {_ms(f_cpu)} (benchcore / floor: CPU {min(b_cpu) / min(f_cpu):.2f}/"
            f"{med(b_cpu) / med(f_cpu):.2f})")
    if ccusage:
        c_wall, c_cpu, cc_out = results[2]
        line += (f"; ccusage --single-thread CPU {_ms(c_cpu)}, wall {_ms(c_wall)} (benchcore / ccusage: CPU "
                 f"{min(b_cpu) / min(c_cpu):.2f}/{med(b_cpu) / med(c_cpu):.2f}, wall "
                 f"{min(b_wall) / min(c_wall):.2f}/{med(b_wall) / med(c_wall):.2f}; timed: {which})")
        mine = json.loads(bench_out)["total"]
        theirs = json.loads(cc_out)["totals"]
        same = ((mine["input"], mine["output"], mine["cache_write_5m"] + mine["cache_write_1h"], mine["cache_read"])
                == (theirs["inputTokens"], theirs["outputTokens"], theirs["cacheCreationTokens"],
                    theirs["cacheReadTokens"]) and abs(mine["cost_usd"] - theirs["totalCost"]) < 1e-6)
        line += f"; totals {'agree' if same else 'DIFFER'} (${mine['cost_usd']:,.4f} against ${theirs['totalCost']:,.4f})"
    else:
        line += "; ccusage not measured (pass --ccusage PATH, e.g. after 'npm install ccusage' in a temp folder)"
    print(line)


def measure_collect(collect_cases: list[int], mb: float = 0.1) -> None:
    """Collect's growth on the realistic corpus (bench/collect_scale.py --tools: distinct Read, Bash and Edit
    results owned by their calls, the guard's record beside each, every trial valid), about ``mb`` MB per arm
    transcript, at each case count: the CPU growth exponent of each collect and of the audit (1.0 = linear in
    cells), plan's time, and the peak memory of each collect at the smallest and largest count."""
    import math

    import collect_scale

    got = {n: collect_scale.one_size(n, mb, tools=True) for n in collect_cases}
    for n, f in got.items():
        print(f"collect at {n} cases ({f['cells']} cells, {f['transcripts_mb']:.0f} MB realistic): "
              + ", ".join(f"{k} {f[k][2]:.2f} s CPU, peak {f[k][1]:.0f} MB" for k in collect_scale.COLLECTS)
              + f"; audit {f['audit_cpu']:.2f} s CPU; {os.getloadavg()[0]:.1f} load", flush=True)
    if len(collect_cases) > 1:
        a, b = got[collect_cases[0]], got[collect_cases[-1]]
        exp = lambda x, y: math.log(y / x) / math.log(b["cells"] / a["cells"])  # noqa: E731
        print(f"collect CPU growth exponent {collect_cases[0]} -> {collect_cases[-1]} cases: "
              + ", ".join(f"{k} {exp(a[k][2], b[k][2]):.2f}" for k in collect_scale.COLLECTS)
              + f", audit {exp(a['audit_cpu'], b['audit_cpu']):.2f} (1.0 = linear in cells)")
    print(f"plan at {collect_cases[-1]} cases: {got[collect_cases[-1]]['plan_s']:.2f} s, process start included "
          "(no fixed wait)")


def measure_collect_tools(cases: int, mb: float, runs: int = 7) -> None:
    """The first collect on the realistic corpus against plain reading with json.loads and with msgspec,
    paired and interleaved, ``runs`` rounds, CPU and wall, load average printed (collect_scale.paired)."""
    import collect_scale

    collect_scale.paired(cases, mb, runs)


