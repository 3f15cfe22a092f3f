"""A skill's run history (``<skill>.history.jsonl``): parse, append, trim. Pure."""

from __future__ import annotations

import json
from typing import Optional, Sequence

from . import serde
from .errors import BenchError
from .nosignal import case_counts
from .model import AxisResult, AxisSummary, HistoryEntry, RunInfo, SkillResult

KEEP = 50


def summarize(cases_axes: Sequence[AxisResult], passed: bool, net: int, incomplete: bool = False) -> AxisSummary:
    """One axis of one run, summed over its cases; ``incomplete`` when it did not pass only for want of
    judgments (so the trend does not count it as a red run)."""
    return AxisSummary(net=net, passed=passed,
                       wins=sum(a.wins for a in cases_axes), ties=sum(a.ties for a in cases_axes),
                       losses=sum(a.losses for a in cases_axes), incomplete=incomplete and not passed)


def entry_for(result: SkillResult, run: RunInfo, usage: Optional[dict] = None) -> HistoryEntry:
    """The history line of a rendered run; ``at`` is when the run started (so re-rendering is stable).

    ``usage``: per arm and for the judges, the run's usage and median cell
    (:func:`benchcore.estimate.run_usage`), which later estimates are made from."""
    v = result.verdicts
    eff = summarize([c.efficacy for c in result.cases], v.efficacy.status == "pass", v.efficacy.net or 0,
                    v.efficacy.incomplete)
    reg: Optional[AxisSummary] = None
    if v.regression.status != "n/a":
        reg = summarize([c.regression for c in result.cases if c.regression is not None],
                        v.regression.status == "pass", v.regression.net or 0, v.regression.incomplete)
    return HistoryEntry(run_id=result.run_id, at=run.started_at, shape=result.shape,
                        default_branch_commit=run.default_branch.commit if run.default_branch else None,
                        efficacy=eff, regression=reg, model=run.model, usage=dict(usage or {}),
                        estimate=_estimate_totals(run.estimate), claude_code=result.claude_code,
                        served=dict(result.served), efficacy_cases=case_counts(result.cases))


def served_change(before: HistoryEntry, after: HistoryEntry) -> str:
    """What changed in what served the run from ``before`` to ``after``: Claude Code's version, a model an arm
    or the judges ran on ("" when nothing did, or a line has no record of it: older history lines)."""
    said = []
    if before.claude_code and after.claude_code and before.claude_code != after.claude_code:
        said.append(f"Claude Code {', '.join(before.claude_code)} -> {', '.join(after.claude_code)}")
    for who in sorted(set(before.served) & set(after.served)):
        if before.served[who] != after.served[who]:
            name = "the judges' model" if who == "judges" else f"the {who} arm's model"
            said.append(f"{name} {', '.join(before.served[who])} -> {', '.join(after.served[who])}")
    return "; ".join(said)


def _green(e: HistoryEntry) -> Optional[bool]:
    """Whether a run was green on every axis it has (None: not final, awaiting judgments)."""
    axes = [a for a in (e.efficacy, e.regression) if a is not None]
    if any(a.incomplete for a in axes):
        return None
    return all(a.passed for a in axes)


def served_note(entries: Sequence[HistoryEntry], run_id: str) -> str:
    """The headline's sentence when the verdict changed across a run where Claude Code or a served model
    changed: "the model changed since the last green run (...)"; "" otherwise."""
    at = next((i for i in range(len(entries) - 1, -1, -1) if entries[i].run_id == run_id), None)
    if at is None or (now := _green(entries[at])) is None:
        return ""
    last = next((i for i in range(at - 1, -1, -1) if _green(entries[i]) is (not now)), None)
    if last is None:
        return ""
    changes = [c for i in range(last + 1, at + 1) if (c := served_change(entries[i - 1], entries[i]))]
    if not changes:
        return ""
    text = "; ".join(changes)
    what = " and ".join(w for w, hit in (("Claude Code", "Claude Code" in text), ("the model", "model" in text)) if hit)
    return (f"{what[0].upper()}{what[1:]} changed since the last {'red' if now else 'green'} run ({text}): the "
            f"verdict may have changed with {'them' if ' and ' in what else 'it'}, not with the skill.")


def _estimate_totals(est):
    """The estimate's totals only (a history line stays short)."""
    if est is None:
        return None
    from attrs import evolve
    return evolve(est, arms={}, judges=None)


def parse(text: str, path: str) -> tuple[list[HistoryEntry], list[str], list[str]]:
    """History text -> (good entries in file order, warnings naming each corrupt line, the corrupt lines)."""
    entries: list[HistoryEntry] = []
    warnings: list[str] = []
    corrupt: list[str] = []
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(serde.load(HistoryEntry, json.loads(line), source=f"{path}:{no}"))
        except (json.JSONDecodeError, BenchError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else exc.message
            warnings.append(f"{path}:{no}: skipped a corrupt history line ({why}); the other lines are kept")
            corrupt.append(line)
    return entries, warnings, corrupt


def append(entries: Sequence[HistoryEntry], entry: HistoryEntry, keep: int = KEEP) -> list[HistoryEntry]:
    """Add ``entry`` (replacing an earlier line of the same run) in the order of the runs' start times, and
    keep the last ``keep``: re-rendering an older run puts it back where it ran, not last."""
    kept = [e for e in entries if e.run_id != entry.run_id]
    kept.append(entry)
    kept.sort(key=lambda e: e.at)  # stable: lines of the same time keep their order
    return kept[-keep:]


def dumps(entries: Sequence[HistoryEntry]) -> str:
    """Entries -> JSON lines, newest last."""
    return "".join(serde.dumps(e, indent=None) + "\n" for e in entries)
