"""Throughput benchmark for benchcore (a script, not a test).

    python benchcore/bench/throughput.py [--cases 20] [--trials 5] [--mb 1.0] [--type-last]
                                         [--render-run-dir DIR] [--ccusage PATH] [--collect-cases 20,200]

Generates, in a temporary directory, a synthetic run of cases x trials x 3 arms
whose cells each hold a transcript of about ``--mb`` MB in the on-disk Claude
Code format (mostly large tool_result user lines; assistant responses written
as several lines sharing one message.id, with placeholder output tokens on all
but the last), then measures and prints:

- transcript throughput in MB/s (``--type-last``: the worst case, where no
  record's type can be read from the start of its line): every cell read through
  ``benchcore.harness.claude.tokens.read_transcript``, in this process (one
  core), warm page cache, best of several passes; the figures are checked
  against the totals the generator wrote;
- ``benchcore --help`` start-up time: median of several subprocess runs, and
  whether Jinja2 or PyYAML were imported on the way;
- ``benchcore usage --json`` over every cell, end to end, once;
- ``benchcore usage`` against a plain-Python floor and, where installed
  (``--ccusage``), ccusage's single-thread mode on the same files, as ratios,
  with the totals checked against ccusage's;
- render time of that run, excluding reading (results, history, report view,
  HTML, index; in process), and ``benchcore render`` end to end;
- the same usage ratios on a second corpus of the same size whose user records
  have their type last (first with ``--type-last``);
- collect's growth on the realistic corpus (bench/collect_scale.py --tools, about 0.1 MB per arm transcript:
  distinct Read, Bash and Edit results owned by their calls, the guard's record beside each, every trial
  asserted valid): the CPU growth exponent of each collect and of the audit between the first and last of
  ``--collect-cases``, peak memory, and plan's time;
- the first collect over ~400 MB of that corpus (``--tools-cases``, ``--tools-mb``) paired and interleaved
  with plain reading by ``json.loads`` and by msgspec (single-thread processes), 7 rounds, CPU and wall
  medians and the medians of the rounds' ratios, the load average printed, and the collect with nothing
  new after each (collect_scale.paired);
- one call of the skill's wrapper once benchcore is installed, against
  ``python3 -c pass`` (``--wrapper-runs``; bench/wrapper_calls.py lays out the
  plugin's copy and lets the wrapper install benchcore first, with pip).

ccusage is timed as its native binary (``ratios.native_ccusage``: given the
npm launcher, the ``@ccusage/ccusage-<os>-<arch>`` binary beside it).

Nothing is written outside the temporary directory, which is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ratios import measure_collect, measure_collect_tools, measure_usage_ratios  # beside this script

ARMS = ("new", "baseline", "previous")
MODEL = "claude-sonnet-4-6"

_WORDS = ("def class return import self value path line token cache usage result error "
          "print json open file data model case trial arm render report").split()


def _tool_text(rng: random.Random, size: int) -> str:
    """Source-like text of about ``size`` characters with quotes, tabs and newlines to escape."""
    parts = []
    total = 0
    while total < size:
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 12)))
        line = f'    {words} = "{rng.randint(0, 10**6)}"\t# {words}\n'
        parts.append(line)
        total += len(line)
    return "".join(parts)


def _base(session: str, agent: str, parent: str | None) -> dict:
    return {"parentUuid": parent, "isSidechain": True, "userType": "external", "cwd": "/tmp/world",
            "sessionId": session, "version": "2.1.178", "gitBranch": "main", "agentId": agent}


def write_transcript(path: Path, rng: random.Random, target_bytes: int, type_last: bool = False) -> dict:
    """Write one transcript; return the figures the reader must find (turns and components).

    Claude Code writes a user record's ``type`` before its ``message``;
    ``type_last`` moves it to the end, defeating the reader's head shortcut
    (the worst case: every byte of every tool result is scanned).
    """
    session = f"{rng.getrandbits(64):016x}"
    agent = f"a{rng.getrandbits(40):010x}"
    expected = {"turns": 0, "input": 0, "output": 0, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 0}
    written = 0
    parent = None
    n = 0
    context = 12_000
    with open(path, "w", encoding="utf-8") as fh:
        def emit(record: dict) -> None:
            nonlocal written
            text = json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
            fh.write(text)
            written += len(text.encode("utf-8"))

        rec = _base(session, agent, parent)
        rec.update({"type": "user", "message": {"role": "user", "content": "Do the task in the prompt."},
                    "uuid": f"u{n}", "timestamp": "2026-12-02T16:00:00.000Z"})
        emit(rec)
        while written < target_bytes:
            n += 1
            msg_id = f"msg_{rng.getrandbits(96):024x}"
            req_id = f"req_{rng.getrandbits(96):024x}"
            inp = rng.randint(1, 8)
            out = rng.randint(50, 2000)
            write = rng.randint(200, 9000)
            one_hour = write if rng.random() < 0.5 else 0
            read = context
            context += write
            blocks = [{"type": "thinking", "thinking": _tool_text(rng, 600), "signature": "sig"},
                      {"type": "text", "text": "Reading the next file."},
                      {"type": "tool_use", "id": f"toolu_{n}", "name": "Read",
                       "input": {"file_path": f"/tmp/world/src/f{n}.py"}}]
            for i, block in enumerate(blocks):
                last = i == len(blocks) - 1
                usage = {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
                         "cache_creation": {"ephemeral_5m_input_tokens": write - one_hour,
                                            "ephemeral_1h_input_tokens": one_hour},
                         "output_tokens": out if last else rng.choice((1, 7, 8)),
                         "service_tier": "standard"}
                rec = _base(session, agent, parent)
                rec.update({"message": {"model": MODEL, "id": msg_id, "type": "message", "role": "assistant",
                                        "content": [block], "stop_reason": "tool_use" if last else None,
                                        "stop_sequence": None, "usage": usage},
                            "requestId": req_id, "type": "assistant", "uuid": f"a{n}.{i}",
                            "timestamp": "2026-12-02T16:00:01.000Z"})
                emit(rec)
                parent = f"a{n}.{i}"
            expected["turns"] += 1
            expected["input"] += inp
            expected["output"] += out
            expected["cache_write_5m"] += write - one_hour
            expected["cache_write_1h"] += one_hour
            expected["cache_read"] += read
            body = _tool_text(rng, rng.randint(20_000, 120_000))
            rec = _base(session, agent, parent)
            rec.update({"type": "user",
                        "message": {"role": "user", "content": [
                            {"tool_use_id": f"toolu_{n}", "type": "tool_result", "content": body}]},
                        "uuid": f"u{n}", "timestamp": "2026-12-02T16:00:02.000Z",
                        "toolUseResult": {"type": "text", "file": {"filePath": f"/tmp/world/src/f{n}.py",
                                                                    "content": body, "numLines": body.count("\n")}}})
            if type_last:
                rec["type"] = rec.pop("type")
            emit(rec)
            parent = f"u{n}"
    return expected


def generate_run(root: Path, cases: int, trials: int, mb: float, seed: int = 7,
                 type_last: bool = False) -> tuple[list[Path], dict]:
    """A synthetic three-arm run directory, complete enough to render.

    Per cell a transcript, an output.md; per trial assertions.json and seeded
    judgments for both comparisons; run.json and one case.md per case.
    Returns the transcript paths and the summed expected figures.
    """
    rng = random.Random(seed)
    paths = []
    totals: dict[str, int] = {}
    case_ids = [f"{c:02d}-case" for c in range(1, cases + 1)]
    for case_id in case_ids:
        cdir = root / "cases" / case_id
        cdir.mkdir(parents=True)
        (cdir / "case.md").write_text(
            f"---\ndescription: synthetic case {case_id}\n---\n## Prompt\nDo the task.\n"
            "## Hard assertions\n```sh\ntest -s \"$OUTPUT\"\n```\n## Soft criteria\n- Does the task well.\n")
        for t in range(1, trials + 1):
            tdir = cdir / f"t{t}"
            for arm in ARMS:
                cell = tdir / arm
                cell.mkdir(parents=True)
                path = cell / "transcript.jsonl"
                for key, value in write_transcript(path, rng, int(mb * 1_000_000), type_last).items():
                    totals[key] = totals.get(key, 0) + value
                paths.append(path)
                (cell / "output.md").write_text(_tool_text(rng, 1500))
            (tdir / "new" / "assertions.json").write_text(json.dumps(
                [{"command": 'test -s "$OUTPUT"', "exit": 0 if rng.random() < 0.95 else 1,
                  "timed_out": False, "stderr": ""}]))
            for comparison, other in (("efficacy", "baseline"), ("regression", "previous")):
                order = {"A": "new", "B": other} if rng.random() < 0.5 else {"A": other, "B": "new"}
                verdict = rng.choice(("A", "B", "B", "TIE"))
                judgment = {"verdict": verdict, "rationale": _tool_text(rng, 300), "quote": "q"}
                if verdict != "TIE":
                    judgment["strength"] = "clear"
                (tdir / f"{comparison}.json").write_text(json.dumps({"order": order, "judgments": [judgment]}))
    (root / "run.json").write_text(json.dumps({
        "schema": 1, "run_id": "20261202T160000Z-bench", "skill": {"name": "bench", "path": "skills/bench"},
        "started_at": "2026-12-02T16:00:00Z", "shape": "three-arm", "arms": list(ARMS),
        "comparisons": {"efficacy": ["new", "baseline"], "regression": ["new", "previous"]},
        "trials": trials, "temperature": {"requested": 1.0, "applied": "session default"}, "seed": seed,
        "default_branch": {"name": "main", "commit": "0" * 40}, "cases": case_ids}))
    return paths, totals


def measure_throughput(paths: list[Path], expected: dict, passes: int = 5) -> float:
    """MB/s of read_transcript over every path, one core, warm cache; checks the figures."""
    from benchcore import usage
    from benchcore.harness.claude import tokens

    size = sum(p.stat().st_size for p in paths)
    for p in paths:  # warm the page cache
        with open(p, "rb") as fh:
            while fh.read(1 << 22):
                pass
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        results = [tokens.read_transcript(p) for p in paths]
        times.append(time.perf_counter() - start)
    prices = tokens.price_table()
    total = usage.sum_usage(usage.arm_usage(r, prices) for r in results)
    got = {k: getattr(total, k) for k in expected}
    if got != expected:
        raise SystemExit(f"figures differ from what was generated: got {got}, expected {expected}")
    best = min(times)
    print(f"transcripts: {len(paths)} files, {size / 1e6:.1f} MB; "
          f"best of {passes} passes {best:.3f} s (median {statistics.median(times):.3f} s)")
    print(f"transcript throughput: {size / 1e6 / best:.0f} MB/s (best), "
          f"{size / 1e6 / statistics.median(times):.0f} MB/s (median), one core, warm cache; figures checked")
    return size / 1e6 / best


def _benchcore_cmd() -> list[str]:
    exe = shutil.which("benchcore")
    return [exe] if exe else [sys.executable, "-m", "benchcore"]


def measure_startup(runs: int = 11) -> float:
    """Median wall time of ``benchcore --help`` in a fresh process; also reports heavy imports."""
    cmd = _benchcore_cmd() + ["--help"]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys, contextlib, io\nfrom benchcore.cli import main\n"
         "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
         "    main(['--help'])\n"
         "print(','.join(m for m in ('jinja2', 'yaml') if m in sys.modules) or 'none')"],
        check=True, capture_output=True, text=True)
    median = statistics.median(times)
    print(f"'benchcore --help' start-up: median {median * 1000:.0f} ms over {runs} runs "
          f"(min {min(times) * 1000:.0f} ms); heavy modules imported: {probe.stdout.strip()}")
    return median


def measure_usage_cli(paths: list[Path]) -> float:
    """Wall time of one ``benchcore usage --json`` over every path (process start included)."""
    cmd = _benchcore_cmd() + ["usage", "--json", *map(str, paths)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        print(f"'benchcore usage' failed (exit {proc.returncode}): {proc.stderr.strip()}")
        return elapsed
    size = sum(p.stat().st_size for p in paths)
    print(f"'benchcore usage --json' over {len(paths)} files: {elapsed:.2f} s end to end "
          f"({size / 1e6 / elapsed:.0f} MB/s including start-up and output)")
    return elapsed


def measure_render_core(run_dir: Path, passes: int = 5) -> float:
    """Render without reading: results, history, report view, HTML and index, in process (best of passes).

    The run is read once first (transcripts included) and that read is timed
    separately, so the figure is what rendering itself costs.
    """
    from benchcore import history as hist
    from benchcore import serde
    from benchcore.harness.runs.folder import read_run
    from benchcore.report import LeaderboardEntry, build_index_view, build_report_view
    from benchcore.report.render import render_index, render_report
    from benchcore.results import build_results

    start = time.perf_counter()
    data = read_run(run_dir)
    read_s = time.perf_counter() - start
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        result = build_results(data)
        entries = hist.append([], hist.entry_for(result, data.run))
        page = render_report(build_report_view(result, data, entries, generated_at="2026-12-02T16:00:00Z"))
        index = render_index(build_index_view([LeaderboardEntry(result.skill, result, "bench.html")],
                                              generated_at="2026-12-02T16:00:00Z"))
        serde.dumps(result), hist.dumps(entries)
        times.append(time.perf_counter() - start)
    best = min(times)
    print(f"render (excluding reading): best {best:.3f} s, median {statistics.median(times):.3f} s over {passes} passes "
          f"for {len(data.cases)} cases x {data.run.trials} trials x {len(data.run.arms)} arms "
          f"({len(page) / 1e3:.0f} kB page, {len(index) / 1e3:.0f} kB index); reading the run took {read_s:.2f} s")
    return best


def measure_render(run_dir: Path | None) -> float | None:
    """Time ``benchcore render <run_dir> --reports <tmp>`` end to end (process start and reading included)."""
    if run_dir is None or not (Path(run_dir) / "run.json").is_file():
        print(f"render: not measured ({'no run directory given' if run_dir is None else f'{run_dir} has no run.json'}; "
              "pass --render-run-dir with a real run directory)")
        return None
    with tempfile.TemporaryDirectory(prefix="benchcore-render-") as reports:
        cmd = _benchcore_cmd() + ["render", str(run_dir), "--reports", reports]
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        print(f"render: failed (exit {proc.returncode}): {proc.stderr.strip()}")
        return None
    print(f"render: {elapsed:.2f} s for {run_dir} (exit {proc.returncode})")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--mb", type=float, default=1.0, help="size of each transcript in MB (default 1.0)")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--type-last", action="store_true",
                        help="write user records with their type after the message (worst case for the reader)")
    parser.add_argument("--render-run-dir", type=Path, default=None,
                        help="a real run directory (with run.json) whose render to time")
    parser.add_argument("--ccusage", default=shutil.which("ccusage"),
                        help="the ccusage program to compare 'benchcore usage' with (default: on PATH)")
    parser.add_argument("--collect-cases", default="20,200",
                        help="case counts for collect's time per cell, comma-separated ('' to skip collect)")
    parser.add_argument("--tools-cases", type=int, default=4,
                        help="case counts for the tool-heavy first collect (collect_scale.py --tools)")
    parser.add_argument("--tools-mb", type=float, default=6.5,
                        help="MB per arm transcript of the tool-heavy collect (0 to skip); 4 cases x 6.5 MB ~ 400 MB")
    parser.add_argument("--wrapper-runs", type=int, default=30,
                        help="calls of the skill's wrapper to time against a bare interpreter start, once benchcore "
                             "is installed (wrapper_calls.py; the install uses pip; 0 to skip)")
    args = parser.parse_args(argv)
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_setaffinity") else None
    if cores is not None:
        os.sched_setaffinity(0, {sorted(cores)[0]})  # one core
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs visible, pinned to one")
    with tempfile.TemporaryDirectory(prefix="benchcore-bench-") as tmp:
        start = time.perf_counter()
        paths, expected = generate_run(Path(tmp), args.cases, args.trials, args.mb, type_last=args.type_last)
        print(f"generated {args.cases} cases x {args.trials} trials x {len(ARMS)} arms"
              f"{' (user records with type last)' if args.type_last else ''} "
              f"in {time.perf_counter() - start:.1f} s")
        measure_throughput(paths, expected, args.passes)
        measure_usage_cli(paths)
        measure_usage_ratios(paths, Path(tmp), args.ccusage, _benchcore_cmd())
        # A second corpus: the same shape with every user record's type written last (or first, with
        # --type-last), so the head shortcut works on one and on the other every byte is scanned.
        second = Path(tmp) / "second"
        second.mkdir()
        paths2, _ = generate_run(second, args.cases, args.trials, args.mb, type_last=not args.type_last, seed=2)
        print(f"second corpus: user records with type {'first' if args.type_last else 'last'}")
        measure_usage_ratios(paths2, second, args.ccusage, _benchcore_cmd())
        measure_render_core(Path(tmp))
        measure_render(Path(tmp))
    measure_startup()
    if args.render_run_dir is not None:
        measure_render(args.render_run_dir)
    if args.tools_mb:
        # Before the 200-case collects, whose thousands of files the disk is still writing back and discarding
        # for a while after they are removed; on every core, as a user's collect (its second thread copies and
        # hashes).
        os.sync()
        if cores is not None:
            os.sched_setaffinity(0, cores)
        measure_collect_tools(args.tools_cases, args.tools_mb)
        if cores is not None:
            os.sched_setaffinity(0, {sorted(cores)[0]})
    if args.collect_cases:
        measure_collect([int(n) for n in args.collect_cases.split(",")])
    if args.wrapper_runs:
        from wrapper_calls import measure as measure_wrapper  # beside this script

        print(f"the skill's wrapper, once benchcore is installed ({args.wrapper_runs} calls per row, medians):")
        measure_wrapper(args.wrapper_runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
