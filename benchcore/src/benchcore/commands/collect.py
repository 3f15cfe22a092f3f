"""benchcore collect <run-dir>... [--rerun]: transcripts -> outputs, usage, assertions, packets, judgments.

Run it after the arm subagents and again after the judges; it is safe to run
any number of times (each file is rewritten only when its content changes).
Per run directory it runs the stages of ``harness/collect/run.py`` in order
(transcripts, audit, gate, packets, answers, escalation, what is left to launch).

``--rerun`` plans every cell of an invalid trial and every cell whose transcript
stopped without a final message afresh (new world, new prompt), keeping the old
files under ``cases/<case>/t<N>/.invalid-<k>/``. A cell that no transcript
names yet has not run (the arms were not launched, or are still starting): it
is neither re-planned nor counted as an attempt, and the next step is to launch
it (or wait for the running launch).

It exits 0 whenever it has done its work and names the next step, work left
included; non-zero means an error (2 bad input, 3 internal).
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path

from ..errors import BenchError
from ..harness.worlds import assertions as hard
from ..harness.collect.rerun import MAX_ATTEMPTS
from ..harness.collect.run import collect_runs
from ..harness.collect.status import Status, provenance_lines, status_dict
from ..harness.store.files import locked_run, shown_path
from ..harness.worlds.shell import sigterm_as_interrupt

LIST_LIMIT = 8  # names printed per kind; the full lists are in <run>/collect.json


def add_arguments(p) -> None:
    p.add_argument("run_dirs", nargs="+", type=Path, metavar="run-dir", help="run directory (tests/.reports/runs/<id>)")
    p.add_argument("--rerun", action="store_true",
                   help="plan invalid trials and cells with no transcript afresh (new worlds) for another arms launch")
    p.add_argument("--assert-timeout", type=float, default=hard.DEFAULT_TIMEOUT,
                   help="seconds per hard assertion (default: %(default)g)")
    p.add_argument("--json", action="store_true", help="print a machine-readable status")


def _names(items, limit: int = LIST_LIMIT) -> str:
    items = list(items)
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def check_timeout(value: float) -> float:
    """``--assert-timeout`` must be a positive, finite number of seconds (0, a negative, nan or inf would gate
    every trial, or never end)."""
    if not (isinstance(value, float) and math.isfinite(value) and value > 0):
        raise BenchError(None, f"--assert-timeout {value!r} is not a positive number of seconds",
                         fix=f"pass a number above 0, e.g. --assert-timeout {hard.DEFAULT_TIMEOUT:g} (the default)")
    return value


def run(args) -> int:
    check_timeout(args.assert_timeout)
    run_dirs = []
    for d in args.run_dirs:
        d = Path(d).resolve()
        if not (d / "plan.json").is_file():
            raise BenchError(str(d), "is not a planned run directory (no plan.json)",
                             fix="pass the run directory 'benchcore plan' printed (tests/.reports/runs/<run-id>)")
        run_dirs.append(d)
    with contextlib.ExitStack() as held:
        held.enter_context(sigterm_as_interrupt())  # stopped by SIGTERM as by Ctrl-C: its checks killed with it
        for d in sorted(set(run_dirs)):  # one collect per run at a time (always taken in the same order)
            held.enter_context(locked_run(d))
        return _collect(args, run_dirs)


def _collect(args, run_dirs: list[Path]) -> int:
    done = collect_runs(run_dirs, args.rerun, args.assert_timeout)
    launches = done.launches
    skipped = [{"path": str(path), "is": what} for path, what in done.refused]
    if args.json:
        print(json.dumps({"runs": [status_dict(s) for s in done.statuses], "skipped_files": skipped,
                          "arms_workflow": str(launches.arms_scripts[0]) if launches.arms_scripts else None,
                          "judges_workflow": str(launches.judges_scripts[0]) if launches.judges_scripts else None,
                          "arms_workflows": [str(p) for p in launches.arms_scripts],
                          "judges_workflows": [str(p) for p in launches.judges_scripts], "complete": done.complete,
                          "resume_hint": done.hint or None, "next": done.next},
                         indent=1))
    else:
        for f in skipped[:LIST_LIMIT]:
            print(f"note: skipped {f['path']}: it is {f['is']}, not a regular file, so it is no transcript "
                  "(never opened: a named pipe would wait forever); remove it")
        if len(skipped) > LIST_LIMIT:
            print(f"note: ... and {len(skipped) - LIST_LIMIT} more such files (--json lists them)")
        for s in done.statuses:
            _print_status(s, named=len(done.statuses) > 1)
        if done.hint:
            print(done.hint)
        print(f"next: {done.next}")
    return 0  # work remaining is not an error: the next: line names it (only render's verdict exits 1)


def _print_status(s: Status, named: bool = True) -> None:
    # One run: its folder is in the next: line already; several (e.g. one per model): each says which it is.
    where = f" ({shown_path(s.run_dir)})" if named else ""
    print(f"{s.skill}{where}: {s.cells_in}/{s.cells} cells collected; "
          f"{s.packets - len(s.pending_packets)}/{s.packets} packets judged")
    if s.rerun:
        print(f"  re-planned {len(s.rerun)} cells with fresh worlds: {_names(s.rerun)}")
    if s.gated:
        print(f"  gated (a hard assertion failed; a loss on both axes, not judged): {_names(s.gated)}")
    for trial, problems in s.invalid_trials[:LIST_LIMIT]:
        print(f"  INVALID trial {trial} (re-run, not scored): {problems[:300]}")
    if len(s.invalid_trials) > LIST_LIMIT:
        print(f"  ... and {len(s.invalid_trials) - LIST_LIMIT} more invalid trials (see collect.json)")
    for pid, err in s.bad_answers[:LIST_LIMIT]:
        print(f"  error: the judge answer for packet {pid} is invalid: {err[:300]}; re-judge {pid}")
    if s.escalated:
        print(f"  split, escalated to two more judges per judged trial: {_names(s.escalated)}")
    if not s.rerun and s.not_started:
        print(f"  not run yet (no transcript names their world; not a failure): {len(s.not_started)} cells: "
              f"{_names(s.not_started)}")
    if s.unfinished:
        print(f"  still running or cut off (a transcript without a final message): {len(s.unfinished)} cells: "
              f"{_names(s.unfinished)}")
    if s.given_up:
        print(f"  given up after {MAX_ATTEMPTS - 1} re-runs (the report shows them as incomplete): "
              f"{len(s.given_up)} cells: {_names(s.given_up)}")
        from ..results import REFUSED_SHOWN, refused_calls

        calls = list(dict.fromkeys(c for _, problems in s.invalid_trials for c in refused_calls(problems)))
        if calls:  # the permission mode refused the arms, not the skill: say so, with the calls
            print(f"  why: Claude Code refused the arms' tool calls ({'; '.join(calls[:REFUSED_SHOWN])}"
                  f"{f'; and {len(calls) - REFUSED_SHOWN} more' if len(calls) > REFUSED_SHOWN else ''}): your "
                  "permission mode or settings stopped them, not the skill; allow those calls for the arms "
                  "(docs/permissions.md), then plan again")
    if s.pending_packets and (len(s.pending_packets) <= LIST_LIMIT or len(s.pending_packets) < s.packets):
        # None judged yet and too many to name: the status line's "0/N packets judged" says it all.
        n = len(s.pending_packets)
        # A long list is noise to the agent that launches the judges script: their ids are in collect.json.
        print(f"  packets with no answer: {n}" + (f": {_names(s.pending_packets)}" if n <= LIST_LIMIT else
                                                  " (their ids: collect.json)"))
    if s.not_run:
        whys = sorted({why for _, why in s.not_run})
        print(f"  not run ({'; '.join(whys)}; the report shows them as not run, never scored): "
              f"{len(s.not_run)}: {_names(k for k, _ in s.not_run)}")
    for line in provenance_lines(s, LIST_LIMIT):
        print(line)
    for pid, why in s.ignored_judges[:LIST_LIMIT]:
        print(f"  ignored a transcript that names packet {pid} but is not its judge: {why[:300]}")
    if s.unchecked:
        print(f"  hard assertions not run, the world is gone (benchcore clean ran): {_names(s.unchecked)}; "
              f"their efficacy stays unjudged and the run incomplete")
    if not (s.missing_cells or s.invalid_trials or s.pending_packets or s.unchecked):
        print("  nothing missing")
    if s.checks == "unconfined":
        print("  note: no OS sandbox in this run (planned with --no-sandbox, or before the sandbox): its hard "
              "assertions ran unconfined, on this machine with your session's environment, and a predicate that "
              "runs the arm's code (a test runner, a script in its world) ran that code unconfined too")
