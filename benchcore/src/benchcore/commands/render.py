"""benchcore render <run-dir> [--reports DIR] [--json] | --example

Reads a run directory, applies the rules, and writes into the reports folder:
<skill>.results.json, <skill>.html, <skill>.history.jsonl (appended, last 50
kept) and index.html (every skill's latest run). Everything is computed before
anything is written, and every file is replaced atomically, so a bad input
leaves what was there untouched.

Exit: 0 both verdicts green (or n/a) and the run complete; 1 a verdict is red,
the run is incomplete, or judges still have to be added to a split; 2 bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

from .. import serde
from ..calibration import noise_line
from ..errors import BenchError
from ..harness.render import EXAMPLE_REPORTS, render_run
from ..harness.store.files import shown_path


def add_arguments(p) -> None:
    p.add_argument("run_dir", nargs="*", type=Path, metavar="run-dir",
                   help="the run directory (tests/.reports/runs/<run-id>)")
    p.add_argument("--reports", type=Path, default=None,
                   help="where to write reports (default: tests/.reports of the repository holding the run; "
                        f"with --example: ./{EXAMPLE_REPORTS})")
    p.add_argument("--example", action="store_true", help="render the bundled example run (no setup needed)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


def run(args) -> int:
    """Render each run directory named (several: one after another, e.g. the runs of a skill's models)."""
    dirs = list(args.run_dir or [])
    if args.example == bool(dirs):
        raise BenchError(None, "give a run directory or --example (one of the two)",
                         fix="benchcore render tests/.reports/runs/<run-id>   or   benchcore render --example")
    if args.example or len(dirs) == 1:
        return _run_one(args, dirs[0] if dirs else None, last=True)
    for d in dirs:
        if not d.is_dir():
            raise BenchError(str(d), "does not exist or is not a folder",
                             fix="pass the run directories 'benchcore plan' printed (tests/.reports/runs/<run-id>)")
    code = 0
    payloads: list[dict] = []
    for d in dirs:
        code = max(code, _run_one(args, d, last=False, sink=payloads))
    if args.json:
        print(json.dumps({"runs": payloads, "exit": code,
                          "next": f"benchcore clean {' '.join(str(d) for d in dirs)}"}, indent=2))
    else:
        print(f"next: benchcore clean {' '.join(str(d) for d in dirs)}   "
              "(in the background, after the verdicts)")
    return code


def _run_one(args, run_dir_arg: Optional[Path], last: bool, sink: Optional[list] = None) -> int:
    r = render_run(run_dir_arg, args.reports, args.example)
    if r.calibration is not None:
        return _calibration(args, r, last, sink)
    if r.pilot is not None:
        return _pilot(args, r, last, sink)
    result, files, warnings, code, next_step, run_dir = r.result, r.files, r.warnings, r.code, r.next_step, r.run_dir
    skill = result.skill
    if args.json:
        payload = {
            "skill": skill,
            "run_id": result.run_id,
            "headline": result.headline,
            "verdicts": serde.dump(result.verdicts),
            "incomplete": result.incomplete,
            "escalations": serde.dump(result.escalations),
            "files": {k: str(v) for k, v in files.items()},
            "warnings": warnings,
            "exit": code,
            "next": next_step,
        }
        if sink is not None:
            sink.append(payload)
        else:
            print(json.dumps(payload, indent=2))
        return code
    v = result.verdicts
    print(f"{skill}  run {result.run_id}  ({result.shape})")
    def status(verdict) -> str:
        return "incomplete (not final; it does not pass yet)" if verdict.incomplete else verdict.status

    print(f"  efficacy:   {status(v.efficacy)}  net {v.efficacy.net:+d}")
    if v.regression.status == "n/a":
        print("  regression: n/a (two-arm run)")
    else:
        print(f"  regression: {status(v.regression)}  net {v.regression.net:+d}")
    print(f"  {result.headline}")
    if result.noise is not None:
        print(f"  noise: {noise_line(result.noise, skill)}")
        for red in result.noise.reds:  # each red regression case the judges decided, with its own figure
            print(f"    {red.sentence}")
    if result.incomplete:
        print("  the run is incomplete: some trials have no judgment or must be re-run (the report names them)")
    for e in result.escalations:
        trials = ", ".join(str(t) for t in e.trials)
        if args.example:  # nothing to run: the bundled example stops where a real run would ask more judges
            print(f"  judges split on {e.case} {e.comparison} (trials {trials}): in a real run, collect writes two "
                  "more judge packets per trial and /benchmark-skill launches them; the bundled example stops here")
        else:
            print(f"  judges split on {e.case} {e.comparison}: two more judges are due on trials {trials}; "
                  f"run benchcore collect {run_dir} and launch the judges script it names")
    for w in warnings:
        print(f"  warning: {w}", file=sys.stderr)
    print(f"wrote: {_wrote(files)}")
    if last:
        print(f"next: {next_step}")
    return code


def _wrote(files: dict) -> str:
    """The report's path first (the one the user opens), then the other files, by name when beside it."""
    report = Path(files["report"])
    others = [Path(f).name if Path(f).parent == report.parent else shown_path(f)
              for k, f in files.items() if k != "report"]
    return shown_path(report) + (f" (and {', '.join(others)} beside it)" if others else "")


def _emit(r, head: dict, sink: Optional[list]) -> int:
    """``--json`` for a calibration or a pilot: ``head`` with the files written, warnings, exit and next step,
    printed, or kept in ``sink`` when several runs are rendered at once."""
    payload = {**head, "files": {k: str(v) for k, v in r.files.items()}, "warnings": r.warnings, "exit": r.code,
               "next": r.next_step}
    if sink is not None:
        sink.append(payload)
    else:
        print(json.dumps(payload, indent=2))
    return r.code


def _calibration(args, r, last: bool, sink: Optional[list]) -> int:
    """A calibration run: the judges' decisive rate on equal pairs, pooled and per case, and where it is kept."""
    cal = r.calibration
    if args.json:
        return _emit(r, {"skill": cal.skill, "run_id": cal.run_id, "calibration": serde.dump(cal)}, sink)
    print(f"{cal.skill}  run {cal.run_id}  (calibration: two new-skill arms per trial, judged blind)")
    for c in (cal.pooled, *cal.cases):
        print(f"  {'pooled' if c.case == 'all' else c.case}: {_rate(c)}")
    if cal.first_shown_share is not None:
        print(f"  position bias: the output shown first won {cal.pooled.first_shown_won} of {cal.pooled.decisive} "
              f"decisive judgments ({cal.first_shown_share:.0%}; {cal.interval} interval "
              f"{cal.first_shown_low:.0%} to {cal.first_shown_high:.0%})")
    if cal.confirmed:
        print(f"  confirmations: {cal.pooled.flipped or 0} of {cal.pooled.confirmations or 0} disagreed with the "
              "judgment they confirm (later runs with confirm_judgments read the confirmed readings)")
    if cal.partial:
        print(f"  partial: {cal.judged} of {cal.trials} trials judged; kept beside any complete calibration, which "
              "later runs use first")
    for w in r.warnings:
        print(f"  warning: {w}", file=sys.stderr)
    print("wrote:")
    for v_ in r.files.values():
        print(f"  {v_}")
    if last:
        print(f"next: {r.next_step}")
    return r.code


def _rate(c) -> str:
    if not c.judgments:
        return "no judgments"
    return (f"decisive on {c.decisive} of {c.judgments} equal pairs ({c.decisive_rate:.0%}; 95% Wilson interval "
            f"{c.low:.0%} to {c.high:.0%})")


def _pilot(args, r, last: bool, sink: Optional[list]) -> int:
    """A pilot: per case what it showed, and what the full run would cost; never a verdict."""
    p = r.pilot
    if args.json:
        return _emit(r, {"skill": p.skill, "run_id": p.run_id, "pilot": serde.dump(p)}, sink)
    print(f"{p.skill}  pilot {p.run_id}  ({p.shape})")
    print(f"  {p.summary}")
    for line in p.lines:
        print(f"  {line}")
    for w in r.warnings:
        print(f"  warning: {w}", file=sys.stderr)
    print(f"wrote: {shown_path(r.files['pilot'])}")
    if last:
        print(f"next: {r.next_step}")
    return r.code
