"""Read a run directory (CONTRACT section 2) into :class:`benchcore.model.RunData`.

Only what ``render`` needs: run.json, cases/<id>/case.md, and per trial the
arm folders (output.md, transcripts), assertions.json, <comparison>.json and
audit.json. plan.json is not needed. Every unreadable file is a BenchError
naming it; a missing trial file just leaves that piece absent (the rules
then call the trial incomplete).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .. import serde
from ..casefile import parse_case
from ..errors import BenchError
from ..model import ARMS, COMPARISONS, AssertionResult, Audit, ComparisonRecord, RunData, RunInfo, TrialData
from .files import read_text


def read_run_info(run_dir: Path) -> RunInfo:
    path = run_dir / "run.json"
    if not path.is_file():
        raise BenchError(str(run_dir), "is not a run directory (it has no run.json)",
                         fix="pass the folder 'benchcore plan' created, e.g. tests/.reports/runs/<run-id>")
    info = serde.loads(RunInfo, read_text(path), source=str(path))
    if info.trials < 1:
        raise BenchError(str(path), f"trials is {info.trials}", fix="a run has 5 trials; re-create run.json with benchcore plan")
    if not info.cases:
        raise BenchError(str(path), "lists no cases", fix="plan the run again from a skill that has cases")
    for arm in info.arms:
        if arm not in ARMS:
            raise BenchError(str(path), f"unknown arm {arm!r}", fix=f"arms are {', '.join(ARMS)}")
    for comp in info.comparisons:
        if comp not in COMPARISONS:
            raise BenchError(str(path), f"unknown comparison {comp!r}", fix=f"comparisons are {', '.join(COMPARISONS)}")
    return info


def _load_json_file(cls, path: Path):
    return serde.loads(cls, read_text(path), source=str(path))


def read_cell_usage(cell_dir: Path, prices, warnings: Optional[list] = None):
    """Usage of one arm cell: its transcript.jsonl plus any transcripts of subagents it launched."""
    from ..usage import sum_usage
    from .transcript_io import transcript_usage

    files = sorted(p for p in cell_dir.rglob("*.jsonl") if p.is_file())
    if not files:
        return None
    usages = []
    for p in files:
        u, skipped = transcript_usage(p, prices)
        usages.append(u)
        if skipped and warnings is not None:
            warnings.append(f"{p}: skipped {skipped} truncated or malformed line{'s' if skipped != 1 else ''}")
    return sum_usage(usages)


def read_trial(run_dir: Path, info: RunInfo, case_id: str, trial: int, prices,
               warnings: Optional[list] = None) -> Optional[TrialData]:
    tdir = run_dir / "cases" / case_id / f"t{trial}"
    if not tdir.is_dir():
        return None
    outputs: dict[str, str] = {}
    usage = {}
    for arm in info.arms:
        cell = tdir / arm
        if (cell / "output.md").is_file():
            outputs[arm] = read_text(cell / "output.md")
        if cell.is_dir():
            u = read_cell_usage(cell, prices, warnings)
            if u is not None:
                usage[arm] = u
    assertions = None
    apath = tdir / "new" / "assertions.json"
    if apath.is_file():
        assertions = tuple(_load_json_file(list[AssertionResult], apath))
    comparisons = {}
    for comp in info.comparisons:
        cpath = tdir / f"{comp}.json"
        if cpath.is_file():
            comparisons[comp] = _load_json_file(ComparisonRecord, cpath)
    invalid = None
    apath = tdir / "audit.json"
    if apath.is_file():
        audit = _load_json_file(Audit, apath)
        if audit.invalid:
            invalid = "; ".join(f"{p.arm}: {p.problem}" for p in audit.problems) or "marked invalid by the audit"
    return TrialData(case=case_id, trial=trial, outputs=outputs, usage=usage, assertions=assertions,
                     comparisons=comparisons, invalid=invalid)


def read_run(run_dir: Path, prices=None, warnings: Optional[list] = None) -> RunData:
    """The whole run directory as data.

    ``prices``: the price table for imputed dollars (default: the committed one).
    ``warnings``: a list that receives one line per transcript with skipped lines.
    """
    from .transcript_io import price_table

    prices = prices if prices is not None else price_table()
    run_dir = Path(run_dir)
    info = read_run_info(run_dir)
    cases = []
    trials = []
    for case_id in info.cases:
        cpath = run_dir / "cases" / case_id / "case.md"
        if not cpath.is_file():
            raise BenchError(str(cpath), "is missing: run.json lists this case but the run has no copy of it",
                             fix="re-plan the run, or copy the case.md that was used into the run directory")
        cases.append(parse_case(read_text(cpath), str(cpath), case_id))
        for n in range(1, info.trials + 1):
            td = read_trial(run_dir, info, case_id, n, prices, warnings)
            if td is not None:
                trials.append(td)
    return RunData(run=info, cases=tuple(cases), trials=tuple(trials))
