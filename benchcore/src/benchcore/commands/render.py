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
import os
import re
import sys
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Optional

from .. import history as hist
from .. import serde
from ..errors import BenchError
from ..harness.files import locked_folder, read_text, remove_stale_staged, write_all_atomic
from ..harness.rundir import read_run
from ..model import SkillResult
from ..estimate import run_usage
from ..results import build_results

EXAMPLE_REPORTS = "benchcore-example"


def add_arguments(p) -> None:
    p.add_argument("run_dir", nargs="*", type=Path, metavar="run-dir",
                   help="the run directory (tests/.reports/runs/<run-id>)")
    p.add_argument("--reports", type=Path, default=None,
                   help="where to write reports (default: tests/.reports of the repository holding the run; "
                        f"with --example: ./{EXAMPLE_REPORTS})")
    p.add_argument("--example", action="store_true", help="render the bundled example run (no setup needed)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")


SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def generated_at() -> str:
    """Now in UTC, or SOURCE_DATE_EPOCH when set (reproducible renders)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        now = datetime.fromtimestamp(int(epoch), tz=timezone.utc)
    else:
        now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def default_reports_dir(run_dir: Path) -> Path:
    """tests/.reports of the repository holding the run; else the folder above runs/."""
    run_dir = run_dir.resolve()
    for d in run_dir.parents:
        if d.name == ".reports" and d.parent.name == "tests":
            return d
    if run_dir.parent.name == "runs":
        return run_dir.parent.parent
    raise BenchError(str(run_dir), "is not inside tests/.reports/runs/, so there is no default reports folder",
                     fix="pass --reports DIR")


def _example_run() -> tuple[Path, str]:
    base = resources.files("benchcore").joinpath("example")
    run_dir = Path(str(base.joinpath("run")))
    history = read_text(Path(str(base.joinpath("history.jsonl"))))
    return run_dir, history


def results_name(result: SkillResult) -> str:
    """``<skill>`` for a run on the session's model, ``<skill>@<model>`` for a run of a multi-model skill."""
    from ..report.fmt import model_slug

    return result.skill if result.model is None else f"{result.skill}@{model_slug(result.model)}"


def _latest_results(reports: Path, current: SkillResult, warnings: list[str],
                    refused: Optional[dict[str, str]] = None) -> list[SkillResult]:
    """Every skill's (and skill x model's) latest results.json in the reports folder, the current run
    replacing its own. A file that cannot be read, or whose verdicts its own numbers contradict, is not
    among them: ``refused`` receives its name and why, for the leaderboard to show it as unknown."""
    out = {results_name(current): current}
    for path in sorted(reports.glob("*.results.json")):
        name = path.name[: -len(".results.json")]
        if name == results_name(current):
            continue
        other, why = _read_other_results(path)
        if other is None:
            warnings.append(f"index.html shows {name} as refused: {why}")
            if refused is not None:
                refused[name] = f"{path.name} was refused ({why}); render that skill's run again to replace it"
            continue
        if results_name(other) != name:  # a copied or renamed file would list a skill twice, or link a missing page
            warnings.append(f"left {path.name} out of index.html: it holds the results of {results_name(other)!r}")
            continue
        out[name] = other
    return [out[k] for k in sorted(out)]


def _read_other_results(path: Path) -> tuple[Optional[SkillResult], Optional[str]]:
    """Another skill's results.json as the leaderboard may trust it, or (None, why not): a regular file
    (lstat; a pipe is never opened), valid JSON of known fields and finite numbers, whose verdicts follow
    from its own trial outcomes by the pass rules."""
    from ..harness.files import not_regular
    from ..results import check_result

    what = not_regular(path)
    if what is not None:
        return None, f"it is {what}, not a regular file"
    try:
        text = read_text(path)
        try:
            data = json.loads(text)
        except ValueError as exc:
            return None, f"it is not valid JSON ({exc})"
        problems = serde.wire_problems(SkillResult, data)
        result = serde.load(SkillResult, data, source=str(path)) if not problems else None
    except BenchError as err:
        return None, err.message
    if result is not None:
        problems = check_result(result)
    if problems:
        more = f" and {len(problems) - 2} more" if len(problems) > 2 else ""
        return None, "; ".join(problems[:2]) + more
    return result, None


