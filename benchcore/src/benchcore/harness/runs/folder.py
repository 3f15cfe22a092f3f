"""Read a run directory (docs/run-format.md) into :class:`benchcore.model.RunData`.

Only what ``render`` needs: run.json, cases/<id>/case.md, and per trial the
arm folders (output.md, transcripts), assertions.json, <comparison>.json and
audit.json. plan.json is not needed. Every unreadable file is a BenchError
naming it; a missing trial file just leaves that piece absent (the rules
then call the trial incomplete).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterator, Optional

from ... import serde
from ...casefile import parse_case
from ...environment import EnvironmentEvidence
from ...errors import BenchError
from ...model import ARMS, COMPARISONS, PILOT_TRIALS, TRIALS, AssertionResult, Audit, ComparisonRecord, RunData, RunInfo, TrialData, evolve
from ..store.files import not_regular, read_text


def read_run_info(run_dir: Path) -> RunInfo:
    path = run_dir / "run.json"
    if not path.is_file():
        raise BenchError(str(run_dir), "is not a run directory (it has no run.json)",
                         fix="pass the folder 'benchcore plan' created, e.g. tests/.reports/runs/<run-id>")
    info = serde.loads(RunInfo, read_text(path), source=str(path))
    _check_run_info(info, str(path))
    return info


# The arms and comparisons each shape has (docs/run-format.md).
SHAPES = {
    "three-arm": (("new", "baseline", "previous"), {"efficacy": ("new", "baseline"), "regression": ("new", "previous")}),
    "two-arm": (("new", "baseline"), {"efficacy": ("new", "baseline")}),
    # Two independent arms of the same new skill, judged blind against each other (docs/calibration.md).
    "calibration": (("new", "twin"), {"calibration": ("new", "twin")}),
}


def _check_run_info(info: RunInfo, path: str) -> None:
    """What the types cannot say: 5 trials, arms and comparisons that match the shape, unique plain case ids."""
    replan = "plan the run again with 'benchcore plan' (run.json is written by it)"
    if info.trials != (PILOT_TRIALS if info.pilot else TRIALS):
        raise BenchError(path, f"trials is {info.trials}, but a run has {TRIALS} (the pass rules are defined on {TRIALS})",
                         fix=replan)
    for arm in info.arms:
        if arm not in ARMS:
            raise BenchError(path, f"unknown arm {arm!r}", fix=f"arms are {', '.join(ARMS)}")
    for comp in info.comparisons:
        if comp not in COMPARISONS:
            raise BenchError(path, f"unknown comparison {comp!r}", fix=f"comparisons are {', '.join(COMPARISONS)}")
    arms, comparisons = SHAPES[info.shape]
    if sorted(info.arms) != sorted(arms) or len(info.arms) != len(arms):
        raise BenchError(path, f"a {info.shape} run has the arms {', '.join(arms)}, but arms is {list(info.arms)}",
                         fix=replan)
    if dict(info.comparisons) != comparisons:
        want = ", ".join(f"{k}: {list(v)}" for k, v in comparisons.items())
        raise BenchError(path, f"a {info.shape} run compares {want}, but comparisons is "
                         f"{ {k: list(v) for k, v in info.comparisons.items()} }", fix=replan)
    if not info.cases:
        raise BenchError(path, "lists no cases", fix="plan the run again from a skill that has cases")
    seen = set()
    for case_id in info.cases:
        if not case_id or case_id in (".", "..") or "/" in case_id or "\\" in case_id:
            raise BenchError(path, f"case {case_id!r} is not a case folder name",
                             fix="list case folder names (e.g. 01-small-diff) in 'cases'")
        if case_id in seen:
            raise BenchError(path, f"case {case_id!r} is listed twice", fix="list each case once in 'cases'")
        seen.add(case_id)


def _check_order(record: ComparisonRecord, arms: tuple[str, str], path: Path) -> None:
    """The blind order names the comparison's two arms, one per letter; the file holds 1 judgment, or 3."""
    if len(record.judgments) not in (1, 3):
        raise BenchError(str(path), f"holds {len(record.judgments)} judgments, but a comparison has 1 judgment, "
                         f"or 3 when its judges split (docs/run-format.md, the rules)",
                         fix="delete the file and run 'benchcore collect' again: it rewrites it from the judges' answers")
    if set(record.order) != {"A", "B"} or sorted(record.order.values()) != sorted(arms):
        raise BenchError(str(path), f"order {dict(record.order)} does not give A and B the arms {arms[0]} and {arms[1]}",
                         fix="run 'benchcore collect' again: it writes the order drawn when the run was planned")


