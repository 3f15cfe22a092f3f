"""The files a render writes into the reports folder: the results, the report page, the history, the leaderboard.

Everything is read and computed first (the history, every skill's latest results, the pages), then every
file is staged and renamed into place together (:func:`benchcore.harness.store.files.write_all_atomic`), so a
render that fails or is killed leaves what was there whole. The caller holds the folder's lock.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from ... import history as hist
from ... import serde
from ...errors import BenchError
from ...estimate import run_usage
from ...model import SkillResult
from ..store.files import read_text, remove_stale_staged, write_all_atomic
from ..claude.session import supported
from ..runs.folder import read_run


def generated_at() -> str:
    """Now in UTC, or SOURCE_DATE_EPOCH when set (reproducible renders)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        now = datetime.fromtimestamp(int(epoch), tz=timezone.utc)
    else:
        now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def results_name(result: SkillResult) -> str:
    """``<skill>`` for a run on the session's model, ``<skill>@<model>`` for a run of a multi-model skill."""
    from ...report.fmt import model_slug

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
    from ..store.files import not_regular
    from ...results import check_result

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
    from ...report.view.page import build_report_view

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
        views[other.model] = build_report_view(other, other_data, mine, generated_at=stamp, floor=supported().floor)
    return sorted(views.items())


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


def write_reports(reports: Path, result: SkillResult, data, seed_history, warnings: list[str],
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

    from ...report.index import LeaderboardEntry, build_index_view
    from ...report.render import render_index, render_report
    from ...report.view.page import build_report_view

    stamp = generated_at()
    if result.model is None:
        html = render_report(build_report_view(result, data, [e for e in entries if e.model is None],
                                               generated_at=stamp, floor=supported().floor))
    else:
        from ... import __version__
        from ...report.render import render_models

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