def _model_sections(reports: Path, result: SkillResult, data, entries, stamp: str, warnings: list[str]):
    """(model, ReportView) for every model of a multi-model skill: this run, and each other model's latest
    rendered run read again from ``<reports>/runs/<run-id>``."""
    from ..report.view import build_report_view

    views = {}
    for other in _latest_results(reports, result, []) if reports.is_dir() else [result]:
        if other.skill != result.skill or other.model is None:
            continue
        if other is result:
            other_data = data
        else:
            rd = reports / "runs" / other.run_id
            if not (rd / "run.json").is_file():
                warnings.append(f"left {other.model} out of {result.skill}.html: its run {other.run_id} is not "
                                f"in {reports / 'runs'}")
                continue
            other_data = read_run(rd)
        mine = [e for e in entries if e.model == other.model]
        views[other.model] = build_report_view(other, other_data, mine, generated_at=stamp)
    return sorted(views.items())


def _ungated_trials(data) -> list[str]:
    """Trials whose new output exists but whose case's hard assertions were never run on it."""
    out = []
    for case in data.cases:
        if not case.hard_assertions:
            continue
        missing = [t.trial for t in data.trials
                   if t.case == case.id and "new" in t.outputs and t.assertions is None]
        if missing:
            out.append(f"{case.id}: no new/assertions.json for trial{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(map(str, sorted(missing)))}, so the hard-assertion gate was not applied there "
                       "(run 'benchcore collect' again to run the assertions)")
    return out


def _read_lenient(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise BenchError(str(path), f"cannot be read: {exc.strerror or exc}",
                         fix="check the file's permissions, or move it away to start a new history") from None


def _run_time(run_id: str) -> Optional[str]:
    """The start time a run id begins with (``20261202T160000Z-3f2a`` -> ``20261202T160000Z``), or None."""
    stamp = run_id.split("-", 1)[0]
    try:
        datetime.strptime(stamp, "%Y%m%dT%H%M%SZ")
    except ValueError:
        return None
    return stamp


def _newer_rendered_run(path: Path, started_at: str) -> Optional[str]:
    """The run id in ``path`` (a rendered results.json) when that run started after ``started_at``."""
    if not path.is_file():
        return None
    try:
        other = serde.loads(SkillResult, read_text(path), source=str(path))
        mine = datetime.fromisoformat(started_at.replace("Z", "+00:00")).strftime("%Y%m%dT%H%M%SZ")
    except (BenchError, ValueError):
        return None
    theirs = _run_time(other.run_id)
    return other.run_id if theirs is not None and theirs > mine else None


def _write_reports(reports: Path, result: SkillResult, data, seed_history, warnings: list[str],
                   run_dir: Optional[Path] = None):
    """Read the history and every skill's latest results, then write the four files (under the folder's lock)."""
    skill = result.skill
    hist_path = reports / f"{skill}.history.jsonl"
    if seed_history is not None:
        history_text = seed_history
        hist_source = f"example {skill}.history.jsonl"
    else:
        if hist_path.is_symlink() or (hist_path.exists() and not hist_path.is_file()):
            # Rendering would read the link's target and write it back as a file in the reports folder.
            raise BenchError(str(hist_path), "is a link or not a regular file, so render will not read or replace it",
                             fix=f"replace it with the history file itself, or move it away to start a new history")
        # Bytes that are not UTF-8 spoil only their own line, which is then set aside as corrupt.
        history_text = _read_lenient(hist_path) if hist_path.is_file() else ""
        hist_source = str(hist_path)
    entries, hist_warnings, corrupt = hist.parse(history_text, hist_source)
    warnings.extend(hist_warnings)
    corrupt_path = reports / f"{skill}.history.corrupt.jsonl"
    if corrupt and seed_history is None:
        warnings.append(f"the corrupt history lines were moved to {corrupt_path}")
    entries = hist.append(entries, hist.entry_for(result, data.run, run_usage(data)))

    from ..report.index import LeaderboardEntry, build_index_view
    from ..report.render import render_index, render_report
    from ..report.view import build_report_view

    stamp = generated_at()
    if result.model is None:
        html = render_report(build_report_view(result, data, [e for e in entries if e.model is None],
                                               generated_at=stamp))
    else:
        from .. import __version__
        from ..report.render import render_models

        html = render_models(f"{skill}: benchmark runs on several models", skill,
                             _model_sections(reports, result, data, entries, stamp, warnings), stamp, __version__)
    newer = _newer_rendered_run(reports / f"{results_name(result)}.results.json", data.run.started_at)
    if newer is not None and run_dir is not None:
        # An older run than the one the reports show: the leaderboard and <skill>.html follow the runs' own
        # times, not the order of rendering, so they stay; this run's page and results go into its folder.
        warnings.append(f"run {result.run_id} is older than {newer}, the latest rendered run of {skill}: "
                        f"{skill}.html and index.html keep {newer}; this run's report is in its run folder")
        files = {"results": run_dir / "results.json", "report": run_dir / f"{skill}.html", "history": hist_path}
        contents = {files["results"]: serde.dumps(result), files["report"]: html,
                    files["history"]: hist.dumps(entries)}
    else:
        refused: dict[str, str] = {}
        latest = _latest_results(reports, result, warnings, refused) if reports.is_dir() else [result]
        index_html = render_index(build_index_view(
            [LeaderboardEntry(skill=r.skill, result=r, report_file=f"{r.skill}.html", model=r.model) for r in latest]
            + [LeaderboardEntry(skill=name, result=None, report_file="", refused=why)
               for name, why in sorted(refused.items())],
            generated_at=stamp))
        files = {
            "results": reports / f"{results_name(result)}.results.json",
            "report": reports / f"{skill}.html",
            "history": hist_path,
            "index": reports / "index.html",
        }
        contents = {
            files["results"]: serde.dumps(result),
            files["report"]: html,
            files["history"]: hist.dumps(entries),
            files["index"]: index_html,
        }
    if corrupt and seed_history is None:
        kept = read_text(corrupt_path) if corrupt_path.is_file() else ""
        # A render killed after keeping them but before replacing the history saw the same lines: kept once.
        known = set(kept.splitlines())
        fresh = [line for line in dict.fromkeys(corrupt) if line not in known]
        if fresh:
            # First in the dict, so renamed into place first: a kill between two renames never leaves a
            # history that dropped a corrupt line not yet kept in .corrupt.jsonl.
            contents = {corrupt_path: kept + "".join(line + "\n" for line in fresh), **contents}
    # A render killed between staging and renaming left .<file>.*.tmp beside its targets; under the lock none is live.
    remove_stale_staged(contents)
    # Every file is staged before any is replaced: a folder that cannot take them all gets none.
    write_all_atomic(contents)
    return files, warnings


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
              "(removes these runs' temp worlds and skill copies)")
    return code