def _load_json_file(cls, path: Path):
    return serde.loads(cls, read_text(path), source=str(path))


def read_cell_usage(cell_dir: Path, prices, warnings: Optional[list] = None):
    """Usage of one arm cell: its transcript.jsonl plus any transcripts of subagents it launched."""
    from ...usage import sum_usage
    from ..claude.tokens import transcript_usage

    files = transcript_files(sorted(cell_dir.rglob("*.jsonl")), warnings)
    if not files:
        return None
    usages = []
    for p in files:
        u, skipped = transcript_usage(p, prices, follow=False)
        usages.append(u)
        if skipped and warnings is not None:
            warnings.append(f"{p}: skipped {skipped} truncated or malformed line{'s' if skipped != 1 else ''}")
    return sum_usage(usages)


# Where collect keeps a trial's ignored duplicates' transcripts (t<N>/ignored/), for their cost.
IGNORED_DIR = "ignored"


def transcript_files(paths, warnings: Optional[list] = None) -> list[Path]:
    """The regular files among ``paths`` (lstat, never opened: a named pipe would wait forever); each other
    one is named in ``warnings``, and folders are passed over in silence."""
    out = []
    for p in paths:
        what = not_regular(p)
        if what is None:
            out.append(p)
        elif what not in ("a folder", "missing") and warnings is not None:
            warnings.append(f"{p}: left out of the usage: it is {what}, not a regular file (a transcript is one); "
                            "remove it")
    return out


def read_trial(run_dir: Path, info: RunInfo, case_id: str, trial: int, prices,
               warnings: Optional[list] = None, usage_too: bool = True) -> Optional[TrialData]:
    tdir = run_dir / "cases" / case_id / f"t{trial}"
    if not tdir.is_dir():
        return None
    outputs: dict[str, str] = {}
    usage = {}
    for arm in info.arms:
        cell = tdir / arm
        if (cell / "output.md").is_file():
            outputs[arm] = read_text(cell / "output.md")
        if usage_too and cell.is_dir():
            u = read_cell_usage(cell, prices, warnings)
            if u is not None:
                usage[arm] = u
    shas = {arm: hashlib.sha256((tdir / arm / "output.md").read_bytes()).hexdigest()
            for arm in info.arms if (tdir / arm / "output.md").is_file()}
    assertions = None
    apath = tdir / "new" / "assertions.json"
    if apath.is_file():
        assertions = tuple(_load_json_file(list[AssertionResult], apath))
        if any(r.output_sha256 is not None and r.output_sha256 != shas.get("new") for r in assertions):
            # Keyed to other bytes than new/output.md holds: that output never went through the gate.
            assertions = None
    comparisons = {}
    for comp in info.comparisons:
        cpath = tdir / f"{comp}.json"
        if cpath.is_file():
            record = _load_json_file(ComparisonRecord, cpath)
            _check_order(record, info.comparisons[comp], cpath)
            keys = record.outputs_sha256
            if keys is not None and any(shas.get(arm) != sha for arm, sha in keys.items()):
                if warnings is not None:
                    warnings.append(f"{cpath}: judged other outputs than the trial now holds; not counted "
                                    "(run 'benchcore collect' to send the trial back to the judges)")
                continue
            comparisons[comp] = record
    judge_usage = []
    jdir = tdir / "judges"
    if usage_too and jdir.is_dir():
        from ..claude.tokens import transcript_usage
        for p in transcript_files(sorted(jdir.glob("*.jsonl")), warnings):
            u, skipped = transcript_usage(p, prices, follow=False)
            judge_usage.append(u)
            if skipped and warnings is not None:
                warnings.append(f"{p}: skipped {skipped} truncated or malformed line{'s' if skipped != 1 else ''}")
    # Duplicates the run's own sessions launched, ignored by collect but paid for (collect keeps them here).
    ignored_usage = []
    idir = tdir / IGNORED_DIR
    if idir.is_dir():
        from ..claude.tokens import transcript_usage
        for p in transcript_files(sorted(idir.glob("*.jsonl")), warnings):
            ignored_usage.append(transcript_usage(p, prices, follow=False)[0])
    invalid = None
    apath = tdir / "audit.json"
    if apath.is_file():
        audit = _load_json_file(Audit, apath)
        if audit.invalid:
            invalid = "; ".join(f"{p.arm}: {p.problem}" for p in audit.problems) or "marked invalid by the audit"
    from ..confine.guard import refusals
    return TrialData(case=case_id, trial=trial, outputs=outputs, usage=usage, assertions=assertions,
                     comparisons=comparisons, invalid=invalid, judge_usage=tuple(judge_usage),
                     guard=refusals(run_dir, case_id, trial),
                     refused=_refused(tdir / "refused.json"), ignored=_ignored(tdir / "ignored.json"),
                     ignored_usage=tuple(ignored_usage))


