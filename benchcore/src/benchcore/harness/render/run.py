"""Render one run folder: read it, apply the pass rules, and write the reports (``render_run``).

The command prints what it returns; nothing here prints.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Optional

from attrs import frozen

from ...errors import BenchError
from ...calibration import summarize
from ...model import Calibration, SkillResult
from ...results import build_results
from ... import serde
from ..store.files import locked_folder, read_text, write_atomic
from ..runs.calibration import read_calibration, write_calibration
from ..runs.folder import read_run
from .reports import write_reports
from .pilot import render_pilot
from .signal import with_no_signal

EXAMPLE_REPORTS = "benchcore-example"
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


@frozen
class Rendered:
    """What one render wrote and decided: the command's output and exit code come from it."""
    run_dir: Path
    result: Optional[SkillResult]   # None for a calibration run, which has no verdicts
    files: dict
    warnings: list
    code: int           # 0 both verdicts green (or n/a) and the run complete; 1 otherwise
    next_step: str
    calibration: Optional[Calibration] = None
    unjudged: int = 0   # a calibration's trials without a judgment (invalid ones included)
    pilot: Optional[object] = None  # a pilot's report (benchcore.pilot.PilotReport): no verdict


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


def _render_calibration(data, run_dir: Path, reports: Path, warnings: list[str]) -> Rendered:
    """A calibration run: its readings of equal pairs counted and stored as the skill's calibration, beside the
    history (and in the run folder); no verdict, no history line, no report page."""
    cal = summarize(data)
    unjudged = (cal.trials or 0) - (cal.judged or 0)  # with confirm_judgments, a confirmation awaited counts too
    if unjudged:
        warnings.append(f"{unjudged} of {cal.trials} trials have no judgment{' or confirmation' if cal.confirmed else ''}"
                        " (or are invalid); the calibration counts the others and is kept as partial (a complete "
                        "one is used before it): collect again to finish it")
    with locked_folder(reports):
        path = write_calibration(reports, cal, warnings)
    write_atomic(run_dir / "calibration.json", serde.dumps(cal))
    has_temp = (run_dir / "plan.json").is_file()
    next_step = (f"benchcore clean {run_dir}   (removes this run's temp worlds and skill copies); later runs of "
                 f"{cal.skill} show this floor beside their verdicts" if has_temp else f"cat {path}")
    return Rendered(run_dir=run_dir, result=None, files={"calibration": path}, warnings=warnings,
                    code=1 if unjudged else 0, next_step=next_step, calibration=cal, unjudged=unjudged)


def render_run(run_dir_arg: Optional[Path], reports_arg: Optional[Path], example: bool) -> Rendered:
    """Render ``run_dir_arg`` (or the bundled example) into ``reports_arg`` (or the default reports folder)."""
    seed_history = None
    if example:
        run_dir, seed_history = _example_run()
        reports = reports_arg or Path.cwd() / EXAMPLE_REPORTS
    else:
        run_dir = run_dir_arg
        if not run_dir.is_dir():
            raise BenchError(str(run_dir), "does not exist or is not a folder",
                             fix="pass the run directory 'benchcore plan' printed (tests/.reports/runs/<run-id>)")
        reports = reports_arg or default_reports_dir(run_dir)
    if reports.exists() and not reports.is_dir():
        raise BenchError(str(reports), "is a file, not a reports folder",
                         fix="pass --reports a folder (it is created when missing)")

    warnings: list[str] = []
    data = read_run(run_dir, warnings=warnings)
    skill = data.run.skill.name
    if not SAFE_NAME.fullmatch(skill or "") or ".." in skill:
        raise BenchError(str(run_dir / "run.json"), f"skill.name {skill!r} cannot name a report file "
                         "(it becomes <name>.html and <name>.history.jsonl in the reports folder)",
                         fix="use the skill's folder name: letters, digits, '.', '_' and '-', starting with a letter "
                             "or digit (re-plan the run with 'benchcore plan <skill>')")
    if data.run.shape == "calibration":
        return _render_calibration(data, run_dir, reports, warnings)
    if data.run.pilot:
        report, path, code, next_step = render_pilot(data, run_dir, warnings)
        return Rendered(run_dir=run_dir, result=None, files={"pilot": path}, warnings=warnings, code=code,
                        next_step=next_step, pilot=report)
    calibration = None if example else read_calibration(reports, skill, warnings)
    result = build_results(data, calibration)
    warnings.extend(_ungated_trials(data))

    # Another render into the same folder waits here: its history append and index must see ours.
    with locked_folder(reports):
        result = with_no_signal(result, data, run_dir, reports, seed_history)
        files, warnings = write_reports(reports, result, data, seed_history, warnings,
                                        None if example else run_dir)

    green = result.verdicts.efficacy.status == "pass" and result.verdicts.regression.status in ("pass", "n/a")
    code = 0 if green and not result.incomplete and not result.escalations else 1
    has_temp = (run_dir / "plan.json").is_file() and not example
    next_step = (f"benchcore clean {run_dir}   (in the background, after the verdict)"
                 if has_temp
                 else f"open {files['report']}")
    return Rendered(run_dir=run_dir, result=result, files=files, warnings=warnings, code=code, next_step=next_step)