def _run_one(args, run_dir_arg: Optional[Path], last: bool, sink: Optional[list] = None) -> int:
    seed_history = None
    if args.example:
        run_dir, seed_history = _example_run()
        reports = args.reports or Path.cwd() / EXAMPLE_REPORTS
    else:
        run_dir = run_dir_arg
        if not run_dir.is_dir():
            raise BenchError(str(run_dir), "does not exist or is not a folder",
                             fix="pass the run directory 'benchcore plan' printed (tests/.reports/runs/<run-id>)")
        reports = args.reports or default_reports_dir(run_dir)
    if reports.exists() and not reports.is_dir():
        raise BenchError(str(reports), "is a file, not a reports folder",
                         fix="pass --reports a folder (it is created when missing)")

    warnings: list[str] = []
    data = read_run(run_dir, warnings=warnings)
    result = build_results(data)
    warnings.extend(_ungated_trials(data))
    skill = result.skill
    if not SAFE_NAME.fullmatch(skill or "") or ".." in skill:
        raise BenchError(str(run_dir / "run.json"), f"skill.name {skill!r} cannot name a report file "
                         "(it becomes <name>.html and <name>.history.jsonl in the reports folder)",
                         fix="use the skill's folder name: letters, digits, '.', '_' and '-', starting with a letter "
                             "or digit (re-plan the run with 'benchcore plan <skill>')")

    # Another render into the same folder waits here: its history append and index must see ours.
    with locked_folder(reports):
        files, warnings = _write_reports(reports, result, data, seed_history, warnings,
                                         None if args.example else run_dir)

    green = result.verdicts.efficacy.status == "pass" and result.verdicts.regression.status in ("pass", "n/a")
    code = 0 if green and not result.incomplete and not result.escalations else 1
    has_temp = (run_dir / "plan.json").is_file() and not args.example
    next_step = (f"benchcore clean {run_dir}   (removes this run's temp worlds and skill copies)" if has_temp
                 else f"open {files['report']}")
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
    print("wrote:")
    for v_ in files.values():
        print(f"  {v_}")
    if last:
        print(f"next: {next_step}")
    return code
