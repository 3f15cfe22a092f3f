"""Read what the no-signal findings need (the baseline's assertion results, the skill's earlier history) and
attach them to the results (:func:`benchcore.nosignal.find` decides; nothing here decides)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional

from attrs import evolve

from ... import history as hist
from ... import nosignal, serde
from ...errors import BenchError
from ...model import AssertionResult, SkillResult
from ..store.files import read_text


def baseline_results(run_dir: Path, data) -> dict[tuple[str, int], tuple[AssertionResult, ...]]:
    """(case, trial) -> the baseline's ``assertions.json`` when it ran on the output.md now on disk; a file
    that cannot be read is left out (it is information, never a verdict)."""
    out = {}
    for case in data.cases:
        if not case.hard_assertions:
            continue
        for n in range(1, data.run.trials + 1):
            cell = run_dir / "cases" / case.id / f"t{n}" / "baseline"
            apath, output = cell / "assertions.json", cell / "output.md"
            if not apath.is_file() or not output.is_file():
                continue
            sha = hashlib.sha256(output.read_bytes()).hexdigest()
            try:
                results = tuple(serde.loads(list[AssertionResult], read_text(apath), source=str(apath)))
            except (BenchError, ValueError):
                continue
            if all(r.output_sha256 == sha for r in results):
                out[(case.id, n)] = results
    return out


def earlier_entries(reports: Path, skill: str, run, seed_history: Optional[str]) -> list:
    """The skill's history lines of runs that started before this one, oldest first (corrupt lines skipped:
    the history's own reading names them)."""
    path = reports / f"{skill}.history.jsonl"
    if seed_history is not None:
        text = seed_history
    elif path.is_file() and not path.is_symlink():
        text = path.read_bytes().decode("utf-8", errors="replace")
    else:
        text = ""
    entries, _warnings, _corrupt = hist.parse(text, str(path))
    # the same second counts as earlier: two runs planned in one second both started before the other renders
    return [e for e in entries if e.run_id != run.run_id and e.at <= run.started_at]


def with_no_signal(result: SkillResult, data, run_dir: Path, reports: Path,
                   seed_history: Optional[str]) -> SkillResult:
    """``result`` with its ``no_signal`` findings."""
    new = {(t.case, t.trial): t.assertions for t in data.trials if t.assertions is not None}
    found = nosignal.find(data.cases, result.cases, new, baseline_results(run_dir, data),
                          earlier_entries(reports, result.skill, data.run, seed_history), result.model)
    return evolve(result, no_signal=found)


__all__ = ["baseline_results", "earlier_entries", "with_no_signal"]