def _entries(path: Path) -> list:
    """A trial's list file written by collect (refused.json, ignored.json): its entries, or none when missing."""
    if not path.is_file():
        return []
    try:
        entries = json.loads(read_text(path))
    except ValueError as err:
        raise BenchError(str(path), f"is not valid JSON ({err})", fix="run 'benchcore collect' to write it again")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _refused(path: Path) -> tuple[str, ...]:
    """refused.json's entries as lines: "<cell>: <why>" and the transcript's path when there is one."""
    return tuple(f"{e.get('cell')}: {e.get('why')}" + (f" ({e['path']})" if e.get("path") else "")
                 for e in _entries(path))


def _ignored(path: Path) -> tuple[str, ...]:
    """ignored.json's entries as lines: "<packet or cell>: <why> (<the transcript ignored>)"."""
    return tuple(f"{e.get('packet') or e.get('cell')}: {e.get('why')} ({e.get('path')})" for e in _entries(path))


def read_run(run_dir: Path, prices=None, warnings: Optional[list] = None, usage_too: bool = True) -> RunData:
    """The whole run directory as data.

    ``prices``: the price table for imputed dollars (default: the committed one).
    ``warnings``: a list that receives one line per transcript with skipped lines.
    ``usage_too``: False leaves out what the transcripts spent (no transcript is read).
    """
    run_dir = Path(run_dir)
    info = _sorted_info(run_dir)
    cases, trials = [], []
    for case, case_trials in _by_case(run_dir, info, prices, warnings, usage_too):
        cases.append(case)
        trials.extend(case_trials)
    env_path = run_dir / "environment.json"
    environment = _load_json_file(EnvironmentEvidence, env_path) if env_path.is_file() else None
    return RunData(run=info, cases=tuple(cases), trials=tuple(trials), environment=environment)


def read_run_by_case(run_dir: Path, usage_too: bool = True) -> Iterator[RunData]:
    """:func:`read_run` one case at a time, each read as it is asked for: a RunData whose run.json lists that
    case alone, without environment.json. A caller whose rules are per case (collect's escalations) never
    holds every trial's outputs at once: for 3,000 cells they had added 12 MB to collect's peak."""
    run_dir = Path(run_dir)
    info = _sorted_info(run_dir)
    for case, trials in _by_case(run_dir, info, None, None, usage_too):
        yield RunData(run=evolve(info, cases=(case.id,)), cases=(case,), trials=tuple(trials))


def _sorted_info(run_dir: Path) -> RunInfo:
    """run.json, its cases in the case folders' names' order (docs/case-format.md), whatever order it lists."""
    info = read_run_info(run_dir)
    return evolve(info, cases=tuple(sorted(info.cases)))


def _by_case(run_dir: Path, info: RunInfo, prices, warnings: Optional[list], usage_too: bool) -> Iterator[tuple]:
    """(case, its trials' data) for each case of ``info``, in order, each read when asked for."""
    from ..claude.tokens import price_table

    prices = prices if prices is not None else price_table()
    for case_id in info.cases:
        cpath = run_dir / "cases" / case_id / "case.md"
        if not cpath.is_file():
            raise BenchError(str(cpath), "is missing: run.json lists this case but the run has no copy of it",
                             fix="re-plan the run, or copy the case.md that was used into the run directory")
        case = parse_case(read_text(cpath), str(cpath), case_id)
        yield case, [td for n in range(1, info.trials + 1)
                     if (td := read_trial(run_dir, info, case_id, n, prices, warnings, usage_too)) is not None]


